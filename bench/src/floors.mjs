// The floor of every scenario: a bare Fastify server on the service's own paths, so the same load
// runs against it, that verifies the HS256 token with jose and then does, with postgres.js, the least
// the operation needs: a read by primary key, a plain SELECT of the page's 50 rows sent with
// JSON.stringify, or a single-row INSERT or UPDATE of tasks or comments, autocommit (no access
// check, no history, no webhook, notification or announcement). On the hot task (every connection
// PATCHing one row) it is `UPDATE tasks SET title = $1, updated_at = now() WHERE id = $2`.
// The service against it is what the service's promises and its code cost on top of the plain work.
// Usage: PORT=… DATABASE_URL=… JWT_SECRET=… node floors.mjs bare
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import { availableParallelism } from 'node:os';
import postgres from 'postgres';
import { uuidv7 } from 'uuidv7';
import { HOT_TASK_ID } from './seed.mjs';

if (process.argv[2] !== 'bare') {
  console.error('usage: floors.mjs bare');
  process.exit(2);
}

// The server's pool size (DATABASE_POOL_SIZE or the server's defaultPoolSize) and the server's
// session settings and client set-up (packages/db/src/client.ts, drizzle's postgres-js driver:
// timestamps and JSON pass through as text), so neither side gains from a setting the other does
// not have.
const max = Number(process.env.DATABASE_POOL_SIZE) || Math.min(10, availableParallelism() + 1);
const sql = postgres(process.env.DATABASE_URL, { max, onnotice: () => {}, connection: { TimeZone: 'UTC', DateStyle: 'ISO, MDY' } });
const passThrough = (value) => value;
for (const type of ['1184', '1082', '1083', '1114', '1182', '1185', '1115', '1231']) {
  sql.options.parsers[type] = passThrough;
  sql.options.serializers[type] = passThrough;
}
sql.options.serializers['114'] = passThrough;
sql.options.serializers['3802'] = passThrough;

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

const now = () => new Date().toISOString();
const bare = {
  task: (request) => sql`select * from tasks where id = ${request.params.id ?? request.taskId}`,
  trpc: (request) => sql`select * from tasks where id = ${request.taskId}`,
  project: (request) => sql`select * from projects where id = ${request.params.id}`,
  page: (request) => sql`select * from tasks where project_id = ${request.params.projectId} order by created_at, id limit 50`,
  filtered: (request, userId) =>
    sql`select * from tasks where project_id = ${request.params.projectId} and status = ${request.query.status}
        and assignee_id = ${userId} order by created_at, id limit 50`,
  // A task needs a state key, a number and a board position, each number and position unique in its
  // project: the least the schema takes is a sequence's number (far above the service's) and a
  // position made from it (a valid fractional-indexing key below any the service makes), in the one INSERT.
  create: (request, userId) => sql`
    insert into tasks (id, project_id, title, priority, status, number, position, created_by_id, created_at, updated_at)
    select ${uuidv7()}, ${request.body.projectId}, ${request.body.title}, ${request.body.priority ?? 'MEDIUM'}, 'TODO', n, 'A' || lpad(n::text, 26, '0'), ${userId}, ${now()}, ${now()}
    from (select nextval('bench_floor_task_number')::int as n) as next
    returning id`,
  patch: (request) => sql`update tasks set status = ${request.body.status}, updated_at = ${now()} where id = ${request.params.id} returning id`,
  title: (request) => sql`update tasks set title = ${request.body.title}, updated_at = ${now()} where id = ${request.params.id} returning id`,
  // The mix's assignment (and any PATCH that is neither a status nor a title): the assignee.
  assign: (request) => sql`update tasks set assignee_id = ${request.body.assigneeId ?? null}, updated_at = ${now()} where id = ${request.params.id} returning id`,
  // The hot task (every connection on one row): whatever the request changes, the floor is the one
  // UPDATE of that row, autocommit, as the issue states it.
  hot: (request) =>
    sql`update tasks set title = ${request.body.title ?? `Hot status ${request.body.status}`}, updated_at = now() where id = ${request.params.id} returning id`,
  comment: (request, userId) => sql`
    insert into comments (id, task_id, project_id, author_id, text, created_at, updated_at)
    select ${uuidv7()}, id, project_id, ${userId}, ${request.body.text}, ${now()}, ${now()} from tasks where id = ${request.params.id}
    returning id`,
};
const run = (operation, request, userId) => bare[operation](request, userId);

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

await sql`create sequence if not exists bench_floor_task_number start 1000000000 maxvalue 2147483647`;
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
route(
  'PATCH',
  '/api/v1/tasks/:id',
  (request) => (request.params.id === HOT_TASK_ID ? 'hot' : request.body.status !== undefined ? 'patch' : request.body.title !== undefined ? 'title' : 'assign'),
  (rows) => rows[0] ?? {},
);
route('POST', '/api/v1/tasks/:id/comments', () => 'comment', (rows) => rows[0] ?? {});
app.addHook('onClose', () => sql.end({ timeout: 1 }));

process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
