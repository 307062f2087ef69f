import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../support/harness';
import { freePort } from '../support/ports';

const MAIN = new URL('../../dist/main.mjs', import.meta.url).pathname;
const running = new Set<ChildProcess>();

function start(port: number, env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', JWT_SECRET: 'cluster-test-secret-long-enough-for-hs256', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** The ids of a process's children, from /proc (the server runs on Linux here and in CI). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function waitUntilReady(url: string, exited: Promise<number | null>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (let attempt = 0; attempt < 300 && !gone; attempt += 1) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the server did not become ready');
}

describe('WORKERS (cluster mode)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tasklane-cluster-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  // A server that did not stop as the test expected must not outlive it.
  afterEach(() => {
    for (const child of running) child.kill('SIGKILL');
  });

  it('refuses more than one worker on the embedded PGlite database, saying why', async () => {
    const server = start(await freePort(), { WORKERS: '2', DATA_DIR: dataDir });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('WORKERS=2');
    expect(server.output()).toContain('DATABASE_URL');
  });

  it('refuses a WORKERS value that is neither a number nor auto', async () => {
    const server = start(await freePort(), { WORKERS: 'many', DATA_DIR: dataDir });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('WORKERS');
  });

  it('refuses a DATABASE_POOL_SIZE that is not a positive number', async () => {
    const server = start(await freePort(), { DATABASE_POOL_SIZE: '0', DATA_DIR: dataDir });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('DATABASE_POOL_SIZE');
  });

  if (process.env.TEST_DB === 'postgres') {
    // Two pools: one set, and the default, documented as one connection more than the cores, at most 10.
    it.each([
      { pool: 'DATABASE_POOL_SIZE=2', env: { DATABASE_POOL_SIZE: '2' }, connections: 2 },
      { pool: 'the default pool', env: {} as Record<string, string>, connections: Math.min(10, availableParallelism() + 1) },
    ])('keeps to $connections connections ($pool) under concurrent load, queueing the rest', async ({ env, connections }) => {
      const { url, drop } = await openTestDatabase();
      const tagged = new URL(url!);
      tagged.searchParams.set('application_name', 'tasklane_pool_test');
      const port = await freePort();
      const server = start(port, { ...env, DATABASE_URL: tagged.toString() });
      const admin = postgres(url!, { max: 1, onnotice: () => {} });
      try {
        const base = `http://127.0.0.1:${port}`;
        await waitUntilReady(`${base}/readyz`, server.exited);
        const registered = await fetch(`${base}/api/v1/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Pool', email: 'pool@example.com', password: 'secret-password' }),
        });
        const { access_token: token } = (await registered.json()) as { access_token: string };
        const project = await fetch(`${base}/api/v1/projects`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ name: 'Pooled' }),
        });
        const { id } = (await project.json()) as { id: string };
        const statuses = await Promise.all(
          Array.from({ length: 40 }, () => fetch(`${base}/api/v1/projects/${id}`, { headers: { authorization: `Bearer ${token}` } }).then((response) => response.status)),
        );
        expect(statuses).toEqual(Array(40).fill(200));
        const [row] = await admin<{ count: number }[]>`select count(*)::int as count from pg_stat_activity where application_name = 'tasklane_pool_test'`;
        // The pooled connections, and the one LISTEN connection (token revocations, live events).
        expect(row?.count).toBeLessThanOrEqual(connections + 1);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
        await admin.end();
        await drop();
      }
    }, 60_000);

    it('serves from two worker processes sharing one port on PostgreSQL, and stops them on SIGTERM', async () => {
      const { url, drop } = await openTestDatabase();
      const port = await freePort();
      const server = start(port, { WORKERS: '2', DATABASE_URL: url! });
      try {
        const base = `http://127.0.0.1:${port}`;
        await waitUntilReady(`${base}/readyz`, server.exited);
        // Both workers listen once the second is up; until then the first one answers alone.
        for (let attempt = 0; attempt < 100 && childrenOf(server.child.pid!).length < 2; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(childrenOf(server.child.pid!)).toHaveLength(2);

        const registered = await fetch(`${base}/api/v1/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Cluster', email: 'cluster@example.com', password: 'secret-password' }),
        });
        expect(registered.status).toBe(201);
        const { access_token: token } = (await registered.json()) as { access_token: string };
        // Fresh connections land on either worker; each must accept a token the other issued.
        const statuses = await Promise.all(
          Array.from({ length: 20 }, () =>
            fetch(`${base}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}`, connection: 'close' } }).then((response) => response.status),
          ),
        );
        expect(statuses).toEqual(Array(20).fill(200));
      } finally {
        server.child.kill('SIGTERM');
        expect(await server.exited).toBe(0);
        await drop();
      }
      // Three Node processes start and stop here: on a busy machine that alone takes tens of seconds.
    }, 120_000);

    it('revokes a signed-out session and a personal access token at once on another instance of the same database', async () => {
      const { url, drop } = await openTestDatabase();
      // Each instance remembers a proven token for a minute: only the database's NOTIFY can make it refuse sooner.
      const env = { DATABASE_URL: url!, TOKEN_CHECK_CACHE_MS: '60000' };
      const [portA, portB] = [await freePort(), await freePort()];
      const a = start(portA, env);
      const b = start(portB, env);
      const call = (port: number, method: string, path: string, token?: string, body?: unknown) =>
        fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
          method,
          headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
      try {
        await waitUntilReady(`http://127.0.0.1:${portA}/readyz`, a.exited);
        await waitUntilReady(`http://127.0.0.1:${portB}/readyz`, b.exited);
        const credentials = { email: 'two-instances@example.com', password: 'secret-password' };
        const { access_token: session } = (await (await call(portA, 'POST', '/auth/register', undefined, { name: 'Two instances', ...credentials })).json()) as {
          access_token: string;
        };
        const { access_token: other } = (await (await call(portA, 'POST', '/auth/login', undefined, credentials)).json()) as { access_token: string };
        const pat = (await (await call(portA, 'POST', '/auth/tokens', session, { name: 'CI', scopes: ['read'] })).json()) as { id: string; token: string };
        const meOnB = async (token: string) => (await call(portB, 'GET', '/auth/me', token)).status;
        expect([await meOnB(other), await meOnB(pat.token), await meOnB(session)]).toEqual([200, 200, 200]);

        expect((await call(portA, 'DELETE', `/auth/tokens/${pat.id}`, session)).status).toBe(200);
        await expect.poll(() => meOnB(pat.token), { timeout: 10_000 }).toBe(401);
        expect((await call(portA, 'POST', '/auth/sessions/sign-out-others', session, {})).status).toBe(200);
        await expect.poll(() => meOnB(other), { timeout: 10_000 }).toBe(401);
        expect(await meOnB(session)).toBe(200);
      } finally {
        a.child.kill('SIGTERM');
        b.child.kill('SIGTERM');
        await Promise.all([a.exited, b.exited]);
        await drop();
      }
    }, 120_000);
  }
});
