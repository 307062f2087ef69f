// What a named statement saves on PGlite (packages/db/src/pglite-statements.ts): the service's
// task-and-access read (the statement behind a task's writes and comments) run through PGlite's query(), which
// parses and plans it on every call, and as a statement parsed once and then only bound and run
// through PGlite's protocol API. SQL EXECUTE cannot serve: it takes no bind parameters.
// Usage: node bench/src/pglite-statements.mjs [calls per round]
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

const CALLS = Number(process.argv[2] ?? 2000);
const migrations = new URL('../../packages/db/drizzle/', import.meta.url);
const pg = await PGlite.create({ extensions: { pg_trgm } });
for (const file of readdirSync(migrations).filter((name) => name.endsWith('.sql')).sort()) {
  await pg.exec(readFileSync(new URL(file, migrations), 'utf8').replaceAll('--> statement-breakpoint', ''));
}
const user = '01900000-0000-7000-8001-000000000001';
const project = '01900000-0000-7000-8002-000000000001';
const task = '01900000-0000-7000-8003-000000000001';
await pg.exec(`
  insert into users (id, name, email, password_hash) values ('${user}', 'Ada', 'ada@example.com', 'x');
  insert into projects (id, name, owner_id, key) values ('${project}', 'Engine', '${user}', 'ENG');
  insert into memberships (id, project_id, user_id, role) values (gen_random_uuid(), '${project}', '${user}', 'ADMIN');
  insert into tasks (id, title, project_id, created_by_id, number)
    select gen_random_uuid(), 'task ' || n, '${project}', '${user}', n from generate_series(1, 2000) as n;
  insert into tasks (id, title, project_id, created_by_id, number) values ('${task}', 'The one read', '${project}', '${user}', 2001);`);

// As apps/server/src/tasks/store.ts reads a task with the caller's role and the project's owner.
const TASK_FOR_USER = `select tasks.*,
  (select m.role from memberships as m where m.project_id = tasks.project_id and m.user_id = $2) as role,
  (select p.owner_id from projects as p where p.id = tasks.project_id) as owner_id
  from tasks where tasks.id = $1 limit 1`;

const { serialize } = protocol;
await pg.execProtocol(Buffer.concat([serialize.parse({ name: 'task_for_user', text: TASK_FOR_USER, types: [] }), serialize.sync()]));
const runNamed = async (values) => {
  const { messages } = await pg.execProtocol(
    Buffer.concat([serialize.bind({ statement: 'task_for_user', values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
  );
  return parse.parseResults(messages, {}, { rowMode: 'array' })[0];
};

const viaQuery = (await pg.query(TASK_FOR_USER, [task, user], { rowMode: 'array' })).rows;
const viaNamed = (await runNamed([task, user])).rows;
if (JSON.stringify(viaQuery) !== JSON.stringify(viaNamed)) throw new Error('the two paths answered differently');

const msPerCall = async (call) => {
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) await call();
  return ((performance.now() - start) / CALLS).toFixed(3);
};
for (let round = 1; round <= 3; round++) {
  const plain = await msPerCall(() => pg.query(TASK_FOR_USER, [task, user], { rowMode: 'array' }));
  const named = await msPerCall(() => runNamed([task, user]));
  console.log(`round ${round}: query() ${plain} ms per call, named statement ${named} ms per call`);
}
await pg.close();
