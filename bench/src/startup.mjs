// What a start costs (issue 40): the real server started on PGlite with an empty DATA_DIR (a first
// start: the database made, every migration run), then again on the same directory (a restart), and
// the same two on PostgreSQL (a database of its own, dropped after). Each is timed from the process's
// spawn to the first 2xx of /readyz, with its resident memory then (VmRSS) and its peak (VmHWM), and
// again after `--settle` seconds idle. Floors in the same run: Node itself (an empty process), and
// PGlite alone (`PGlite.create` with the server's extension and `select 1`, in an empty directory and
// in the one it made), so what is PGlite's own cost and what is ours shows side by side. Prints a
// table (also bench/results/startup-<time>.md).
//
//   npx -y pnpm@12.21.0 turbo run build --filter=@tasklane/server && node bench/src/startup.mjs
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import postgres from 'postgres';

const root = new URL('../..', import.meta.url).pathname;
const serverMain = join(root, 'apps/server/dist/main.mjs');
const { values: options } = parseArgs({
  options: {
    'pg-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    port: { type: 'string', default: '4171' },
    settle: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
  },
});
const port = Number(options.port);
const runs = Number(options.runs);
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const statusOf = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Spawns `args`; `ready` resolves when the process is ready. Returns seconds to ready and MB of memory. */
async function measure(args, env, ready, spawnOptions = {}) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...spawnOptions });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await Promise.race([ready(() => output), exited.then((code) => Promise.reject(new Error(`exited (${code}) before ready:\n${output}`)))]);
    const seconds = (performance.now() - started) / 1000;
    const rss = statusOf(child.pid, 'VmRSS');
    const peak = statusOf(child.pid, 'VmHWM');
    await sleep(Number(options.settle) * 1000);
    return { seconds, rss, peak, settled: statusOf(child.pid, 'VmRSS') };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const untilHttpReady = async () => {
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
};
const untilPrinted = (word) => async (output) => {
  while (!output().includes(word)) await sleep(10);
};

const serverEnv = (extra) => ({ HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', JWT_SECRET: 'startup-bench-secret-that-is-long-enough', ...extra });
const pgliteFloor = `
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const db = await PGlite.create({ dataDir: process.argv[1], extensions: { pg_trgm } });
  await db.query('select 1');
  console.log('ready');
  setInterval(() => {}, 1000);`;

async function pgDatabase(name) {
  const admin = postgres(options['pg-url'], { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name}`);
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(options['pg-url']);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = postgres(options['pg-url'], { max: 1, onnotice: () => {} });
      await again.unsafe(`drop database if exists ${name} with (force)`);
      await again.end();
    },
  };
}

const rows = [];
const record = (what, kind, result) => rows.push({ what, kind, ...result });
const work = mkdtempSync(join(tmpdir(), 'tasklane-startup-'));
try {
  for (let run = 0; run < runs; run += 1) {
    record('Node alone (floor)', 'empty process', await measure(['-e', "console.log('ready'); setInterval(() => {}, 1000)"], {}, untilPrinted('ready')));

    const floorDir = join(work, `floor-${run}`);
    const floorArgs = ['--input-type=module', '-e', pgliteFloor, floorDir];
    const inBench = { cwd: join(root, 'bench') };
    record('PGlite alone (floor)', 'first start', await measure(floorArgs, {}, untilPrinted('ready'), inBench));
    record('PGlite alone (floor)', 'restart', await measure(floorArgs, {}, untilPrinted('ready'), inBench));

    const dataDir = join(work, `data-${run}`);
    mkdirSync(dataDir);
    record('server on PGlite', 'first start', await measure([serverMain], serverEnv({ DATA_DIR: dataDir }), untilHttpReady));
    record('server on PGlite', 'restart', await measure([serverMain], serverEnv({ DATA_DIR: dataDir }), untilHttpReady));

    const database = await pgDatabase(`tasklane_startup_${process.pid}_${run}`);
    try {
      const env = serverEnv({ DATA_DIR: join(work, `pg-files-${run}`), DATABASE_URL: database.url });
      record('server on PostgreSQL', 'first start', await measure([serverMain], env, untilHttpReady));
      record('server on PostgreSQL', 'restart', await measure([serverMain], env, untilHttpReady));
    } finally {
      await database.drop();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

// The median of the runs per line: a start on a shared machine varies by a few hundred ms.
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const groups = new Map();
for (const row of rows) {
  const key = `${row.what}|${row.kind}`;
  groups.set(key, [...(groups.get(key) ?? []), row]);
}
const lines = [
  `Start time and memory, median of ${runs} runs (${stamp}); memory in MB, settled after ${options.settle} s idle.`,
  '',
  '| process | start | ready in | RSS at ready | peak RSS | RSS settled |',
  '|---|---|---:|---:|---:|---:|',
  ...[...groups.values()].map((group) => {
    const [first] = group;
    const of = (field) => median(group.map((row) => row[field]));
    return `| ${first.what} | ${first.kind} | ${of('seconds').toFixed(2)} s | ${of('rss').toFixed(0)} | ${of('peak').toFixed(0)} | ${of('settled').toFixed(0)} |`;
  }),
];
console.log(lines.join('\n'));
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, `bench/results/startup-${stamp}.md`), `${lines.join('\n')}\n`);
