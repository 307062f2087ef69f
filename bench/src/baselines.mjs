// The machine-speed reference, started as its own process: a bare Fastify route answering a
// constant, the ceiling of any Node HTTP service on this machine. No target is set against it; it
// tells how fast the machine was during a run. The floors of the scenarios are in floors.mjs.
// Usage: PORT=… node baselines.mjs hello
import Fastify from 'fastify';

if (process.argv[2] !== 'hello') {
  console.error('usage: baselines.mjs hello');
  process.exit(2);
}
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
