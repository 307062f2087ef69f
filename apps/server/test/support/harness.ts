import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createDatabase, type Database } from '@tasklane/db';
import type { FastifyInstance } from 'fastify';
import postgres from 'postgres';
import { inject } from 'vitest';
import { buildApp } from '../../src/app/app';
import type { Config } from '../../src/platform/config';
import { assertDocumented } from './openapi-conformance';

export const testConfig = (overrides: Partial<Config> = {}): Config => ({
  port: 0,
  host: '127.0.0.1',
  dataDir: '/tmp/tasklane-test-unused',
  databasePooler: 'none',
  jwtSecret: 'test-secret-that-is-long-enough-for-hs256-signing',
  jwtTtlSeconds: 3600,
  logLevel: 'silent',
  authRateLimit: 100_000,
  tokenRateLimit: 0,
  tokenCheckCacheMs: 5000,
  corsOrigins: [],
  trustProxy: false,
  bcryptCost: 4,
  workers: 1,
  eventHeartbeatMs: 15_000,
  eventMaxQueued: 1000,
  webhooks: { allowPrivate: true, pollMs: 1000, timeoutMs: 5000, retryBaseMs: 1000, retryMaxDelayMs: 60_000, retryWindowMs: 86_400_000, logRetentionMs: 7 * 86_400_000 },
  reminders: { windowSeconds: 86_400, pollMs: 60_000 },
  dispatch: { enabled: true, pollMs: 5000, settleMs: 2000 },
  // An upload wakes the job at once; a poll would add statements to the tests that count them.
  imports: { maxBytes: 52_428_800, pollMs: 3_600_000, leaseMs: 30_000 },
  publicUrl: 'http://tasklane.test',
  passwordLogin: true,
  attachments: { maxBytes: 26_214_400, linkTtlSeconds: 300, sweepIntervalMs: 3_600_000, temporaryMaxAgeMs: 3_600_000 },
  ...overrides,
});

/** A database of its own for one test file: a PGlite clone, or a fresh PostgreSQL database. */
/** `url` (PostgreSQL only) lets a test open a second connection pool, as a second instance would. */
export async function openTestDatabase(): Promise<{ database: Database; drop: () => Promise<void>; url?: string }> {
  if (process.env.TEST_DB === 'postgres') {
    const url = process.env.TEST_DATABASE_URL!;
    const name = `tasklane_test_${randomBytes(6).toString('hex')}`;
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const databaseUrl = new URL(url);
    databaseUrl.pathname = `/${name}`;
    const database = await createDatabase({ kind: 'postgres', url: databaseUrl.toString(), poolSize: 5 });
    await database.migrate();
    return {
      database,
      url: databaseUrl.toString(),
      drop: async () => {
        await database.close();
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  const template = await readFile(inject('pgliteTemplate'));
  const database = await createDatabase({ kind: 'pglite', loadDataDir: new Blob([template]) });
  return { database, drop: () => database.close() };
}

/** An empty PostgreSQL database of its own (not migrated), reachable through any port (a proxy's). */
export async function freshPostgresDatabase(): Promise<{ url: (port: number) => string; drop: () => Promise<void> }> {
  const admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  const name = `tasklane_outage_${randomBytes(6).toString('hex')}`;
  await admin.unsafe(`create database ${name}`);
  return {
    url: (port) => {
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.port = String(port);
      url.pathname = `/${name}`;
      return url.toString();
    },
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent verbatim, for malformed bodies (and multipart ones). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  /** PostgreSQL only: the test database's URL, for another instance's own connections. */
  databaseUrl?: string;
  request<T = any>(method: string, url: string, options?: RequestOptions): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

/** A sink for the server's log (startTestApp's `logStream`) and everything written to it so far. */
export function capturedLog(): { stream: PassThrough; text: () => string } {
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
  return { stream, text: () => lines.join('') };
}

/** `logStream`: the server's own logger writes there (otherwise tests log nothing). */
export async function startTestApp(overrides: Partial<Config> = {}, { logStream }: { logStream?: NodeJS.WritableStream } = {}): Promise<TestApp> {
  const { database, drop, url } = await openTestDatabase();
  // A data directory of its own (imports and attachments keep files there), gone with the app; unless the test gives one.
  const ownDataDir = overrides.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'tasklane-test-')) : undefined;
  const app = await buildApp(testConfig({ ...(ownDataDir ? { dataDir: ownDataDir } : {}), ...overrides }), { database, ...(logStream ? { logStream } : { logger: false }) });
  await app.ready();
  return {
    app,
    database,
    ...(url ? { databaseUrl: url } : {}),
    async request(method, url, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let payload: string | Buffer | undefined;
      if (options.rawBody !== undefined) payload = options.rawBody;
      else if (options.body !== undefined) {
        payload = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
      const text = response.body;
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      const received = { status: response.statusCode, body: body as never, headers: response.headers };
      await assertDocumented(app, method, url, received);
      return received;
    },
    async close() {
      await app.close();
      await drop();
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}

let userCounter = 0;

export interface TestUser {
  id: string;
  name: string;
  email: string;
  password: string;
  token: string;
}

export async function registerUser(t: TestApp, name = 'User'): Promise<TestUser> {
  userCounter += 1;
  const email = `user${userCounter}-${randomBytes(4).toString('hex')}@example.com`;
  const password = 'password-123';
  const response = await t.request('POST', '/api/v1/auth/register', { body: { name, email, password } });
  if (response.status !== 201) throw new Error(`register failed: ${response.status} ${JSON.stringify(response.body)}`);
  return { ...response.body.user, password, token: response.body.access_token };
}

export async function createProject(t: TestApp, owner: TestUser, name = 'Project') {
  const response = await t.request('POST', '/api/v1/projects', { token: owner.token, body: { name } });
  if (response.status !== 201) throw new Error(`create project failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; name: string; ownerId: string };
}

export async function invite(t: TestApp, admin: TestUser, projectId: string, user: TestUser, role: string) {
  const response = await t.request('POST', `/api/v1/projects/${projectId}/members/invite`, {
    token: admin.token,
    body: { email: user.email, role },
  });
  if (response.status !== 201) throw new Error(`invite failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; userId: string; role: string };
}

export type Cast = Record<'VIEWER' | 'EDITOR' | 'ADMIN' | 'owner', TestUser>;

/** A project of the cast's owner with the cast's VIEWER, EDITOR and ADMIN members in those roles; their membership ids by user id. */
export async function castProject(t: TestApp, cast: Cast, name = 'Shared') {
  const projectId = (await createProject(t, cast.owner, name)).id;
  const memberIds = new Map<string, string>();
  for (const role of ['VIEWER', 'EDITOR', 'ADMIN'] as const) memberIds.set(cast[role].id, (await invite(t, cast.owner, projectId, cast[role], role)).id);
  return { projectId, memberIds };
}

export async function createTask(t: TestApp, user: TestUser, projectId: string, body: Record<string, unknown> = {}) {
  const response = await t.request('POST', '/api/v1/tasks', { token: user.token, body: { title: 'Task', projectId, ...body } });
  if (response.status !== 201) throw new Error(`create task failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; title: string; status: string; assigneeId: string | null };
}
