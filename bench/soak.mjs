#!/usr/bin/env node
// Soak: the built server under mixed load for a long time (10 minutes by default), reporting
// errors, latency and the server's memory over time.
//   node bench/soak.mjs [--minutes 2] [--clients 8] [--port 4440]
// Uses PGlite in a temporary data directory, or PostgreSQL when DATABASE_URL is set.
// Build first: npx -y pnpm@12.21.0 turbo run build --filter=@tasklane/server
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    clients: { type: 'string', default: '8' },
    port: { type: 'string', default: '4440' },
    interval: { type: 'string', default: '10' },
  },
});
const minutes = Number(values.minutes);
const clients = Number(values.clients);
const port = Number(values.port);
const intervalMs = Number(values.interval) * 1000;
const baseUrl = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), 'tasklane-soak-'));

const server = spawn(process.execPath, [new URL('../apps/server/dist/main.mjs', import.meta.url).pathname, 'serve'], {
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    TOKEN_RATE_LIMIT: '0',
    AUTH_RATE_LIMIT: '100000',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const rssMiB = () => {
  const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
};

async function request(method, path, token, body) {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, ms: performance.now() - started };
}

let window = { latencies: [], errors: 0, requests: 0 };
const totals = { requests: 0, errors: 0, errorSamples: [] };
function record(result, expected) {
  window.requests += 1;
  window.latencies.push(result.ms);
  if (!expected.includes(result.status)) {
    window.errors += 1;
    if (totals.errorSamples.length < 5) totals.errorSamples.push(`${result.status} ${JSON.stringify(result.body).slice(0, 200)}`);
  }
  return result;
}

/** One simulated user: a project of its own, tasks created, listed, read, updated, commented, deleted. */
async function client(index, deadline) {
  const email = `soak-${index}-${Date.now()}@example.com`;
  const { body: auth } = record(await request('POST', '/api/v1/auth/register', undefined, { name: `Soak ${index}`, email, password: 'password-123' }), [201]);
  const token = auth.access_token;
  const { body: project } = record(await request('POST', '/api/v1/projects', token, { name: `Soak project ${index}` }), [201]);
  const tasks = [];
  for (let step = 0; Date.now() < deadline; step += 1) {
    const roll = step % 10;
    if (roll < 3 || tasks.length === 0) {
      const created = record(await request('POST', '/api/v1/tasks', token, { projectId: project.id, title: `Task ${step}`, priority: 'HIGH' }), [201]);
      if (created.status === 201) tasks.push(created.body.id);
    } else if (roll < 6) {
      record(await request('GET', `/api/v1/tasks/project/${project.id}?limit=50&sort=-priority`, token), [200]);
    } else if (roll < 7) {
      record(await request('GET', `/api/v1/tasks/${tasks[step % tasks.length]}`, token), [200]);
    } else if (roll < 8) {
      record(await request('PATCH', `/api/v1/tasks/${tasks[step % tasks.length]}`, token, { status: 'IN_PROGRESS' }), [200]);
    } else if (roll < 9) {
      record(await request('POST', `/api/v1/tasks/${tasks[step % tasks.length]}/comments`, token, { text: `Comment ${step}` }), [201]);
    } else if (tasks.length > 20) {
      record(await request('DELETE', `/api/v1/tasks/${tasks.shift()}`, token), [200]);
    } else {
      record(await request('GET', '/api/v1/projects', token), [200]);
    }
  }
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0);

async function main() {
  for (;;) {
    const ready = await fetch(`${baseUrl}/readyz`).then((response) => response.ok, () => false);
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const started = Date.now();
  const deadline = started + minutes * 60_000;
  const rows = [];
  console.log(`soak: ${minutes} min, ${clients} clients, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, server pid ${server.pid}`);
  console.log('  t(s)   req/s  errors  p50 ms  p99 ms  max ms  rss MiB');
  const reporter = setInterval(() => {
    const sorted = window.latencies.sort((a, b) => a - b);
    const row = {
      seconds: Math.round((Date.now() - started) / 1000),
      rps: Math.round(window.requests / (intervalMs / 1000)),
      errors: window.errors,
      p50: Math.round(percentile(sorted, 50)),
      p99: Math.round(percentile(sorted, 99)),
      max: Math.round(sorted.at(-1) ?? 0),
      rss: rssMiB(),
    };
    rows.push(row);
    totals.requests += window.requests;
    totals.errors += window.errors;
    window = { latencies: [], errors: 0, requests: 0 };
    console.log(`${String(row.seconds).padStart(6)} ${String(row.rps).padStart(7)} ${String(row.errors).padStart(7)} ${String(row.p50).padStart(7)} ${String(row.p99).padStart(7)} ${String(row.max).padStart(7)} ${String(row.rss).padStart(8)}`);
  }, intervalMs);
  await Promise.all(Array.from({ length: clients }, (_, index) => client(index, deadline)));
  clearInterval(reporter);
  totals.requests += window.requests;
  totals.errors += window.errors;
  const half = Math.floor(rows.length / 2);
  const average = (list) => Math.round(list.reduce((sum, row) => sum + row.rss, 0) / Math.max(1, list.length));
  console.log(
    JSON.stringify({
      minutes,
      clients,
      requests: totals.requests,
      errors: totals.errors,
      errorSamples: totals.errorSamples,
      rssFirstHalfMiB: average(rows.slice(0, half)),
      rssSecondHalfMiB: average(rows.slice(half)),
      p99WorstMs: Math.max(...rows.map((row) => row.p99)),
    }),
  );
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    server.kill('SIGTERM');
    server.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  });
