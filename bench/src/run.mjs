// The benchmark suite: `npm run bench -- --duration 10 --db postgres|pglite|both|none [--replicas N]`.
// Starts the built server (apps/server/dist/main.mjs) on a scratch PostgreSQL database and on a
// temporary PGlite directory, seeds the data set, and measures every scenario; on PostgreSQL each
// scenario turn about with its floor (floors.mjs: the bare read or write), both servers up side by
// side; the hot task (every connection on one task) likewise; the derived-work lag (lag.mjs) under
// the mix. Prints/saves the tables
// (bench/results/<time>.{md,json}, ignored by git, and bench/results/latest.md, committed).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import postgres from 'postgres';
import { backendCpuSeconds, benchServerEnv, machineCpuSeconds, postgresCpuByPid, primeLoadsFrom, runLoad, startServer, stopAll } from './processes.mjs';
import { capacityTable, FLOOR_SCENARIOS, instancesTable, LABELS, replicasTable, table, verdicts } from './report.mjs';
import { writeLatest } from './latest.mjs';
import { plotSvg } from './plot.mjs';
import { lagTable, measureLag } from './lag.mjs';
import { startBouncer } from './pgbouncer.mjs';
import { startReplicatedCluster } from './replicas.mjs';
import { HOT_SCENARIOS } from './scenarios.mjs';
import { fixtures, floodEmails, hotFixtures, logIn, seed } from './seed.mjs';

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    db: { type: 'string', default: 'both' },
    scenarios: { type: 'string', default: 'task,project,page,filtered,trpc,create,patch,title,comment,hot,mix,lag,login,flood' },
    // Also run the mix on PostgreSQL with this many separate server processes against one (0: skip).
    instances: { type: 'string', default: '2' },
    // Also run the read page and the mix on a primary of the bench's own with this many streaming
    // replicas (replicas.mjs), turn about with the same primary alone (0: skip).
    replicas: { type: 'string', default: '0' },
    // With --replicas: also a third server that reaches the primary through PgBouncer (pgbouncer.mjs).
    pgbouncer: { type: 'boolean', default: false },
    // Turns of each scenario and its floor; the table gives the median of each figure.
    rounds: { type: 'string', default: '2' },
    'pg-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    port: { type: 'string', default: process.env.BENCH_PORT ?? '4250' },
    profile: { type: 'boolean', default: false },
    // Node options for our server only (the baselines and the load generator run without them).
    'server-node-options': { type: 'string', default: '' },
    // Another build of the server (e.g. an older commit's) for before/after comparisons.
    server: { type: 'string' },
    // For repeated runs while optimising: keep the seeded scratch database, or reuse a kept one.
    'keep-db': { type: 'boolean', default: false },
    'reuse-db': { type: 'string' },
    // Seed a database on PostgreSQL, keep it and stop (for interleave.mjs --reuse-db).
    'seed-only': { type: 'boolean', default: false },
  },
});

const root = new URL('../../', import.meta.url).pathname;
const serverMain = options.server ?? join(root, 'apps/server/dist/main.mjs');
const resultsDir = join(root, 'bench/results');
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const duration = Number(options.duration);
const warmup = Number(options.warmup);
const rounds = Number(options.rounds);
const scenarios = options.scenarios.split(',');
const port = Number(options.port);
const jwtSecret = randomBytes(32).toString('base64url');
const databases = options['seed-only'] ? ['postgres'] : options.db === 'both' ? ['postgres', 'pglite'] : options.db === 'none' ? [] : [options.db];
if (options['seed-only']) options['keep-db'] = true;
if (!databases.every((db) => db === 'postgres' || db === 'pglite')) throw new Error('--db must be postgres, pglite, both or none (with --replicas)');
if (!existsSync(serverMain)) throw new Error(`${serverMain} is missing: build the server first (npm run build)`);
mkdirSync(resultsDir, { recursive: true });

