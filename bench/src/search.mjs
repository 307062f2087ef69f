// What a search costs (issue 37): fills 1 000 projects with `--tasks` tasks and
// `--comments-per-task` comments each (0.5: every other task has one; generate_series, straight in PostgreSQL, spread evenly over the projects), makes one
// user a member of 20 of them, and measures through the real server over HTTP the median and p99 of
// sequential `GET /search` requests (a page of 20) for that user: a title word, a common word, a
// prefix every task's description matches (the worst case: every task of the 20 projects is a hit
// to rank), a phrase, and a task key. Prints a table (also bench/results/search-<time>.md) and the
// EXPLAIN of the prefix search. Drops its database at the end.
//
//   node bench/src/search.mjs --tasks 100000 --samples 200     (build the server first)
//   node bench/src/search.mjs --tasks 1000000 --comments-per-task 2 --samples 100   (the issue's size)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { startServer, stopAll } from './processes.mjs';
import { positionKeySql } from './seed.mjs';

const root = new URL('../..', import.meta.url).pathname;
const serverMain = join(root, 'apps/server/dist/main.mjs');
const { values: options } = parseArgs({
  options: {
    'pg-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    port: { type: 'string', default: process.env.BENCH_SEARCH_PORT ?? '4160' },
    tasks: { type: 'string', default: '100000' },
    samples: { type: 'string', default: '200' },
    'comments-per-task': { type: 'string', default: '0.5' },
    // Leaves the database tasklane_search filled (to EXPLAIN by hand); drop it yourself afterwards.
    keep: { type: 'boolean', default: false },
    // Measures on tasklane_search as a --keep run left it (migrated by this build first), without
    // seeding it again: a 1 M-task seed takes some 17 minutes. Keeps it too.
    reuse: { type: 'boolean', default: false },
  },
});
const taskCount = Number(options.tasks);
const samples = Number(options.samples);
const commentsPerTask = Number(options['comments-per-task']);
if (!(commentsPerTask === 0.5 || (Number.isInteger(commentsPerTask) && commentsPerTask >= 0))) throw new Error('--comments-per-task: 0.5 or a whole number');
const PROJECTS = 1000;
const MEMBER_OF = 20;
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);

const databaseUrl = new URL(options['pg-url']);
databaseUrl.pathname = '/tasklane_search';
const admin = postgres(options['pg-url'], { max: 1, onnotice: () => {} });
if (!options.reuse) {
  await admin.unsafe('drop database if exists tasklane_search with (force)');
  await admin.unsafe('create database tasklane_search');
}

const env = {
  DATABASE_URL: databaseUrl.toString(),
  JWT_SECRET: 'search-benchmark-secret-that-is-long-enough',
  LOG_LEVEL: 'warn',
  AUTH_RATE_LIMIT: '1000000',
  TOKEN_RATE_LIMIT: '1000000000',
  BCRYPT_COST: '4',
};
execFileSync(process.execPath, [serverMain, 'migrate'], { env: { ...process.env, ...env }, stdio: 'inherit' });
const resultsDir = join(root, 'bench/results');
mkdirSync(resultsDir, { recursive: true });
const server = await startServer({ name: 'server (search)', args: [serverMain], env, port: Number(options.port), readyPath: '/readyz', logFile: join(resultsDir, 'search-server.log') });
const sql = postgres(databaseUrl.toString(), { max: 2, onnotice: () => {} });

/** The user the seed registered as `name`, signed in again (their password is the seed's). */
async function login(name) {
  const [user] = await sql`select id, email from users where name = ${name}`;
  const response = await fetch(`${server.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: user.email, password: 'password-123' }),
  });
  if (!response.ok) throw new Error(`login: ${response.status} ${await response.text()}`);
  return { token: (await response.json()).access_token, id: user.id };
}

async function register(name) {
  const email = `${name}-${stamp}@example.com`.toLowerCase();
  const response = await fetch(`${server.url}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, email, password: 'password-123' }),
  });
  if (!response.ok) throw new Error(`register: ${response.status} ${await response.text()}`);
  const { access_token: token } = await response.json();
  const [user] = await sql`select id from users where email = ${email}`;
  return { token, id: user.id };
}

const print = (() => {
  const lines = [];
  const print = (line = '') => {
    console.log(line);
    lines.push(line);
  };
  print.lines = lines;
  return print;
})();

