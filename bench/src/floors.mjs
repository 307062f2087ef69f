// The floors of every scenario: a bare Fastify server on the service's own paths, so the same load
// runs against it, that verifies the HS256 token with jose and then does, with postgres.js:
//   same-sql — exactly the statements the service issues for the operation (statements.generated.json,
//              captured from the service by statements.mjs), with this request's values;
//   bare     — the least the operation needs: a read by primary key, a plain SELECT of the page's
//              50 rows sent with JSON.stringify, or a single-row INSERT or UPDATE of tasks or comments
//              (no history, no outbox, no announcement, no access check).
// The difference between the service and `same-sql` is what the server adds on top of its SQL; between
// `same-sql` and `bare`, what the service's SQL adds on top of the plain write or read.
// Usage: PORT=… DATABASE_URL=… JWT_SECRET=… node floors.mjs same-sql|bare
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import { availableParallelism } from 'node:os';
import postgres from 'postgres';
import { uuidv7 } from 'uuidv7';
import { readGenerated } from './statements.mjs';

const kind = process.argv[2];
if (kind !== 'same-sql' && kind !== 'bare') {
  console.error('usage: floors.mjs same-sql|bare');
  process.exit(2);
}

// The server's pool size (DATABASE_POOL_SIZE or apps/server/src/config.ts defaultPoolSize) and the
// server's session settings and client set-up (packages/db/src/client.ts, drizzle's postgres-js
// driver: timestamps and JSON pass through as text), so neither side gains from a setting the
// other does not have.
const max = Number(process.env.DATABASE_POOL_SIZE) || Math.min(10, availableParallelism() + 1);
const sql = postgres(process.env.DATABASE_URL, { max, onnotice: () => {}, connection: { TimeZone: 'UTC', DateStyle: 'ISO, MDY' } });
const passThrough = (value) => value;
for (const type of ['1184', '1082', '1083', '1114', '1182', '1185', '1115', '1231']) {
  sql.options.parsers[type] = passThrough;
  sql.options.serializers[type] = passThrough;
}
sql.options.serializers['114'] = passThrough;
sql.options.serializers['3802'] = passThrough;
// The captured values are the text the service sent (a boolean as `t`): send them as they are.
for (const [type, serialize] of Object.entries(sql.options.serializers)) {
  sql.options.serializers[type] = (value) => (typeof value === 'string' ? value : serialize(value));
}

const key = new TextEncoder().encode(process.env.JWT_SECRET);
const app = Fastify({ logger: false });

/** The caller's id from a valid token, or undefined (then the route answers 401). */
async function caller(request) {
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!token) return undefined;
  try {
    return (await jwtVerify(token, key, { algorithms: ['HS256'] })).payload.sub;
  } catch {
    return undefined;
  }
}