const LOGIN_CONNECTIONS = 4;
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
const say = (message) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
const cleanups = [];
process.on('SIGINT', async () => {
  await stopAll();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  process.exit(130);
});

const serverEnv = (extra) => benchServerEnv(jwtSecret, extra);

/** The process ids of the PostgreSQL backends connected to the bench's database (none on PGlite). */
let benchDatabaseName;
let monitor;
async function benchBackends() {
  if (!benchDatabaseName) return [];
  monitor ??= postgres(options['pg-url'], { max: 1, onnotice: () => {} });
  return (await monitor`select pid from pg_stat_activity where datname = ${benchDatabaseName}`).map((row) => row.pid);
}

/**
 * Runs one scenario against `server`. Besides autocannon's figures it records the server's CPU time
 * per request, which a busy machine distorts far less than requests per second.
 */
async function measure(server, scenario, connections, fixtureList, name = scenario) {
  say(`${name}: ${connections} connections, ${duration} s (load ${load()})`);
  const loadBefore = loadavg()[0];
  const cpuBefore = server.cpuSeconds();
  const databaseCpuBefore = postgresCpuByPid();
  const machineBefore = machineCpuSeconds();
  const result = await runLoad({ url: server.url, scenario, connections, duration, warmup, fixtures: fixtureList });
  const handled = result.requests + result.warmupRequests;
  const cpuUsPerRequest = ((server.cpuSeconds() - cpuBefore) * 1e6) / handled;
  // PostgreSQL's own CPU per request (0 on PGlite, whose work is the server's): the other half of
  // what a request costs on a machine where both share the cores. Only the backends of the bench's
  // database count, not those of other databases on the same PostgreSQL.
  const databaseCpuUsPerRequest = (backendCpuSeconds(databaseCpuBefore, postgresCpuByPid(), await benchBackends()) * 1e6) / handled;
  const machineAfter = machineCpuSeconds();
  const machineBusy = (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total);
  say(
    `  ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, errors ${result.errors}, server CPU ${Math.round(cpuUsPerRequest)} µs/request, PostgreSQL CPU ${Math.round(databaseCpuUsPerRequest)} µs/request, machine ${(machineBusy * 100).toFixed(0)} % busy`,
  );
  for (const sample of result.errorSamples) say(`  error sample: ${sample.status} ${sample.body}`);
  return { ...result, cpuUsPerRequest, databaseCpuUsPerRequest, machineBusy, label: LABELS[scenario], load1Before: loadBefore, load1After: loadavg()[0] };
}

