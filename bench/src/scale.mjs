// How the cost of one page grows with the size of a project: fills ONE project with 1 000,
// 100 000 and 1 000 000 tasks (generate_series on PostgreSQL) and measures, through the real
// server over HTTP, the median and p99 latency of a first page, a deep page (cursor 90 % in), a
// filtered page and a text search. Prints EXPLAIN plans of the same queries at the largest size.
//
//   npm run bench:scale                       (builds the server first)
//   node bench/src/scale.mjs --sizes 1000,100000 --samples 200
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { startServer, stopAll } from './processes.mjs';

const root = new URL('../..', import.meta.url).pathname;
const serverMain = join(root, 'apps/server/dist/main.mjs');
const { values: options } = parseArgs({
  options: {
    'pg-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    port: { type: 'string', default: process.env.BENCH_SCALE_PORT ?? '4150' },
    sizes: { type: 'string', default: '1000,100000,1000000' },
    samples: { type: 'string', default: '300' },
  },
});
const sizes = options.sizes.split(',').map(Number);
const samples = Number(options.samples);
const PAGE = 100;

const databaseUrl = new URL(options['pg-url']);
databaseUrl.pathname = '/tasklane_scale';
const admin = postgres(options['pg-url'], { max: 1, onnotice: () => {} });
await admin.unsafe('drop database if exists tasklane_scale with (force)');
await admin.unsafe('create database tasklane_scale');
await admin.end();

const env = {
  DATABASE_URL: databaseUrl.toString(),
  JWT_SECRET: 'scale-benchmark-secret-that-is-long-enough',
  LOG_LEVEL: 'warn',
  AUTH_RATE_LIMIT: '1000000',
  TOKEN_RATE_LIMIT: '1000000000',
  BCRYPT_COST: '4',
};
execFileSync(process.execPath, [serverMain, 'migrate'], { env: { ...process.env, ...env }, stdio: 'inherit' });
const resultsDir = join(root, 'bench/results');
mkdirSync(resultsDir, { recursive: true });
const server = await startServer({
  name: 'server (scale)',
  args: [serverMain],
  env,
  port: Number(options.port),
  readyPath: '/readyz',
  logFile: join(resultsDir, 'scale-server.log'),
});
const sql = postgres(databaseUrl.toString(), { max: 2, onnotice: () => {} });

