// How the cost of a page grows with the data: fills ONE project with 1 000 … 1 000 000 tasks, and
// gives ONE user 10 … 100 000 projects (generate_series, straight in PostgreSQL), and measures at
// each size, through the real server over HTTP, sequential requests' median and p99 latency and the
// CPU per request of the server process and of PostgreSQL's backends: the first page, a deep page
// (cursor 90 % in), a filtered page and a text search of the big project; pages filtered and sorted
// by its custom fields (a select, a number, a date, their values straight in PostgreSQL too): a
// common option (20 %), a rare one (50 tasks), a number range of ~50 tasks and one of half, and the
// sort by the number, first page and a deep one; the first page of the user's project list. Prints both curves as tables (also in bench/results/scale-<time>.md and as the
// scale section of bench/results/latest.md, which `npm run bench` keeps) and the
// EXPLAIN plans of the task queries at the largest size. Drops its database at the end.
//
//   npm run bench:scale                       (builds the server first)
//   node bench/src/scale.mjs --sizes 1000,100000 --project-counts 10,1000 --samples 200
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { withScaleSection } from './latest.mjs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { backendCpuSeconds, postgresCpuByPid, startServer, stopAll } from './processes.mjs';
import { positionKeySql } from './seed.mjs';

const root = new URL('../..', import.meta.url).pathname;
const serverMain = join(root, 'apps/server/dist/main.mjs');
const { values: options } = parseArgs({
  options: {
    'pg-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    port: { type: 'string', default: process.env.BENCH_SCALE_PORT ?? '4150' },
    sizes: { type: 'string', default: '1000,10000,100000,1000000' },
    'project-counts': { type: 'string', default: '10,100,1000,10000,100000' },
    samples: { type: 'string', default: '1000' },
  },
});
const sizes = options.sizes.split(',').map(Number);
const projectCounts = options['project-counts'].split(',').map(Number);
const samples = Number(options.samples);
const PAGE = 50;
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);

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
      insert into tasks (id, project_id, title, description, status, priority, due_date, assignee_id, created_by_id, number, position, created_at, updated_at)
      select gen_random_uuid(), ${projectId}, 'Task ' || i, 'Details of task ' || i || ' ' || md5(i::text),
             (array['TODO','IN_PROGRESS','IN_REVIEW','DONE','CANCELLED'])[1 + i % 5],
             (array['LOW','MEDIUM','HIGH','URGENT'])[1 + i % 4]::task_priority,
             case when i % 3 = 0 then null else timestamptz '2027-01-01' + (i % 365) * interval '1 day' end,
             case when i % 4 = 0 then ${userId}::uuid end,
             ${userId}, i + 1, ${sql.unsafe(positionKeySql('i + 1'))},
             timestamptz '2026-01-01' + i * interval '1 millisecond', timestamptz '2026-01-01' + i * interval '1 millisecond'
      from generate_series(${start}::int, ${end}::int) as i`;
  }
  // Numbers go on after the filled ones, as the service takes them (migration 0011).
  await sql`update projects set next_task_number = ${to + 1} where id = ${projectId}`;
  // A settled table, as autovacuum leaves one: otherwise the cell races its first pass over the new rows.
  await sql`vacuum (analyze) tasks`;
}

/** The big project's custom fields (through the API, as a user makes them). */
async function makeFields(projectId, token) {
  const post = (body) => api('POST', `/projects/${projectId}/fields`, token, body);
  const stage = await post({ name: 'Stage', type: 'select', options: ['Idea', 'Design', 'Build', 'Verify', 'Ship', 'Rare'].map((name) => ({ name })) });
  const points = await post({ name: 'Points', type: 'number' });
  const review = await post({ name: 'Review', type: 'date' });
  return { stage, points, review };
}

// A number each task has, distinct and unrelated to its age: task i's is i · 7919 mod 1 000 003 (a prime).
const POINTS_MOD = 1_000_003;
const pointsSql = (i) => `(${i}::bigint * 7919 % ${POINTS_MOD})::double precision`;

/**
 * Values of tasks number `from` … `to - 1` (task i is number i + 1): every task the number, one
 * of the first five options each (1 in 5 each), every other task the date; then the rare option
 * moved to 50 tasks spread over the whole project (their number a multiple of `to` / 50).
 */
async function fillValues(projectId, fields, from, to) {
  const optionIds = fields.stage.options.map((option) => option.id);
  const select = (index) => `(array[${optionIds.map((id) => `'${id}'`).join(',')}])[1 + ${index}]`;
  for (let start = from; start < to; start += 100_000) {
    const end = Math.min(to, start + 100_000) - 1;
    const tasksOf = sql.unsafe(`select id, number - 1 as i from tasks where project_id = '${projectId}' and number between ${start + 1} and ${end + 1}`);
    await sql`
      insert into task_field_values (task_id, field_id, value, sort_text, sort_number)
      select t.id, ${fields.stage.id}::uuid, to_jsonb(${sql.unsafe(select('t.i % 5'))}), ${sql.unsafe(select('t.i % 5'))}, t.i % 5 from (${tasksOf}) as t
      union all
      select t.id, ${fields.points.id}::uuid, to_jsonb(${sql.unsafe(pointsSql('t.i'))}), null, ${sql.unsafe(pointsSql('t.i'))} from (${tasksOf}) as t
      union all
      select t.id, ${fields.review.id}::uuid, to_jsonb(d), d, null
      from (${tasksOf}) as t, lateral (select to_char(date '2027-01-01' + (t.i % 730)::int, 'YYYY-MM-DD') as d) as day
      where t.i % 2 = 0`;
  }
  // The rare option: back to its common one where it was, then on 50 tasks spread over all of them.
  const rare = optionIds.length - 1;
  await sql`update task_field_values set value = to_jsonb(${sql.unsafe(select('(t.number - 1) % 5'))}), sort_text = ${sql.unsafe(select('(t.number - 1) % 5'))}, sort_number = (t.number - 1) % 5
    from tasks as t where t.id = task_field_values.task_id and task_field_values.field_id = ${fields.stage.id} and task_field_values.sort_number = ${rare}::double precision`;
  await sql`update task_field_values set value = to_jsonb(${optionIds[rare]}::text), sort_text = ${optionIds[rare]}, sort_number = ${rare}
    from tasks as t where t.id = task_field_values.task_id and task_field_values.field_id = ${fields.stage.id} and t.project_id = ${projectId} and t.number % ${Math.max(1, Math.floor(to / 50))} = 0`;
  await sql`vacuum (analyze) task_field_values`;
}

/** The cursor of the task `position` rows into the sort by the number (every task has one). */
const pointsCursorAt = async (fieldId, position) => {
  const [row] = await sql`select sort_number, task_id from task_field_values where field_id = ${fieldId} order by sort_number, task_id offset ${position} limit 1`;
  return Buffer.from(JSON.stringify([row.sort_number, row.task_id])).toString('base64url');
};

const cursorAt = async (projectId, position) => {
  const [row] = await sql`select created_at, id from tasks where project_id = ${projectId} order by created_at, id offset ${position} limit 1`;
  return Buffer.from(JSON.stringify([row.created_at.toISOString(), row.id])).toString('base64url');
};

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const backends = async () => (await sql`select pid from pg_stat_activity where datname = 'tasklane_scale' and pid <> pg_backend_pid()`).map((row) => row.pid);

/** Sequential requests (after 20 unmeasured): latency and CPU per request of the server and of PostgreSQL's backends. */
async function measure(path, token) {
  const timings = [];
  let cpuBefore;
  let databaseBefore;
  for (let index = 0; index < samples + 20; index += 1) {
    if (index === 20) {
      cpuBefore = server.cpuSeconds();
      databaseBefore = postgresCpuByPid();
    }
    const started = process.hrtime.bigint();
    const response = await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.json();
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (!response.ok || !Array.isArray(body) || body.length === 0) throw new Error(`${path}: ${response.status}`);
    if (index >= 20) timings.push(elapsed);
  }
  const serverUs = ((server.cpuSeconds() - cpuBefore) * 1e6) / samples;
  const databaseUs = (backendCpuSeconds(databaseBefore, postgresCpuByPid(), await backends()) * 1e6) / samples;
  timings.sort((a, b) => a - b);
  return { median: percentile(timings, 50), p99: percentile(timings, 99), serverUs, databaseUs };
}

/** Gives `userId` projects number `from` … `to - 1`, each with its membership (ADMIN, as its owner). */
async function fillProjects(userId, from, to) {
  await sql`
    insert into projects (id, name, description, owner_id, key, created_at, updated_at)
    select gen_random_uuid(), 'Project ' || i, 'Scale project ' || i, ${userId}, 'SP' || i, now(), now()
    from generate_series(${from}::int, ${to - 1}::int) as i`;
  // Each key taken, as the service takes one (migration 0011).
  await sql`insert into project_keys (key, project_id) select key, id from projects where key like 'SP%' on conflict do nothing`;
  await sql`
    insert into memberships (id, project_id, user_id, role, created_at, updated_at)
    select gen_random_uuid(), p.id, ${userId}, 'ADMIN', now(), now()
    from projects as p where p.owner_id = ${userId} and not exists (select 1 from memberships as m where m.project_id = p.id and m.user_id = ${userId})`;
  await sql`vacuum (analyze) projects`;
  await sql`vacuum (analyze) memberships`;
}

const lines = [];
const print = (line = '') => {
  console.log(line);
  lines.push(line);
};
/** One curve as a Markdown table: per size, median / p99 ms and server + PostgreSQL CPU µs per request. */
function curve(title, unit, sizeList, rows) {
  print(`\n${title}\n`);
  print(`| scenario | ${sizeList.map((size) => `${size.toLocaleString('en')} ${unit}`).join(' | ')} | p99 largest / smallest | CPU largest / smallest |`);
  print(`|---|${sizeList.map(() => '---|').join('')}---:|---:|`);
  for (const scenario of [...new Set(rows.map((result) => result.scenario))]) {
    const row = sizeList.map((size) => rows.find((result) => result.size === size && result.scenario === scenario));
    const cpu = (cell) => cell.serverUs + cell.databaseUs;
    print(
      `| ${scenario} | ${row.map((cell) => `${cell.median.toFixed(1)} / ${cell.p99.toFixed(1)} ms, ${Math.round(cell.serverUs)} + ${Math.round(cell.databaseUs)} µs`).join(' | ')} | ${(row.at(-1).p99 / row[0].p99).toFixed(2)} | ${(cpu(row.at(-1)) / cpu(row[0])).toFixed(2)} |`,
    );
  }
}

const results = [];
const fieldResults = [];
try {
  const auth = await api('POST', '/auth/register', undefined, { name: 'Scale', email: 'scale@example.com', password: 'scale-benchmark' });
  const token = auth.access_token;
  const project = await api('POST', '/projects', token, { name: 'One big project' });
  const fields = await makeFields(project.id, token);
  const [commonOption, rareOption] = [fields.stage.options[1].id, fields.stage.options.at(-1).id];
  let filled = 0;
  for (const size of sizes) {
    const started = Date.now();
    await fill(project.id, auth.user.id, filled, size);
    await fillValues(project.id, fields, filled, size);
    filled = size;
    console.log(`filled ${size.toLocaleString('en')} tasks in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const scenarios = {
      'first page': `/tasks/project/${project.id}?limit=${PAGE}`,
      'deep page (cursor 90 % in)': `/tasks/project/${project.id}?limit=${PAGE}&cursor=${await cursorAt(project.id, Math.floor(size * 0.9))}`,
      'filtered page (status=IN_PROGRESS)': `/tasks/project/${project.id}?limit=${PAGE}&status=IN_PROGRESS`,
      'text search (q=task 77)': `/tasks/project/${project.id}?limit=${PAGE}&q=${encodeURIComponent('task 77')}`,
    };
    const rareWidth = Math.ceil((POINTS_MOD * 50) / size);
    const fieldScenarios = {
      'select = a common option (20 %)': `/tasks/project/${project.id}?limit=${PAGE}&field.${fields.stage.id}=${commonOption}`,
      'select = a rare option (50 tasks)': `/tasks/project/${project.id}?limit=${PAGE}&field.${fields.stage.id}=${rareOption}`,
      'number range of ~50 tasks (.gte & .lte)': `/tasks/project/${project.id}?limit=${PAGE}&field.${fields.points.id}.gte=500000&field.${fields.points.id}.lte=${500000 + rareWidth - 1}`,
      'number range of half (.gte)': `/tasks/project/${project.id}?limit=${PAGE}&field.${fields.points.id}.gte=500000`,
      'sort=field.number, first page': `/tasks/project/${project.id}?limit=${PAGE}&sort=field.${fields.points.id}`,
      'sort=field.number, deep page (cursor 90 % in)': `/tasks/project/${project.id}?limit=${PAGE}&sort=field.${fields.points.id}&cursor=${await pointsCursorAt(fields.points.id, Math.floor(size * 0.9))}`,
    };
    for (const [group, list] of [[results, scenarios], [fieldResults, fieldScenarios]]) for (const [scenario, path] of Object.entries(list)) {
      const timing = await measure(path, token);
      group.push({ size, scenario, ...timing });
      console.log(`${size}\t${scenario}\tmedian ${timing.median.toFixed(2)} ms\tp99 ${timing.p99.toFixed(2)} ms\tCPU ${Math.round(timing.serverUs)} + ${Math.round(timing.databaseUs)} µs`);
    }
  }

  // One user's project list: the same user, from 10 to 100 000 projects (the big project is one of them).
  const projectResults = [];
  let projectsFilled = 1;
  for (const count of projectCounts) {
    const started = Date.now();
    if (count > projectsFilled) await fillProjects(auth.user.id, projectsFilled, count);
    projectsFilled = Math.max(projectsFilled, count);
    console.log(`the user has ${count.toLocaleString('en')} projects (filled in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
    const timing = await measure(`/projects?limit=50`, token);
    projectResults.push({ size: count, scenario: 'first page of the project list (50)', ...timing });
    console.log(`${count}\tproject list\tmedian ${timing.median.toFixed(2)} ms\tp99 ${timing.p99.toFixed(2)} ms\tCPU ${Math.round(timing.serverUs)} + ${Math.round(timing.databaseUs)} µs`);
  }

  print(`Scale run ${stamp}: ${samples} sequential requests per cell (after 20 unmeasured); median / p99 latency, then the server's + PostgreSQL's CPU per request; load average ${loadavg().map((value) => value.toFixed(2)).join(' ')} at the end.`);
  curve(`Tasks in one project (pages of ${PAGE}):`, 'tasks', sizes, results);
  curve(`Pages of ${PAGE} of the same project by its custom fields:`, 'tasks', sizes, fieldResults);
  curve('Projects of one user:', 'projects', projectCounts, projectResults);
  writeFileSync(join(resultsDir, `scale-${stamp}.md`), `${lines.join('\n')}\n`);
  withScaleSection(lines.join('\n'));

  // The plans of the same queries the service sends (see apps/server/src/resources/tasks/store.ts).
  const [deep] = await sql`select created_at, id from tasks where project_id = ${project.id} order by created_at, id offset ${Math.floor(filled * 0.9)} limit 1`;
  const plans = {
    'first page': sql`explain (analyze, costs off, timing off, summary on) select * from tasks where project_id = ${project.id} order by created_at, id limit 51`,
    'deep page': sql`explain (analyze, costs off, timing off, summary on) select * from tasks where project_id = ${project.id} and (created_at, id) > (${deep.created_at}::timestamptz, ${deep.id}::uuid) order by created_at, id limit 51`,
    filtered: sql`explain (analyze, costs off, timing off, summary on) select * from tasks where project_id = ${project.id} and status in ('IN_PROGRESS') order by created_at, id limit 51`,
    'text search': sql`explain (analyze, costs off, timing off, summary on) select * from tasks where project_id = ${project.id} and (title ilike '%task 77%' or description ilike '%task 77%') order by created_at, id limit 51`,
  };
  // The field pages' statements (fieldConditions and listTasksByField in the same file): their
  // values inline, as the server sends them, so the planner sees how many tasks they match.
  const pointsId = fields.points.id;
  const rareWidth = Math.ceil((POINTS_MOD * 50) / filled);
  const [deepPoints] = await sql`select sort_number, task_id from task_field_values where field_id = ${pointsId} order by sort_number, task_id offset ${Math.floor(filled * 0.9)} limit 1`;
  const byOption = (optionId) =>
    sql.unsafe(`explain (analyze, costs off, timing off, summary on) select * from tasks where project_id = '${project.id}' and exists (select 1 from task_field_values as filtered where filtered.task_id = tasks.id and filtered.field_id = '${fields.stage.id}'::uuid and filtered.sort_text = any('{${optionId}}'::text[])) order by created_at, id limit 51`);
  const byPoints = (after) =>
    sql.unsafe(`explain (analyze, costs off, timing off, summary on) select tasks.*, task_field_values.sort_number from tasks inner join task_field_values on task_field_values.task_id = tasks.id and task_field_values.field_id = '${pointsId}' where tasks.project_id = '${project.id}'${after} order by task_field_values.sort_number, task_field_values.task_id limit 51`);
  Object.assign(plans, {
    'select = a common option': byOption(commonOption),
    'select = a rare option': byOption(rareOption),
    'number range of ~50 tasks': sql.unsafe(
      `explain (analyze, costs off, timing off, summary on) select * from tasks where project_id = '${project.id}' and exists (select 1 from task_field_values as filtered where filtered.task_id = tasks.id and filtered.field_id = '${pointsId}'::uuid and filtered.sort_number >= 500000::double precision and filtered.sort_number <= ${500000 + rareWidth - 1}::double precision) order by created_at, id limit 51`,
    ),
    'sort=field.number, first page': byPoints(''),
    'sort=field.number, deep page': byPoints(` and (task_field_values.sort_number, task_field_values.task_id) > (${deepPoints.sort_number}::double precision, '${deepPoints.task_id}'::uuid)`),
  });
  for (const [name, query] of Object.entries(plans)) {
    console.log(`\nEXPLAIN ${name} (${filled.toLocaleString('en')} tasks):`);
    for (const line of await query) console.log(`  ${line['QUERY PLAN']}`);
  }
} finally {
  await sql.end();
  await server.stop();
  await stopAll();
  const cleanup = postgres(options['pg-url'], { max: 1, onnotice: () => {} });
  await cleanup.unsafe('drop database if exists tasklane_scale with (force)');
  await cleanup.end();
}