/** A template ("{taskId}", "{{\"id\":\"{new0}\"…") as a function of the request's values. */
function compile(template) {
  if (template === null) return () => null;
  const parts = [];
  let last = 0;
  for (const match of template.matchAll(/\{\{|\{([\w.]+)\}/g)) {
    parts.push(template.slice(last, match.index));
    parts.push(match[1] === undefined ? '{' : { name: match[1] });
    last = match.index + match[0].length;
  }
  parts.push(template.slice(last));
  const kept = parts.filter((part) => part !== '');
  if (kept.length === 1 && typeof kept[0] === 'string') return () => kept[0];
  if (kept.length === 1) return (value) => value(kept[0].name);
  return (value) => kept.map((part) => (typeof part === 'string' ? part : value(part.name))).join('');
}

/**
 * The request's value of a template name: from the request (caller, path, body), from the first
 * row the operation's first statement returned (the task as read: its version, project and
 * columns), or made now (a new id, the time).
 */
function valuesOf(request, userId, state) {
  const made = {};
  const value = (name) => {
    const first = state.first;
    if (name in made) return made[name];
    let result;
    if (name === 'userId') result = userId;
    else if (name === 'taskId') result = request.params.id ?? request.taskId;
    else if (name === 'projectId') result = request.params.projectId ?? request.projectId ?? request.body?.projectId ?? first?.project_id;
    else if (name === 'projectKey') result = value('projectId').replaceAll('-', '');
    else if (name === 'now') result = new Date().toISOString();
    else if (name === 'version') result = first?.updated_at;
    else if (name.startsWith('new')) result = uuidv7();
    else if (name.startsWith('body.')) result = request.body?.[name.slice(5)];
    else if (name.startsWith('task.')) result = first?.[name.slice(5)];
    if (result === undefined) throw new Error(`no value for {${name}}`);
    made[name] = result;
    return result;
  };
  return value;
}

let run;
if (kind === 'same-sql') {
  const operations = Object.fromEntries(
    Object.entries(readGenerated().operations).map(([operation, statements]) => [
      operation,
      statements.map((statement) => ({ text: statement.text, params: statement.params.map(compile) })),
    ]),
  );
  run = async (operation, request, userId) => {
    const state = { first: undefined };
    const value = valuesOf(request, userId, state);
    let rows = [];
    for (const statement of operations[operation]) {
      rows = await sql.unsafe(statement.text, statement.params.map((fill) => fill(value)), { prepare: true });
      state.first ??= rows[0];
    }
    return rows;
  };
} else {
  const now = () => new Date().toISOString();
  const bare = {
    task: (request) => sql`select * from tasks where id = ${request.params.id ?? request.taskId}`,
    trpc: (request) => sql`select * from tasks where id = ${request.taskId}`,
    project: (request) => sql`select * from projects where id = ${request.params.id}`,
    page: (request) => sql`select * from tasks where project_id = ${request.params.projectId} order by created_at, id limit 50`,
    filtered: (request, userId) =>
      sql`select * from tasks where project_id = ${request.params.projectId} and status = ${request.query.status}
          and assignee_id = ${userId} order by created_at, id limit 50`,
    create: (request, userId) => sql`
      insert into tasks (id, project_id, title, priority, created_by_id, created_at, updated_at)
      values (${uuidv7()}, ${request.body.projectId}, ${request.body.title}, ${request.body.priority ?? 'MEDIUM'}, ${userId}, ${now()}, ${now()})
      returning id`,
    patch: (request) => sql`update tasks set status = ${request.body.status}, updated_at = ${now()} where id = ${request.params.id} returning id`,
    title: (request) => sql`update tasks set title = ${request.body.title}, updated_at = ${now()} where id = ${request.params.id} returning id`,
    comment: (request, userId) => sql`
      insert into comments (id, task_id, author_id, text, created_at, updated_at)
      values (${uuidv7()}, ${request.params.id}, ${userId}, ${request.body.text}, ${now()}, ${now()})
      returning id`,
  };
  run = (operation, request, userId) => bare[operation](request, userId);
}

/** A route of the service's, answering with what `operation` returns: one row, or a page's rows. */
const route = (method, url, operationOf, answer) =>
  app.route({
    method,
    url,
    handler: async (request, reply) => {
      const userId = await caller(request);
      if (!userId) return reply.code(401).send({ message: 'unauthorized' });
      const rows = await run(operationOf(request), request, userId);
      if (method === 'POST') reply.code(201);
      return answer(rows, reply);
    },
  });
const one = (rows, reply) => rows[0] ?? reply.code(404).send({ message: 'not found' });
// A page goes out through JSON.stringify, as the service sends its pages.
const page = (rows, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify({ items: rows.slice(0, 50) }));

app.get('/readyz', async () => (await sql`select 1 as ready`)[0]);
route('GET', '/api/v1/tasks/:id', () => 'task', one);
route(
  'GET',
  '/api/v1/projects/:id',
  (request) => {
    request.projectId = request.params.id;
    return 'project';
  },
  one,
);
route('GET', '/api/v1/tasks/project/:projectId', (request) => (request.query.status ? 'filtered' : 'page'), page);
route(
  'GET',
  '/api/trpc/tasks.get',
  (request) => {
    request.taskId = JSON.parse(request.query.input)[0].id;
    return 'trpc';
  },
  (rows) => [{ result: { data: rows[0] } }],
);
route('POST', '/api/v1/tasks', () => 'create', (rows) => rows[0] ?? {});
route('PATCH', '/api/v1/tasks/:id', (request) => (request.body.status !== undefined ? 'patch' : 'title'), (rows) => rows[0] ?? {});
route('POST', '/api/v1/tasks/:id/comments', () => 'comment', (rows) => rows[0] ?? {});
app.addHook('onClose', () => sql.end({ timeout: 1 }));

process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
