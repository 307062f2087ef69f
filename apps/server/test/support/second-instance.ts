import { createDatabase } from '@tasklane/db';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app/app';
import type { Config } from '../../src/platform/config';
import { testConfig, type TestApp } from './harness';

/**
 * A second server on the test's database, as another instance would run: on PostgreSQL with a
 * connection pool (and LISTEN connection) of its own, on PGlite (one process) on the same database.
 * It remembers proven tokens for a minute, so only the database's announcement can make it refuse
 * a revoked one quickly.
 */
export async function startSecondInstance(t: TestApp, overrides: Partial<Config> = {}): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const database = t.databaseUrl ? await createDatabase({ kind: 'postgres', url: t.databaseUrl, poolSize: 2 }) : t.database;
  const app = await buildApp(testConfig({ tokenCheckCacheMs: 60_000, ...overrides }), { database, logger: false });
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      if (database !== t.database) await database.close();
    },
  };
}

/** The status of GET /auth/me with `token` on `app`. */
export const meStatus = async (app: FastifyInstance, token: string) =>
  (await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${token}` } })).statusCode;
