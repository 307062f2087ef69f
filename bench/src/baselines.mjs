// The two same-run baselines, each started as its own process:
//   hello — bare Fastify answering a constant: the ceiling of any Node HTTP service on this machine;
//   floor — bare Fastify verifying the HS256 token with jose and reading one task by primary key with
//           postgres.js: what any implementation built from our components must pay per request.
// Usage: PORT=… [DATABASE_URL=… JWT_SECRET=…] node baselines.mjs hello|floor
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import { availableParallelism } from 'node:os';
import postgres from 'postgres';

const kind = process.argv[2];
const app = Fastify({ logger: false });

if (kind === 'hello') {
  app.get('/', async () => ({ hello: 'world' }));
} else if (kind === 'floor') {
  // The same pool as the server's: DATABASE_POOL_SIZE, or its default (apps/server/src/config.ts
  // defaultPoolSize), so neither side gains from a pool size the other does not have.
  const max = Number(process.env.DATABASE_POOL_SIZE) || Math.min(10, availableParallelism() + 1);
  const sql = postgres(process.env.DATABASE_URL, { max, onnotice: () => {} });
  const key = new TextEncoder().encode(process.env.JWT_SECRET);
  app.get('/', async () => (await sql`select 1 as ready`)[0]);
  app.get('/tasks/:id', async (request, reply) => {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!token) return reply.code(401).send({ message: 'no token' });
    try {
      await jwtVerify(token, key, { algorithms: ['HS256'] });
    } catch {
      return reply.code(401).send({ message: 'bad token' });
    }
    const [row] = await sql`select * from tasks where id = ${request.params.id}`;
    return row ?? reply.code(404).send({ message: 'not found' });
  });
  app.addHook('onClose', () => sql.end({ timeout: 1 }));
} else {
  console.error('usage: baselines.mjs hello|floor');
  process.exit(2);
}

process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
