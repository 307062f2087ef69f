// Child processes of the benchmark: servers (ours and the baselines) and load generators.
import { spawn } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const here = new URL('.', import.meta.url).pathname;
const live = new Set();

/** Stops every server still running (after a failure part-way through a run). */
export const stopAll = () => Promise.all([...live].map(stopProcess));

/**
 * The environment our server runs with under load, besides `extra`. The login scenarios send
 * hundreds of logins a second from one IP, so the per-IP limit is lifted here only; the per-token
 * limit stays on (its cost is part of every request) but never refuses a load run.
 */
export const benchServerEnv = (jwtSecret, extra) => ({
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  JWT_SECRET: jwtSecret,
  AUTH_RATE_LIMIT: '1000000',
  TOKEN_RATE_LIMIT: '1000000000',
  // The lag scenario's webhook receiver listens on 127.0.0.1.
  WEBHOOK_ALLOW_PRIVATE: 'true',
  ...extra,
});

/** Starts a server process, its output going to `logFile`; resolves once `readyPath` answers 2xx. */
export async function startServer({ name, args, env, port, readyPath, logFile }) {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let exited = null;
  live.add(child);
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    live.delete(child);
  });
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${name} exited during start (${JSON.stringify(exited)}); see ${logFile}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}${readyPath}`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (Date.now() >= deadline) throw new Error(`${name} did not become ready; see ${logFile}`);
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    /** Resident memory of the process and its descendants (cluster workers), in MB. */
    rssMb: () => [child.pid, ...descendantsOf(child.pid)].reduce((sum, pid) => sum + rssKb(pid), 0) / 1024,
    processCount: () => 1 + descendantsOf(child.pid).length,
    /** CPU time used so far by the process and its descendants, in seconds. */
    cpuSeconds: () => treeCpuSeconds(child.pid),
    stop: () => stopProcess(child),
  };
}

export function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function rssKb(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

const CLOCK_TICKS = 100;

/**
 * CPU seconds of every PostgreSQL process on this machine (the server's backends live as long as its
 * pool's connections, so a before/after difference is the database's work for a scenario).
 */
export function postgresCpuSeconds() {
  let total = 0;
  for (const seconds of postgresCpuByPid().values()) total += seconds;
  return total;
}

/** CPU seconds of each PostgreSQL process on this machine, by process id. */
export function postgresCpuByPid() {
  const byPid = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') byPid.set(Number(entry), cpuSecondsOf(Number(entry)));
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}

/**
 * The CPU seconds that the backends `pids` (those of one database) used between two
 * postgresCpuByPid() snapshots: the database's work for a scenario, without that of other
 * databases on the same PostgreSQL (a shared machine's other tests).
 */
export const backendCpuSeconds = (before, after, pids) => pids.reduce((sum, pid) => sum + (after.get(pid) ?? 0) - (before.get(pid) ?? 0), 0);

/** Busy and total CPU seconds of the whole machine, from /proc/stat (all cores). */
export function machineCpuSeconds() {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  // idle and iowait are the 4th and 5th fields.
  return { busy: (total - ticks[3] - ticks[4]) / CLOCK_TICKS, total: total / CLOCK_TICKS };
}

/**
 * CPU seconds of process `root` and every process below it (a server's workers, a PostgreSQL
 * postmaster's backends), those that ended included: each one's count of its waited-for children
 * (cutime and cstime) holds theirs, so a backend that PgBouncer closed still counts.
 */
export const treeCpuSeconds = (root) => [root, ...descendantsOf(root)].reduce((sum, pid) => sum + cpuSecondsOf(pid, { ended: true }), 0);

function cpuSecondsOf(pid, { ended = false } = {}) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of /proc/<pid>/stat, i.e. 11 and 12 after the name;
    // cutime and cstime (its ended children's) 16 and 17, i.e. 13 and 14.
    const own = Number(fields[11]) + Number(fields[12]);
    return (ended ? own + Number(fields[13]) + Number(fields[14]) : own) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

function descendantsOf(root) {
  const parentOf = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name (field 2) may hold spaces; the parent id follows its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift();
    for (const [child, parent] of parentOf) {
      if (parent === pid) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

let specCounter = 0;
let writesDatabaseUrl;
/** What the loads so far wrote to each task (scenarios.mjs, writtenEntries), handed to the next. */
const written = new Map();

/**
 * The database every later load reads what its write tasks hold from before it sends anything
 * (scenarios.mjs, primeWritesFrom); undefined: none can be read (PGlite), and each load takes over
 * only from what the loads before it wrote. Each load is a process of its own.
 */
export function primeLoadsFrom(databaseUrl) {
  writesDatabaseUrl = databaseUrl;
  written.clear();
}

/** Runs one autocannon load in its own process; resolves with its result. */
export function runLoad(spec) {
  const file = join(tmpdir(), `tasklane-bench-load-${process.pid}-${(specCounter += 1)}.json`);
  writeFileSync(file, JSON.stringify({ ...spec, writesDatabaseUrl, written: [...written] }));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, 'load.mjs'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.on('exit', (code) => {
      rmSync(file, { force: true });
      if (code !== 0) return reject(new Error(`load for ${spec.scenario} exited with ${code}`));
      const { written: entries, ...result } = JSON.parse(output.trim().split('\n').pop());
      for (const [taskId, held] of entries) written.set(taskId, held);
      resolve(result);
    });
  });
}
