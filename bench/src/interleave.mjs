// Two server configurations measured turn about, scenario by scenario, on one kept database. Both
// servers run side by side, the one not under load idle, so the machine's drift from one minute to
// the next falls on both alike, which separate runs of the suite cannot promise.
// PostgreSQL's CPU is that of every postgres process on the machine: run it where no other database
// work is going on.
// Usage (a database kept by `npm run bench -- --db postgres --keep-db`):
//   node bench/src/interleave.mjs --reuse-db <name> --a "DATABASE_POOL_SIZE=3" --b "DATABASE_POOL_SIZE=10"
//     [--a-server <main.mjs>] [--b-server <main.mjs>] [--scenarios mix,page,patch] [--rounds 4] [--duration 5]
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchServerEnv, postgresCpuSeconds, runLoad, startServer, stopAll } from './processes.mjs';
import { fixtures, logIn } from './seed.mjs';

const { values: options } = parseArgs({
  options: {
    'reuse-db': { type: 'string' },
    a: { type: 'string', default: '' },
    b: { type: 'string', default: '' },
    'a-server': { type: 'string' },
    'b-server': { type: 'string' },
    scenarios: { type: 'string', default: 'mix,page,patch' },
    rounds: { type: 'string', default: '4' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    'pg-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    port: { type: 'string', default: process.env.BENCH_PORT ?? '4250' },
  },
});
if (!options['reuse-db']) throw new Error('--reuse-db <name>: a database kept by npm run bench -- --db postgres --keep-db');

const root = new URL('../../', import.meta.url).pathname;
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const databaseUrl = new URL(options['pg-url']);
databaseUrl.pathname = `/${options['reuse-db']}`;
const jwtSecret = randomBytes(32).toString('base64url');
const connections = Number(options.connections);
const duration = Number(options.duration);
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

try {
  for (const side of sides) {
    side.server = await startServer({
      name: `server ${side.name}`,
      args: [side.main],
      env: benchServerEnv(jwtSecret, { DATABASE_URL: databaseUrl.toString(), ...side.env }),
      port: side.port,
      readyPath: '/readyz',
      logFile: join(root, `bench/results/${stamp}-interleave-${side.name}.log`),
    });
  }
  // Both servers share the database and the secret, so a token from one is good on the other.
  const fixtureList = await logIn(sides[0].server.url, fixtures(connections));
  for (const side of sides) await runLoad({ url: side.server.url, scenario: 'mix', connections, duration: 3, warmup: 0, fixtures: fixtureList });

  const scenarios = options.scenarios.split(',');
  const samples = Object.fromEntries(scenarios.map((scenario) => [scenario, { A: [], B: [] }]));
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const scenario of scenarios) {
      // A first in even rounds, B first in odd ones: neither always runs on the warmer machine.
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const cpuBefore = side.server.cpuSeconds();
        const databaseBefore = postgresCpuSeconds();
        const result = await runLoad({ url: side.server.url, scenario, connections, duration, warmup: 1, fixtures: fixtureList });
        const handled = result.requests + result.warmupRequests;
        const sample = {
          rps: result.rps,
          serverUs: ((side.server.cpuSeconds() - cpuBefore) * 1e6) / handled,
          databaseUs: ((postgresCpuSeconds() - databaseBefore) * 1e6) / handled,
          errors: result.errors,
        };
        samples[scenario][side.name].push(sample);
        say(`round ${round + 1} ${scenario} ${side.name}: ${Math.round(sample.rps)} req/s, server ${Math.round(sample.serverUs)} µs, PostgreSQL ${Math.round(sample.databaseUs)} µs, errors ${sample.errors}`);
      }
    }
  }

  const median = (values) => {
    const sorted = [...values].sort((x, y) => x - y);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  };
  const perRound = (list, key) => list.map((sample) => Math.round(sample[key])).join(' / ');
  const lines = [
    `Interleaved run ${stamp} on ${options['reuse-db']}: ${options.rounds} rounds, ${duration} s per turn (after 1 s warm-up), ${connections} connections.`,
    ...sides.map((side) => `- ${side.name}: ${side.description}`),
    '',
    'Per round, in round order; B wins: the rounds in which B served more requests per second than A.',
    '',
    '| scenario | side | req/s | server µs/req | PostgreSQL µs/req | median req/s | median server µs | median PostgreSQL µs | errors | B wins |',
    '|---|---|---|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of scenarios) {
    const bWins = samples[scenario].B.filter((sample, round) => sample.rps > samples[scenario].A[round].rps).length;
    for (const side of sides) {
      const list = samples[scenario][side.name];
      lines.push(
        `| ${scenario} | ${side.name} | ${perRound(list, 'rps')} | ${perRound(list, 'serverUs')} | ${perRound(list, 'databaseUs')} | ${Math.round(median(list.map((sample) => sample.rps)))} | ${Math.round(median(list.map((sample) => sample.serverUs)))} | ${Math.round(median(list.map((sample) => sample.databaseUs)))} | ${list.reduce((sum, sample) => sum + sample.errors, 0)} | ${side.name === 'B' ? `${bWins} of ${list.length}` : ''} |`,
      );
    }
  }
  const text = lines.join('\n');
  console.log(`\n${text}\n`);
  writeFileSync(join(root, `bench/results/${stamp}-interleave.md`), `${text}\n`);
  say(`results: bench/results/${stamp}-interleave.md`);
} finally {
  await stopAll();
}