async function api(method, path, token, body) {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Adds tasks number `from` … `to - 1`: distinct creation times, a third without due date, a quarter assigned. */
async function fill(projectId, userId, from, to) {
  for (let start = from; start < to; start += 100_000) {
    const end = Math.min(to, start + 100_000) - 1;
    await sql`
      insert into tasks (id, project_id, title, description, status, priority, due_date, assignee_id, created_by_id, created_at, updated_at)
      select gen_random_uuid(), ${projectId}, 'Task ' || i, 'Details of task ' || i || ' ' || md5(i::text),
             (array['TODO','IN_PROGRESS','IN_REVIEW','DONE','CANCELLED'])[1 + i % 5]::task_status,
             (array['LOW','MEDIUM','HIGH','URGENT'])[1 + i % 4]::task_priority,
             case when i % 3 = 0 then null else timestamptz '2027-01-01' + (i % 365) * interval '1 day' end,
             case when i % 4 = 0 then ${userId}::uuid end,
             ${userId}, timestamptz '2026-01-01' + i * interval '1 millisecond', timestamptz '2026-01-01' + i * interval '1 millisecond'
      from generate_series(${start}::int, ${end}::int) as i`;
  }
  await sql`analyze tasks`;
}

const cursorAt = async (projectId, position) => {
  const [row] = await sql`select created_at, id from tasks where project_id = ${projectId} order by created_at, id offset ${position} limit 1`;
  return Buffer.from(JSON.stringify([row.created_at.toISOString(), row.id])).toString('base64url');
};

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function measure(path, token) {
  const timings = [];
  for (let index = 0; index < samples + 20; index += 1) {
    const started = process.hrtime.bigint();
    const response = await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.json();
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (!response.ok || !Array.isArray(body) || body.length === 0) throw new Error(`${path}: ${response.status}`);
    if (index >= 20) timings.push(elapsed);
  }
  timings.sort((a, b) => a - b);
  return { median: percentile(timings, 50), p99: percentile(timings, 99) };
}

const results = [];
try {
  const auth = await api('POST', '/auth/register', undefined, { name: 'Scale', email: 'scale@example.com', password: 'scale-benchmark' });
  const token = auth.access_token;
  const project = await api('POST', '/projects', token, { name: 'One big project' });
  let filled = 0;
  for (const size of sizes) {
    const started = Date.now();
    await fill(project.id, auth.user.id, filled, size);
    filled = size;
    console.log(`filled ${size.toLocaleString('en')} tasks in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const scenarios = {
      'first page': `/tasks/project/${project.id}?limit=${PAGE}`,
      'deep page (cursor 90 % in)': `/tasks/project/${project.id}?limit=${PAGE}&cursor=${await cursorAt(project.id, Math.floor(size * 0.9))}`,
      'filtered page (status=IN_PROGRESS)': `/tasks/project/${project.id}?limit=${PAGE}&status=IN_PROGRESS`,
      'text search (q=task 77)': `/tasks/project/${project.id}?limit=${PAGE}&q=${encodeURIComponent('task 77')}`,
    };
    for (const [scenario, path] of Object.entries(scenarios)) {
      const timing = await measure(path, token);
      results.push({ size, scenario, ...timing });
      console.log(`${size}\t${scenario}\tmedian ${timing.median.toFixed(2)} ms\tp99 ${timing.p99.toFixed(2)} ms`);
    }
  }

  console.log('\n| scenario | ' + sizes.map((size) => `${size.toLocaleString('en')} tasks: median / p99 (ms)`).join(' | ') + ' | p99 ratio largest/smallest |');
  console.log('|---|' + sizes.map(() => '---|').join('') + '---|');
  for (const scenario of [...new Set(results.map((result) => result.scenario))]) {
    const row = sizes.map((size) => results.find((result) => result.size === size && result.scenario === scenario));
    const ratio = row.at(-1).p99 / row[0].p99;
    console.log(`| ${scenario} | ${row.map((cell) => `${cell.median.toFixed(1)} / ${cell.p99.toFixed(1)}`).join(' | ')} | ${ratio.toFixed(2)} |`);
  }

  // The plans of the same queries the service sends (see apps/server/src/tasks/store.ts).
  const [deep] = await sql`select created_at, id from tasks where project_id = ${project.id} order by created_at, id offset ${Math.floor(filled * 0.9)} limit 1`;
  const plans = {
    'first page': sql`explain (analyze, costs off, timing off, summary on) select * from tasks where project_id = ${project.id} order by created_at, id limit 101`,
    'deep page': sql`explain (analyze, costs off, timing off, summary on) select * from tasks where project_id = ${project.id} and (created_at, id) > (${deep.created_at}::timestamptz, ${deep.id}::uuid) order by created_at, id limit 101`,
    filtered: sql`explain (analyze, costs off, timing off, summary on) select * from tasks where project_id = ${project.id} and status in ('IN_PROGRESS') order by created_at, id limit 101`,
    'text search': sql`explain (analyze, costs off, timing off, summary on) select * from tasks where project_id = ${project.id} and (title ilike '%task 77%' or description ilike '%task 77%') order by created_at, id limit 101`,
  };
  for (const [name, query] of Object.entries(plans)) {
    console.log(`\nEXPLAIN ${name} (${filled.toLocaleString('en')} tasks):`);
    for (const line of await query) console.log(`  ${line['QUERY PLAN']}`);
  }
} finally {
  await sql.end();
  await server.stop();
  await stopAll();
}