/** Fills the database: 1 000 projects, the tasks and comments, the reader a member of 20. */
async function seed(reader) {
  const owner = await register('Owner');
  // Projects 0 … 999 (keys SP0 …), the reader a member of the first 20.
  await sql`insert into projects (id, name, owner_id, key) select gen_random_uuid(), 'Project ' || i, ${owner.id}, 'SP' || i from generate_series(0, ${PROJECTS - 1}) as i`;
  await sql`insert into project_keys (key, project_id) select key, id from projects`;
  await sql`insert into memberships (id, project_id, user_id, role) select gen_random_uuid(), id, ${owner.id}, 'ADMIN' from projects`;
  await sql`insert into memberships (id, project_id, user_id, role) select gen_random_uuid(), id, ${reader.id}, 'VIEWER' from projects where key = any(${Array.from({ length: MEMBER_OF }, (_, i) => `SP${i}`)})`;
  // Task i goes to project i % 1000 as its number i / 1000 + 1. Its title has word w<i % 1000>
  // (1 in 1 000 tasks), its description v<i % 50> (1 in 50) and "details"; every other task a comment.
  for (let start = 0; start < taskCount; start += 100_000) {
    const end = Math.min(taskCount, start + 100_000) - 1;
    await sql`
      insert into tasks (id, project_id, title, description, status, created_by_id, number, position)
      select gen_random_uuid(), p.id, 'Task ' || i || ' w' || (i % 1000), 'Details v' || (i % 50) || ' of the work ' || md5(i::text),
             'TODO', ${owner.id}, i / ${PROJECTS} + 1, ${sql.unsafe(positionKeySql(`i / ${PROJECTS} + 1`))}
      from generate_series(${start}::int, ${end}::int) as i join projects as p on p.key = 'SP' || (i % ${PROJECTS})`;
  }
  // Comment k of a task (0.5: one on every other task), a project's tasks at a time for bounded statements.
  const perTask = Math.ceil(commentsPerTask);
  const everyOther = commentsPerTask === 0.5 ? sql`and t.number % 2 = 0` : sql``;
  for (let first = 0; first < PROJECTS && perTask > 0; first += 100) {
    await sql`
      insert into comments (id, task_id, project_id, author_id, text)
      select gen_random_uuid(), t.id, t.project_id, ${owner.id}, 'A note on v' || (t.number % 50) || ' for later'
      from tasks as t join projects as p on p.id = t.project_id cross join generate_series(1, ${perTask}::int) as k
      where substr(p.key, 3)::int >= ${first} and substr(p.key, 3)::int < ${first + 100} ${everyOther}`;
  }
  await sql`update projects set next_task_number = ${Math.ceil(taskCount / PROJECTS) + 1}`;
  await sql`vacuum (analyze) tasks`;
  await sql`vacuum (analyze) comments`;
  await sql`vacuum (analyze) memberships`;
  // Its counts were updated once per task inserted: as autovacuum would in time, clear the dead rows.
  await sql`vacuum (analyze) project_task_counts`;
}

try {
  const reader = options.reuse ? await login('Reader') : await register('Reader');
  if (!options.reuse) await seed(reader);
  const [{ tasks: taskTotal, comments }] = await sql`select (select count(*)::int from tasks) as tasks, (select count(*)::int from comments) as comments`;

  const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  async function measure(q) {
    const path = `/api/v1/search?q=${encodeURIComponent(q)}&limit=20`;
    const timings = [];
    let hits = 0;
    for (let index = 0; index < samples + 20; index += 1) {
      const started = process.hrtime.bigint();
      const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${reader.token}` } });
      const body = await response.json();
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
      hits = body.length;
      if (index >= 20) timings.push(elapsed);
    }
    timings.sort((a, b) => a - b);
    return { median: percentile(timings, 50), p99: percentile(timings, 99), hits };
  }

  print(`# Search: ${taskTotal} tasks and ${comments} comments in ${PROJECTS} projects, the reader a member of ${MEMBER_OF} (${stamp})`);
  print();
  print('| query | what it matches among the reader\'s | hits on the page | median ms | p99 ms |');
  print('|---|---|---:|---:|---:|');
  const cases = [
    ['w7', 'a title word, matched as a prefix while typing (w7, w70 … w799: 1 task in 9)'],
    ['v7', 'a common word (1 task in 50, and its comments)'],
    ['detai', 'a prefix of every description (every task of the 20 projects)'],
    ['"of the work"', 'a phrase in every description'],
    ['SP3-7', 'a task key'],
  ];
  for (const [q, what] of cases) {
    const { median, p99, hits } = await measure(q);
    print(`| \`${q}\` | ${what} | ${hits} | ${median.toFixed(1)} | ${p99.toFixed(1)} |`);
  }
  print();
  print('EXPLAIN (ANALYZE) of the prefix search\'s matching, as the store runs it:');
  const plan = await sql`explain (analyze, costs off)
    select count(*) from tasks as t join memberships as m on m.project_id = t.project_id and m.user_id = ${reader.id}
    where t.search_vector @@ to_tsquery('simple', 'detai:*')`;
  print('```');
  for (const row of plan) print(row['QUERY PLAN']);
  print('```');
  writeFileSync(join(resultsDir, `search-${stamp}.md`), `${print.lines.join('\n')}\n`);
} finally {
  await sql.end();
  await stopAll();
  if (!options.keep && !options.reuse) await admin.unsafe('drop database if exists tasklane_search with (force)');
  await admin.end();
}
