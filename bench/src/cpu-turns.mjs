// The server's CPU per request of two or more builds, each build's figure divided by the first's.
// Throughput under the bench's load swings by more than the few percent a change is worth on a
// shared machine; CPU per request moves less. All builds run at once on one kept database and take
// turns in chunks of requests (8 in flight), the order rotating every chunk, so drift falls on all
// alike; a build's figure is the median of its per-chunk ratios to the first. Servers also differ
// by a few percent from one start to the next, so this is repeated with fresh servers (`--sets`),
// started in rotating order, and the median over the sets is reported.
// Usage (a database kept by `npm run bench -- --db postgres --keep-db`):
//   node bench/src/cpu-turns.mjs --reuse-db <name> [--scenarios page,task] [--chunks 10] [--sets 5] <main.mjs> <main.mjs> …
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { benchServerEnv, startServer, stopAll } from './processes.mjs';
import { primeWritesFrom, sendRequests } from './scenarios.mjs';
import { fixtures, logIn } from './seed.mjs';

const { values: options, positionals: mains } = parseArgs({
  allowPositionals: true,
  options: {
    'reuse-db': { type: 'string' },
    scenarios: { type: 'string', default: 'page' },
    chunks: { type: 'string', default: '10' },
    sets: { type: 'string', default: '5' },
    'chunk-size': { type: 'string', default: '300' },
    'pg-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    port: { type: 'string', default: process.env.BENCH_PORT ?? '4300' },
  },
});
if (!options['reuse-db'] || mains.length < 2) throw new Error('usage: cpu-turns.mjs --reuse-db <name> <main.mjs> <main.mjs> …');
const databaseUrl = new URL(options['pg-url']);
databaseUrl.pathname = `/${options['reuse-db']}`;
const jwtSecret = randomBytes(32).toString('base64url');
const chunkSize = Number(options['chunk-size']);
const median = (values) => [...values].sort((x, y) => x - y)[values.length >> 1];
const say = (message) => console.error(`[cpu-turns ${new Date().toISOString().slice(11, 19)}] ${message}`);

/** `count` requests, 8 in flight: the server's CPU seconds for them. */
async function chunk(server, fixtureList, scenario, count) {
  const before = server.cpuSeconds();
  await sendRequests(server.url, fixtureList, scenario, count);
  return server.cpuSeconds() - before;
}

const scenarios = options.scenarios.split(',');
const bySet = Object.fromEntries(scenarios.map((scenario) => [scenario, mains.map(() => [])]));
try {
  for (let set = 0; set < Number(options.sets); set++) {
    const servers = [];
    const startOrder = mains.map((_, i) => (i + set) % mains.length);
    for (const i of startOrder) {
      servers[i] = await startServer({
        name: `build ${i}`,
        args: [mains[i]],
        env: benchServerEnv(jwtSecret, { DATABASE_URL: databaseUrl.toString() }),
        port: Number(options.port) + i,
        readyPath: '/readyz',
        logFile: `/tmp/cpu-turns-${i}.log`,
      });
    }
    const fixtureList = await logIn(servers[startOrder[0]].url, fixtures(8));
    await primeWritesFrom(databaseUrl.toString(), fixtureList);
    for (const scenario of scenarios) {
      for (const server of servers) await chunk(server, fixtureList, scenario, 5 * chunkSize);
      const ratios = mains.map(() => []);
      for (let c = 0; c < Number(options.chunks); c++) {
        const seconds = [];
        for (let j = 0; j < mains.length; j++) {
          const i = (j + c) % mains.length;
          seconds[i] = await chunk(servers[i], fixtureList, scenario, chunkSize);
        }
        seconds.forEach((value, i) => ratios[i].push(value / seconds[0]));
      }
      ratios.forEach((list, i) => bySet[scenario][i].push(median(list)));
      say(`set ${set + 1} ${scenario}: ${ratios.map((list) => median(list).toFixed(3)).join(' ')}`);
    }
    await stopAll();
  }
} finally {
  await stopAll();
}
console.log(`\nServer CPU per request against build 0 (median over ${options.sets} sets; each set's figure in brackets):`);
mains.forEach((main, i) => console.log(`- ${i}: ${main}`));
for (const scenario of scenarios) {
  const cells = bySet[scenario].map((list, i) => `${i}: ${median(list).toFixed(3)} [${[...list].sort((x, y) => x - y).map((x) => x.toFixed(2)).join(' ')}]`);
  console.log(`${scenario}: ${cells.join('; ')}`);
}
