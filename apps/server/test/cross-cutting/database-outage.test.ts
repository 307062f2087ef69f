import { readdirSync } from 'node:fs';
import { migrationsFolder } from '@tasklane/db';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/app';
import { expectErrorBody } from '../support/checks';
import { testConfig, type TestApp } from '../support/harness';
import { freshPostgresDatabase as freshDatabase } from '../support/harness';
import { tcpProxy } from '../support/tcp-proxy';

/**
 * PostgreSQL only (PGlite lives in the process and cannot become unreachable). The machine's
 * PostgreSQL is shared, so the outage is a TCP proxy in front of it that this test stops and starts.
 */
const onPostgres = process.env.TEST_DB === 'postgres';

describe.runIf(onPostgres)('PostgreSQL unreachable', () => {
  const proxy = tcpProxy(Number(new URL(process.env.TEST_DATABASE_URL ?? 'postgres://x@127.0.0.1:5432/').port || 5432));
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let t: Pick<TestApp, 'app'>;
  let token: string;

  beforeAll(async () => {
    database = await freshDatabase();
    await proxy.start();
    const app = await buildApp(testConfig({ databaseUrl: database.url(proxy.port()) }), { logger: false });
    await app.ready();
    t = { app };
    const registered = await app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { name: 'Ops', email: 'ops@example.com', password: 'password-123' } });
    token = registered.json().access_token;
  });
  afterAll(async () => {
    await t.app.close();
    await proxy.stop();
    await database.drop();
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  it('answers 503 in the error body while it is down, reports not ready, and recovers by itself', async () => {
    expect((await get('/api/v1/projects')).statusCode).toBe(200);
    expect((await get('/readyz')).statusCode).toBe(200);

    await proxy.stop();
    for (const url of ['/api/v1/projects', '/api/v1/auth/me']) {
      const response = await get(url);
      expectErrorBody({ status: response.statusCode, body: response.json(), headers: response.headers }, 503, { reason: 'DATABASE_UNAVAILABLE' });
      // A restart or a failover takes seconds: the client is told when to try again.
      expect(response.headers['retry-after']).toBe('1');
    }
    const trpc = await get('/api/trpc/projects.list');
    expect(trpc.statusCode).toBe(503);
    expect(trpc.json().error.data).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'DATABASE_UNAVAILABLE' });
    expect(trpc.headers['retry-after']).toBe('1');
    expect((await get('/readyz')).statusCode).toBe(503);
    expect((await get('/healthz')).statusCode).toBe(200);

    await proxy.start();
    expect((await get('/readyz')).statusCode).toBe(200);
    expect((await get('/api/v1/projects')).statusCode).toBe(200);
  });
});

describe.runIf(onPostgres)('migrations on an empty PostgreSQL database', () => {
  it('two instances starting at once both come up and the migrations are applied once', async () => {
    const database = await freshDatabase();
    try {
      const url = database.url(5432);
      const instances = await Promise.all([0, 1].map(() => buildApp(testConfig({ databaseUrl: url }), { logger: false })));
      for (const app of instances) {
        const response = await app.inject({ method: 'GET', url: '/readyz' });
        expect(response.statusCode).toBe(200);
      }
      await Promise.all(instances.map((app) => app.close()));
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      const applied = await sql`select hash from drizzle.__drizzle_migrations`;
      const distinct = new Set(applied.map((row) => row.hash));
      expect(applied.length).toBe(readdirSync(migrationsFolder).filter((file) => file.endsWith('.sql')).length);
      expect(distinct.size).toBe(applied.length);
      await sql.end();
    } finally {
      await database.drop();
    }
  });
});
