// Instructions the server executes per request, counted by valgrind's callgrind: unlike time or CPU
// seconds, the count repeats from run to run whatever else the machine is doing, so two builds can
// be compared by a few percent on a shared machine. It leaves out the kernel's work (the sockets)
// and the cost of cache misses, so it complements the turn-about runs rather than replacing them.
// It counts all the process does while counting is on, its timers' work and its GC too, so a count
// still moves from one run to the next: on a first page of 50 tasks, windows of 300 requests were
// 14 % apart and windows of 2 500 agreed with the turn-about runs; the tRPC read's ratio between
// two builds came out +8 % in one run and -2 % in the next. Compare builds within one run, repeat.
// Each build is started under callgrind with counting off, warmed up, counted over `--requests`
// requests of each scenario (8 in flight), and stopped.
// Usage (a database kept by `npm run bench -- --db postgres --keep-db`):
//   node bench/src/instructions.mjs --reuse-db <name> [--scenarios page,task] [--requests 3000] <main.mjs> <main.mjs> …
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchServerEnv } from './processes.mjs';
import { primeWritesFrom, sendRequests } from './scenarios.mjs';
import { fixtures, logIn } from './seed.mjs';

const { values: options, positionals: mains } = parseArgs({
  allowPositionals: true,
  options: {
    'reuse-db': { type: 'string' },
    scenarios: { type: 'string', default: 'page' },
    requests: { type: 'string', default: '3000' },
    warmup: { type: 'string', default: '2000' },
    'pg-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    port: { type: 'string', default: process.env.BENCH_PORT ?? '4300' },
  },
});
if (!options['reuse-db'] || mains.length < 1) throw new Error('usage: instructions.mjs --reuse-db <name> <main.mjs> …');
const databaseUrl = new URL(options['pg-url']);
databaseUrl.pathname = `/${options['reuse-db']}`;
const say = (message) => console.error(`[instructions ${new Date().toISOString().slice(11, 19)}] ${message}`);

// valgrind names its control pipe after $HOST, which the server's environment sets (HOST). Its
// pipes and dumps go to a folder of this run's (`--vgdb-prefix`), removed at the end: a server
// killed under valgrind leaves its pipes behind.
const control = (prefix, pid, ...args) =>
  execFileSync('callgrind_control', [`--vgdb-prefix=${prefix}`, ...args, String(pid)], { env: { ...process.env, HOST: '127.0.0.1' } });

/** The instruction total of the dump callgrind wrote to `file`. */
const totalOf = (file) => Number(/^totals: (\d+)/m.exec(readFileSync(file, 'utf8'))?.[1] ?? Number.NaN);

const scenarios = options.scenarios.split(',');
const results = [];
for (const [index, main] of mains.entries()) {
  const port = Number(options.port) + index;
  const folder = mkdtempSync(join(tmpdir(), 'tasklane-callgrind-'));
  const out = join(folder, 'callgrind.out');
  const prefix = join(folder, 'vgdb');
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--vgdb-prefix=${prefix}`, `--callgrind-out-file=${out}`, process.execPath, main],
    { env: { ...process.env, ...benchServerEnv(randomBytes(32).toString('base64url'), { DATABASE_URL: databaseUrl.toString() }), PORT: String(port) }, stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let waited = 0; ; waited += 500) {
      if (waited > 600_000) throw new Error(`${main} did not become ready`);
      if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const fixtureList = await logIn(url, fixtures(8));
    await primeWritesFrom(databaseUrl.toString(), fixtureList);
    const row = { main };
    for (const scenario of scenarios) {
      await sendRequests(url, fixtureList, scenario, Number(options.warmup));
      control(prefix, child.pid, '--zero');
      control(prefix, child.pid, '-i', 'on');
      await sendRequests(url, fixtureList, scenario, Number(options.requests));
      control(prefix, child.pid, '-i', 'off');
      control(prefix, child.pid, '--dump');
      const dumps = execFileSync('sh', ['-c', `ls -t ${out}*`], { encoding: 'utf8' }).trim().split('\n');
      row[scenario] = totalOf(dumps[0]) / Number(options.requests);
      say(`${main} ${scenario}: ${Math.round(row[scenario])} instructions per request`);
    }
    results.push(row);
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode === null && child.signalCode === null ? child.once('exit', resolve) : resolve()));
    rmSync(folder, { recursive: true, force: true });
  }
}
console.log('\nInstructions per request (callgrind), each build against the first:');
for (const row of results) {
  console.log(`- ${row.main}: ${scenarios.map((s) => `${s} ${Math.round(row[s])} (${(row[s] / results[0][s]).toFixed(3)})`).join(', ')}`);
}
