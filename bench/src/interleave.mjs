// Two server builds or configurations (A and B) measured turn about, scenario by scenario, on one
// kept database, with the bare floor (floors.mjs) as a third side of every scenario that has one.
// All servers run side by side, those not under load idle, so the machine's drift from one minute
// to the next falls on all alike, which separate runs of the suite cannot promise. The order of the
// sides rotates from round to round.
// Per scenario and side: req/s, p50/p99, server CPU µs per request (the process and its children)
// and PostgreSQL CPU µs per request (the backends connected to the kept database only); then B
// against A (req/s and CPU per request) and each against the bare floor (req/s). `lag` runs the
// mix with the derived-work probe (lag.mjs) on A and on B (no floor: a bare write derives nothing),
// after the other scenarios, with only the build under test up.
// Usage (a database seeded by `node bench/src/run.mjs --seed-only`, or kept by `npm run bench -- --db postgres --keep-db`):
//   node bench/src/interleave.mjs --reuse-db <name> [--a-server <main.mjs>] [--b-server <main.mjs>]
//     [--a "K=V,K=V"] [--b "K=V"] [--scenarios create,patch,hot,lag] [--rounds 3] [--duration 5] [--no-bare]
// Each server migrates the database when it starts (A first, then B): B's migrations must leave
// A able to run. Both builds serve one database at once: if B's after-commit processors pick up
// events that A's writes left (say, activity rows), B works for A's turns, and A's events may be
// processed twice. The `idle servers µs/req` column shows it: the CPU the servers not under load
// spent during a turn, per request of that turn, near 0 when they stay out of it.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { lagTable, measureLag, summarizeLag } from './lag.mjs';
import { backendCpuSeconds, benchServerEnv, postgresCpuByPid, primeLoadsFrom, runLoad, startServer, stopAll } from './processes.mjs';
import { FLOOR_SCENARIOS, LABELS } from './report.mjs';
import { HOT_SCENARIOS } from './scenarios.mjs';
import { fixtures, hotFixtures, logIn } from './seed.mjs';

const { values: options } = parseArgs({
  options: {
    'reuse-db': { type: 'string' },
    a: { type: 'string', default: '' },
    b: { type: 'string', default: '' },
    'a-server': { type: 'string' },
    'b-server': { type: 'string' },
    scenarios: { type: 'string', default: 'task,project,trpc,page,filtered,create,patch,title,comment,hot,mix,lag' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    'no-bare': { type: 'boolean', default: false },
    'pg-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    port: { type: 'string', default: process.env.BENCH_PORT ?? '4250' },
  },
});
if (!options['reuse-db']) throw new Error('--reuse-db <name>: a database seeded by node bench/src/run.mjs --seed-only');

const root = new URL('../../', import.meta.url).pathname;
const resultsDir = join(root, 'bench/results');
mkdirSync(resultsDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const databaseName = options['reuse-db'];
const databaseUrl = new URL(options['pg-url']);
databaseUrl.pathname = `/${databaseName}`;
const jwtSecret = randomBytes(32).toString('base64url');
const connections = Number(options.connections);
const duration = Number(options.duration);
const warmup = Number(options.warmup);
const say = (message) => console.error(`[interleave ${new Date().toISOString().slice(11, 19)}] ${message}`);
/** "K=V,K=V" → { K: V, … } */
const envOf = (text) =>
  Object.fromEntries(
    text
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1).trim()]),
  );

const sides = ['a', 'b'].map((name, index) => ({
  name: name.toUpperCase(),
  description: [options[`${name}-server`] ?? 'apps/server/dist/main.mjs', options[name]].filter(Boolean).join(' with '),
  main: options[`${name}-server`] ?? join(root, 'apps/server/dist/main.mjs'),
  env: envOf(options[name]),
  port: Number(options.port) + index,
}));
const floorSide = { name: 'bare', description: 'bench/src/floors.mjs bare', port: Number(options.port) + 2 };

const monitor = postgres(options['pg-url'], { max: 1, onnotice: () => {} });
/** The PostgreSQL backends connected to the kept database (other databases' work does not count). */
const backends = async () => (await monitor`select pid from pg_stat_activity where datname = ${databaseName}`).map((row) => row.pid);

/** Every server started (A, B and the floor), for the CPU the idle ones spend during a turn. */
const running = () => [...sides, floorSide].filter((side) => side.server);