/** The median of `values` (undefined ones left out). */
function median(values) {
  const sorted = values.filter((value) => value !== undefined).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Several turns of one measurement as one: the median of each figure, the errors summed. */
function medianOf(results) {
  const combined = { ...results[0], turns: results.map((result) => ({ rps: result.rps, p99: result.p99, cpuUsPerRequest: result.cpuUsPerRequest, databaseCpuUsPerRequest: result.databaseCpuUsPerRequest })) };
  for (const key of ['rps', 'p50', 'p99', 'cpuUsPerRequest', 'databaseCpuUsPerRequest', 'machineBusy']) combined[key] = median(results.map((result) => result[key]));
  combined.errors = results.reduce((sum, result) => sum + result.errors, 0);
  combined.requests = results.reduce((sum, result) => sum + result.requests, 0);
  return combined;
}

const migrate = (env) => execFileSync(process.execPath, [serverMain, 'migrate'], { env: { ...process.env, ...serverEnv(env) }, stdio: 'ignore' });

/** The server's migrations, then the data set, into the PostgreSQL database at `url`. */
async function migrateAndSeed(url) {
  migrate({ DATABASE_URL: url });
  const session = postgres(url, { max: 1, onnotice: () => {} });
  await seed((script) => session.unsafe(script));
  await session.end();
}

async function prepareDatabase(db) {
  if (db === 'postgres') {
    const reuse = options['reuse-db'];
    const name = reuse ?? `tasklane_bench_${randomBytes(4).toString('hex')}`;
    const url = new URL(options['pg-url']);
    url.pathname = `/${name}`;
    benchDatabaseName = name;
    if (reuse) return { env: { DATABASE_URL: url.toString() }, databaseUrl: url.toString() };
    const admin = postgres(options['pg-url'], { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    cleanups.push(async () => {
      if (options['keep-db']) say(`kept database ${name} (--reuse-db ${name})`);
      else await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    });
    await migrateAndSeed(url.toString());
    return { env: { DATABASE_URL: url.toString() }, databaseUrl: url.toString() };
  }
  benchDatabaseName = undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'tasklane-bench-pglite-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  migrate({ DATA_DIR: dataDir });
  // The tasks' text-search indexes need pg_trgm loaded, as the server loads it.
  const pglite = await PGlite.create({ dataDir: join(dataDir, 'pgdata'), extensions: { pg_trgm } });
  await seed((script) => pglite.exec(script));
  await pglite.close();
  return { env: { DATA_DIR: dataDir } };
}

/**
 * One measurement of `scenario` over several servers at once: the connections split over
 * `loaders` load generators, each sending to one of `servers` in turn; CPU summed over them.
 */
async function measureInstances(servers, scenario, connections, fixtureList, loaders) {
  say(`${scenario} on ${servers.length} server process(es), ${loaders} load generators: ${connections} connections, ${duration} s (load ${load()})`);
  const cpuBefore = servers.map((server) => server.cpuSeconds());
  const databaseCpuBefore = postgresCpuByPid();
  const share = Math.ceil(connections / loaders);
  const results = await Promise.all(
    Array.from({ length: loaders }, (_, i) =>
      runLoad({ url: servers[i % servers.length].url, scenario, connections: share, duration, warmup, fixtures: fixtureList.slice(i * share, (i + 1) * share) }),
    ),
  );
  const handled = results.reduce((sum, result) => sum + result.requests + result.warmupRequests, 0);
  const cpu = servers.reduce((sum, server, i) => sum + server.cpuSeconds() - cpuBefore[i], 0);
  const row = {
    rps: results.reduce((sum, result) => sum + result.rps, 0),
    requests: results.reduce((sum, result) => sum + result.requests, 0),
    p50: Math.max(...results.map((result) => result.p50)),
    p99: Math.max(...results.map((result) => result.p99)),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    cpuUsPerRequest: (cpu * 1e6) / handled,
    databaseCpuUsPerRequest: (backendCpuSeconds(databaseCpuBefore, postgresCpuByPid(), await benchBackends()) * 1e6) / handled,
    rssMb: servers.reduce((sum, server) => sum + server.rssMb(), 0),
  };
  say(`  ${Math.round(row.rps)} req/s, p99 ${row.p99} ms, errors ${row.errors}, server CPU ${Math.round(row.cpuUsPerRequest)} µs/request, PostgreSQL CPU ${Math.round(row.databaseCpuUsPerRequest)} µs/request`);
  return row;
}

async function startOurServer(db, prepared, extraEnv = {}, serverPort = port, suffix = '') {
  const profileDir = join(resultsDir, 'profiles', `${stamp}-${db}`);
  if (options.profile) mkdirSync(profileDir, { recursive: true });
  return startServer({
    name: `server (${db})`,
    args: [
      ...options['server-node-options'].split(' ').filter(Boolean),
      ...(options.profile ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []),
      serverMain,
    ],
    env: serverEnv({ ...prepared.env, ...extraEnv }),
    port: serverPort,
    readyPath: '/readyz',
    logFile: join(resultsDir, `${stamp}-server-${db}${suffix}.log`),
  });
}

async function baseline(kind, connections, fixtureList) {
  const server = await startServer({
    name: kind,
    args: [join(root, 'bench/src/baselines.mjs'), kind],
    env: {},
    port: port + 1,
    readyPath: '/',
    logFile: join(resultsDir, `${stamp}-${kind}.log`),
  });
  try {
    return await measure(server, kind, connections, fixtureList);
  } finally {
    await server.stop();
  }
}

async function benchDatabase(db) {
  const connections = db === 'postgres' ? 50 : 10;
  say(`${db}: seeding (load ${load()})`);
  const started = Date.now();
  const prepared = await prepareDatabase(db);
  say(`${db}: seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (options['seed-only']) return undefined;
  const loadAtStart = load();
  let server = await startOurServer(db, prepared);
  const fixtureList = await logIn(server.url, fixtures(connections));
  // PGlite's database is the server's own: the loads only hand on what they wrote.
  primeLoadsFrom(db === 'postgres' ? prepared.databaseUrl : undefined);
  // The hot task's writers: as many as the other scenarios' connections, each its own EDITOR.
  const hotList = scenarios.some((scenario) => HOT_SCENARIOS.includes(scenario)) ? await logIn(server.url, hotFixtures(connections)) : [];
  const fixturesOf = (scenario) => (HOT_SCENARIOS.includes(scenario) ? hotList : fixtureList);
  const floodList = floodEmails(connections).map((email) => ({ email }));
  if (warmup > 0) {
    // Every route once through the JIT before anything is measured, or the first scenario pays for it.
    say(`${db}: warming the server up with the mix for ${2 * warmup} s`);
    await runLoad({ url: server.url, scenario: 'mix', connections, duration: 2 * warmup, warmup: 0, fixtures: fixtureList });
  }

  const results = { hello: await baseline('hello', connections, fixtureList) };

  // The floor runs on PostgreSQL only (postgres.js), beside our server, idle while it is measured.
  const floors = {};
  if (db === 'postgres') {
    floors.bare = await startServer({
      name: 'floor (bare)',
      args: [join(root, 'bench/src/floors.mjs'), 'bare'],
      env: { DATABASE_URL: prepared.databaseUrl, JWT_SECRET: jwtSecret },
      port: port + 2,
      readyPath: '/readyz',
      logFile: join(resultsDir, `${stamp}-floor-bare.log`),
    });
    if (warmup > 0) for (const floor of Object.values(floors)) await runLoad({ url: floor.url, scenario: 'mix', connections, duration: warmup, warmup: 0, fixtures: fixtureList });
  }

  const rows = [];
  const lagRows = [];
  let rssMb;
  try {
    for (const [index, scenario] of scenarios.entries()) {
      if (scenario === 'flood') {
        const [reads, flood] = await Promise.all([
          measure(server, 'task', connections, fixtureList),
          measure(server, 'login', connections, floodList),
        ]);
        // Both loads hit one server at once: its CPU time cannot be split between them.
        rows.push({ ...reads, cpuUsPerRequest: undefined, scenario: 'flood', label: LABELS.flood, floodLogins: { rps: flood.rps, p99: flood.p99, errors: flood.errors } });
        if (flood.errors > 0) rows.push({ ...flood, scenario: 'login', label: 'POST /auth/login (the flood itself)' });
      } else if (scenario === 'login') {
        // bcrypt bounds logins to a few per second per core: 50 queued connections would see none
        // finish within a short run. A handful of connections measures its throughput and latency.
        rows.push({ ...(await measure(server, scenario, LOGIN_CONNECTIONS, fixtureList)), scenario });
      } else if (scenario === 'lag') {
        // The mix's load and the lag probe at once, on the service only; on PostgreSQL only (the
        // issue's measure; the probe has not been tried on PGlite).
        if (db !== 'postgres') continue;
        say(`lag: probing for ${duration} s under the mix (load ${load()})`);
        const [mix, lag] = await Promise.all([measure(server, 'mix', connections, fixtureList, 'mix (under the lag probe)'), measureLag({ url: server.url, duration: warmup + duration })]);
        say(`  live ${JSON.stringify(lag.live)}; notification ${JSON.stringify(lag.notification)}; webhook ${JSON.stringify(lag.webhook)}`);
        lagRows.push({ ...lag, name: `${db}, mix at ${Math.round(mix.rps)} req/s` });
      } else if (db === 'postgres' && FLOOR_SCENARIOS.includes(scenario)) {
        // Turn about: the service and its floor one after the other, in an order that alternates
        // from one scenario and round to the next, so neither always runs first on a machine that drifts.
        const sides = [
          ['service', server],
          ['bare', floors.bare],
        ];
        const measured = { service: [], bare: [] };
        for (let round = 0; round < rounds; round++) {
          for (let k = 0; k < sides.length; k++) {
            const [name, target] = sides[(index + round + k) % sides.length];
            measured[name].push(await measure(target, scenario, connections, fixturesOf(scenario), name === 'service' ? scenario : `${scenario} (${name} floor)`));
          }
        }
        const [service, bare] = ['service', 'bare'].map((name) => medianOf(measured[name]));
        rows.push({ ...service, scenario, label: LABELS[scenario], floors: { bare } });
      } else {
        rows.push({ ...(await measure(server, scenario, connections, fixturesOf(scenario))), scenario });
      }
    }
  } finally {
    rssMb = server.rssMb();
    await server.stop();
    for (const floor of Object.values(floors)) await floor.stop();
  }
  // A second hello at the end shows how much the machine's load drifted during the run.
  results.helloAfter = await baseline('hello', connections, fixtureList);
  const baselines = {
    results: { hello: results.hello, helloAfter: results.helloAfter },
    hello: (results.hello.rps + results.helloAfter.rps) / 2,
  };

  // Several instances on one PostgreSQL: the mix served by one server process and by N separate
  // ones (as on N hosts), turn about, the load split over N load generators in both cases.
  const instanceRows = [];
  const instanceCount = Number(options.instances);
  if (db === 'postgres' && instanceCount > 1 && scenarios.includes('mix')) {
    const many = [];
    try {
      for (let i = 0; i < instanceCount; i++) many.push(await startOurServer(db, prepared, {}, port + 10 + i, `-instance-${i}`));
      const single = many.slice(0, 1);
      const turns = { 1: [], [instanceCount]: [] };
      for (let round = 0; round < rounds; round++) {
        for (const servers of round % 2 === 0 ? [single, many] : [many, single]) {
          turns[servers.length].push(await measureInstances(servers, 'mix', connections, fixtureList, instanceCount));
        }
      }
      for (const [count, list] of Object.entries(turns)) instanceRows.push({ ...medianOf(list), scenario: 'mix', instances: Number(count) });
    } finally {
      for (const instance of many) await instance.stop();
    }
  }
  return { db, connections, rows, lagRows, baselines, rssMb, instanceRows, load: { atStart: loadAtStart, atEnd: load() } };
}

/** Statements the server at `url` sent to each database role so far (its /metrics). */
async function statementsByRole(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (role) => Number(new RegExp(`^tasklane_db_statements_total\\{role="${role}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { primary: read('primary'), replica: read('replica') };
}

/**
 * `--replicas N`: a primary of the bench's own and N streaming replicas (replicas.mjs), seeded like
 * the main database; one server process on the primary alone, one that also reads from the replicas
 * (DATABASE_REPLICA_URLS) and, with `--pgbouncer`, one that also reaches the primary through
 * PgBouncer in transaction mode (pgbouncer.mjs), measured turn about on the read page and on the
 * mix. What each request costs the primary, the replicas and PgBouncer is the CPU of their
 * processes (for a cluster: backends, WAL sending, receiving and replay) over the requests; the
 * statements' roles come from the server's own metric. Everything shares this machine's cores, so
 * the cost per request, not the requests per second, is what sizes a topology.
 */
async function benchReplicas(count) {
  const connections = 50;
  say(`replicas: making a primary and ${count} streaming replica(s) (load ${load()})`);
  const cluster = await startReplicatedCluster({ count, database: 'tasklane_bench', onStarting: (close) => cleanups.push(close) });
  await migrateAndSeed(cluster.primaryUrl);
  const bouncer = options.pgbouncer ? await startBouncer({ upstreamUrl: cluster.primaryUrl, port: port + 30, serverConnections: 20 }) : undefined;
  if (bouncer) cleanups.push(() => bouncer.stop());
  const direct = { env: { DATABASE_URL: cluster.primaryUrl } };
  const reading = { DATABASE_REPLICA_URLS: cluster.replicaUrls.join(',') };
  const sides = [
    { name: 'primary alone', replicas: 0, server: await startOurServer('postgres', direct, {}, port + 20, '-primary-alone') },
    { name: `${count} replica(s)`, replicas: count, server: await startOurServer('postgres', direct, reading, port + 21, '-replicas') },
  ];
  if (bouncer) {
    const pooled = { DATABASE_URL: bouncer.through(cluster.primaryUrl), DATABASE_POOLER: 'transaction', DATABASE_LISTEN_URL: cluster.primaryUrl, ...reading };
    sides.push({ name: `${count} replica(s), PgBouncer`, replicas: count, pooler: 'PgBouncer', server: await startOurServer('postgres', direct, pooled, port + 22, '-pgbouncer') });
  }
  const rows = [];
  try {
    const fixtureList = await logIn(sides[0].server.url, fixtures(connections));
    primeLoadsFrom(cluster.primaryUrl);
    await cluster.caughtUp();
    if (warmup > 0) for (const side of sides) await runLoad({ url: side.server.url, scenario: 'mix', connections, duration: warmup, warmup: 0, fixtures: fixtureList });
    const cpu = () => ({ ...cluster.cpuSeconds(), bouncer: bouncer?.cpuSeconds() ?? 0 });
    for (const [index, scenario] of ['page', 'mix'].entries()) {
      const measured = sides.map(() => []);
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < sides.length; k++) {
          const at = (index + round + k) % sides.length;
          const { name, server } = sides[at];
          say(`${scenario}, ${name}: ${connections} connections, ${duration} s (load ${load()})`);
          const [serverBefore, before, statementsBefore] = [server.cpuSeconds(), cpu(), await statementsByRole(server.url)];
          const result = await runLoad({ url: server.url, scenario, connections, duration, warmup, fixtures: fixtureList });
          const [serverAfter, after, statementsAfter] = [server.cpuSeconds(), cpu(), await statementsByRole(server.url)];
          const handled = result.requests + result.warmupRequests;
          const perRequest = (seconds) => (seconds * 1e6) / handled;
          const onReplicas = statementsAfter.replica - statementsBefore.replica;
          const row = {
            ...result,
            cpuUsPerRequest: perRequest(serverAfter - serverBefore),
            primaryCpuUsPerRequest: perRequest(after.primary - before.primary),
            replicaCpuUsPerRequest: perRequest(after.replicas - before.replicas),
            bouncerCpuUsPerRequest: perRequest(after.bouncer - before.bouncer),
            replicaShare: onReplicas / (onReplicas + statementsAfter.primary - statementsBefore.primary || 1),
          };
          say(
            `  ${Math.round(row.rps)} req/s, p99 ${row.p99} ms, errors ${row.errors}, server ${Math.round(row.cpuUsPerRequest)} µs/req, primary ${Math.round(row.primaryCpuUsPerRequest)}, replicas ${Math.round(row.replicaCpuUsPerRequest)}, PgBouncer ${Math.round(row.bouncerCpuUsPerRequest)} µs/req, ${(row.replicaShare * 100).toFixed(0)} % of statements on replicas`,
          );
          measured[at].push(row);
        }
      }
      sides.forEach((side, at) => {
        const list = measured[at];
        const combined = medianOf(list);
        for (const key of ['primaryCpuUsPerRequest', 'replicaCpuUsPerRequest', 'bouncerCpuUsPerRequest', 'replicaShare']) combined[key] = median(list.map((row) => row[key]));
        rows.push({ ...combined, scenario, replicas: side.replicas, pooler: side.pooler });
      });
    }
  } finally {
    for (const side of sides) await side.server.stop();
  }
  return rows;
}

LABELS.helloAfter = 'baseline: Fastify hello, again at the end';

const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version, loadAtStart: load() };
say(`machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb} GB, Node ${machine.node}; load average ${machine.loadAtStart}`);
const sections = [];
let replicaRows = [];
let failed = false;
try {
  for (const db of databases) {
    const section = await benchDatabase(db);
    if (section) sections.push(section);
  }
  if (Number(options.replicas) > 0 && !options['seed-only']) replicaRows = await benchReplicas(Number(options.replicas));
} finally {
  await stopAll();
  await monitor?.end();
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => say(`cleanup failed: ${error.message}`));
}
if (options['seed-only']) process.exit(0);

const markdown = [`Run ${stamp}: duration ${duration} s per scenario (after ${warmup} s warm-up), ${rounds} turns of each scenario and its floor (medians), ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}.`];
for (const section of sections) {
  const note = `load average ${section.load.atStart} at start, ${section.load.atEnd} at end; hello averaged over start and end`;
  markdown.push('', table({ ...section, note }));
  if (section.lagRows.length > 0) markdown.push('', lagTable(section.lagRows));
  if (section.instanceRows.length > 0) {
    markdown.push('', instancesTable(section.instanceRows), '', capacityTable(section));
  }
  const flood = section.rows.find((row) => row.scenario === 'flood');
  const read = section.rows.find((row) => row.scenario === 'task');
  if (flood && read) {
    markdown.push(`Read p99 alone ${read.p99} ms; beside a login flood (${Math.round(flood.floodLogins.rps)} logins/s) ${flood.p99} ms.`);
  }
  const errors = (row) => row.errors + (row.floors ? row.floors.bare.errors : 0);
  if (section.rows.some((row) => errors(row) > 0) || section.instanceRows.some((row) => row.errors > 0)) failed = true;
  // A probe whose event, notification or delivery never came within the wait is lost derived work.
  if (section.lagRows.some((row) => row.live.missing + row.notification.missing + row.webhook.missing > 0)) failed = true;
  section.verdicts = verdicts(section.db, section.rows, section.baselines, section.rssMb);
}
if (replicaRows.length > 0) {
  markdown.push('', replicasTable(replicaRows));
  if (replicaRows.some((row) => row.errors > 0)) failed = true;
}
const text = markdown.join('\n');
console.log(`\n${text}\n`);
writeFileSync(join(resultsDir, `${stamp}.md`), `${text}\n`);
// The one result file kept in git, quoted by docs/performance.md: every run of the main sections replaces it.
if (sections.length > 0) writeLatest(text);
const plotted = sections.find((section) => section.rows.some((row) => row.floors));
// Committed too, shown by docs/performance.md.
if (plotted) writeFileSync(join(root, 'bench/latest.svg'), plotSvg(plotted, `Run ${stamp}: PostgreSQL, ${plotted.connections} connections, one server process (load average ${plotted.load.atStart} at start)`));
writeFileSync(join(resultsDir, `${stamp}.json`), `${JSON.stringify({ stamp, duration, warmup, machine, loadAtEnd: load(), sections, replicaRows }, null, 2)}\n`);
say(`results: bench/results/${stamp}.{md,json}${sections.length > 0 ? ' and bench/results/latest.md' : ''}`);
if (failed) {
  say('FAILED: a scenario had errors (non-2xx responses count as errors), or a lag probe\'s event, notification or delivery never arrived');
  process.exitCode = 1;
}