async function measure(side, scenario, fixtureList) {
  const others = running().filter((other) => other !== side);
  const othersBefore = others.map((other) => other.server.cpuSeconds());
  const cpuBefore = side.server.cpuSeconds();
  const databaseBefore = postgresCpuByPid();
  const result = await runLoad({ url: side.server.url, scenario, connections: fixtureList.length, duration, warmup, fixtures: fixtureList });
  const handled = result.requests + result.warmupRequests;
  return {
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    serverUs: ((side.server.cpuSeconds() - cpuBefore) * 1e6) / handled,
    databaseUs: (backendCpuSeconds(databaseBefore, postgresCpuByPid(), await backends()) * 1e6) / handled,
    // What the servers not under load spent meanwhile: near 0, unless one does work for the other's
    // writes (a dispatcher that picks up events written by the other build would show here).
    othersUs: (others.reduce((sum, other, i) => sum + other.server.cpuSeconds() - othersBefore[i], 0) * 1e6) / handled,
    errors: result.errors,
    errorSamples: result.errorSamples,
  };
}

const median = (values) => {
  const sorted = values.filter((value) => value !== undefined).sort((x, y) => x - y);
  if (sorted.length === 0) return undefined;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const n = (value) => (value === undefined ? '–' : Math.round(value).toLocaleString('en-US'));
const pct = (value) => (value === undefined || !Number.isFinite(value) ? '–' : `${(value * 100).toFixed(1)} %`);

async function startSide(side) {
  side.server = await startServer({
    name: `server ${side.name}`,
    args: [side.main],
    env: benchServerEnv(jwtSecret, { DATABASE_URL: databaseUrl.toString(), ...side.env }),
    port: side.port,
    readyPath: '/readyz',
    logFile: join(resultsDir, `${stamp}-interleave-${side.name}.log`),
  });
}

let failed = false;
try {
  for (const side of sides) {
    await startSide(side);
  }
  // The lag goes last, in a phase of its own (below).
  const listed = options.scenarios.split(',');
  const scenarios = [...listed.filter((scenario) => scenario !== 'lag'), ...listed.filter((scenario) => scenario === 'lag')];
  const withFloor = (scenario) => !options['no-bare'] && FLOOR_SCENARIOS.includes(scenario) && scenario !== 'mix';
  if (scenarios.some(withFloor)) {
    floorSide.server = await startServer({
      name: 'floor (bare)',
      args: [join(root, 'bench/src/floors.mjs'), 'bare'],
      env: { DATABASE_URL: databaseUrl.toString(), JWT_SECRET: jwtSecret },
      port: floorSide.port,
      readyPath: '/readyz',
      logFile: join(resultsDir, `${stamp}-interleave-floor.log`),
    });
  }
  // All servers share the database and the secret, so a token from one is good on the others.
  const fixtureList = await logIn(sides[0].server.url, fixtures(connections));
  primeLoadsFrom(databaseUrl.toString());
  const hotList = scenarios.some((scenario) => HOT_SCENARIOS.includes(scenario)) ? await logIn(sides[0].server.url, hotFixtures(connections)) : [];
  const fixturesOf = (scenario) => (HOT_SCENARIOS.includes(scenario) ? hotList : fixtureList);
  say('warming up: the mix for 3 s on each side');
  for (const side of [...sides, ...(floorSide.server ? [floorSide] : [])]) {
    await runLoad({ url: side.server.url, scenario: 'mix', connections, duration: 3, warmup: 0, fixtures: fixtureList });
  }

  const samples = Object.fromEntries(scenarios.map((scenario) => [scenario, { A: [], B: [], bare: [] }]));
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const [index, scenario] of scenarios.entries()) {
      if (scenario === 'lag') continue;
      const present = withFloor(scenario) ? [...sides, floorSide] : sides;
      // The order rotates with the round and the scenario: no side always runs first.
      const order = present.map((_, k) => present[(round + index + k) % present.length]);
      for (const side of order) {
        const sample = await measure(side, scenario, fixturesOf(scenario));
        samples[scenario][side.name].push(sample);
        if (sample.errors > 0) failed = true;
        say(
          `round ${round + 1} ${scenario} ${side.name}: ${Math.round(sample.rps)} req/s, p50 ${sample.p50} ms, p99 ${sample.p99} ms, server ${Math.round(sample.serverUs)} µs, PostgreSQL ${Math.round(sample.databaseUs)} µs, idle servers ${Math.round(sample.othersUs)} µs, errors ${sample.errors}`,
        );
        for (const error of sample.errorSamples) say(`  error sample: ${error.status} ${error.body}`);
      }
    }
  }

  // The lag: with one build up at a time, since every instance on a database sends its webhook
  // deliveries (and a new dispatcher might take up the other build's events), so a delivery of B's
  // write could be A's work. The other build is stopped for the turn and started again (and warmed
  // up) for its own; the order rotates, so a build runs two turns in a row without a restart.
  if (scenarios.includes('lag')) {
    for (let round = 0; round < Number(options.rounds); round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        for (const other of sides) {
          if (other !== side && other.server) {
            await other.server.stop();
            other.server = undefined;
          }
        }
        if (!side.server) {
          await startSide(side);
          await runLoad({ url: side.server.url, scenario: 'mix', connections, duration: 3, warmup: 0, fixtures: fixtureList });
        }
        const [mix, lag] = await Promise.all([measure(side, 'mix', fixtureList), measureLag({ url: side.server.url, duration: warmup + duration })]);
        samples.lag[side.name].push({ ...mix, lag: lag.raw });
        say(
          `round ${round + 1} lag ${side.name}: mix ${Math.round(mix.rps)} req/s; live p50 ${lag.live.fromResponse.p50} ms, notification p50 ${lag.notification.fromResponse.p50} ms, webhook p50 ${lag.webhook.fromResponse.p50} ms (from the response); missing ${lag.live.missing}/${lag.notification.missing}/${lag.webhook.missing}`,
        );
        if (lag.live.missing + lag.notification.missing + lag.webhook.missing > 0) failed = true;
      }
    }
  }

  const of = (list, key) => median(list.map((sample) => sample[key]));
  const lines = [
    `Interleaved run ${stamp} on ${databaseName}: ${options.rounds} rounds, ${duration} s per turn (after ${warmup} s warm-up), ${connections} connections; medians of the rounds.`,
    ...sides.map((side) => `- ${side.name}: ${side.description}`),
    ...(floorSide.server ? [`- bare: the bare floor (${floorSide.description})`] : []),
    '',
    '| scenario | side | req/s | p50 ms | p99 ms | server µs/req | PostgreSQL µs/req | idle servers µs/req | × bare req/s | errors |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const comparison = [
    '',
    'B against A (medians; B wins: rounds in which B served more req/s than A):',
    '',
    '| scenario | B/A req/s | B/A server µs/req | B/A PostgreSQL µs/req | B/A server + PostgreSQL µs/req | A × bare | B × bare | B wins |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of scenarios) {
    const bySide = samples[scenario];
    const label = scenario === 'lag' ? 'mix under the lag probe' : (LABELS[scenario] ?? scenario);
    const bare = bySide.bare.length > 0 ? of(bySide.bare, 'rps') : undefined;
    for (const name of ['A', 'B', 'bare']) {
      const list = bySide[name];
      if (list.length === 0) continue;
      lines.push(
        `| ${label} | ${name} | ${n(of(list, 'rps'))} | ${of(list, 'p50')} | ${of(list, 'p99')} | ${n(of(list, 'serverUs'))} | ${n(of(list, 'databaseUs'))} | ${n(of(list, 'othersUs'))} | ${name === 'bare' || bare === undefined ? '' : pct(of(list, 'rps') / bare)} | ${list.reduce((sum, sample) => sum + sample.errors, 0)} |`,
      );
    }
    const [a, b] = [bySide.A, bySide.B];
    const bWins = b.filter((sample, round) => sample.rps > a[round].rps).length;
    const total = (list) => median(list.map((sample) => sample.serverUs + sample.databaseUs));
    comparison.push(
      `| ${label} | ${pct(of(b, 'rps') / of(a, 'rps'))} | ${pct(of(b, 'serverUs') / of(a, 'serverUs'))} | ${pct(of(b, 'databaseUs') / of(a, 'databaseUs'))} | ${pct(total(b) / total(a))} | ${bare === undefined ? '–' : pct(of(a, 'rps') / bare)} | ${bare === undefined ? '–' : pct(of(b, 'rps') / bare)} | ${bWins} of ${b.length} |`,
    );
  }
  lines.push(...comparison);
  if (samples.lag) {
    lines.push('', lagTable(sides.map((side) => ({ ...summarizeLag(samples.lag[side.name].map((sample) => sample.lag)), name: side.name }))));
  }
  const text = lines.join('\n');
  console.log(`\n${text}\n`);
  writeFileSync(join(resultsDir, `${stamp}-interleave.md`), `${text}\n`);
  writeFileSync(join(resultsDir, `${stamp}-interleave.json`), `${JSON.stringify({ stamp, options, samples }, null, 2)}\n`);
  say(`results: bench/results/${stamp}-interleave.{md,json}`);
} finally {
  await stopAll();
  await monitor.end();
}
if (failed) {
  say('FAILED: errors (non-2xx answers), or a lag probe\'s event, notification or delivery never arrived');
  process.exitCode = 1;
}
