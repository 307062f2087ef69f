import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from '../support/harness';
import { freePort } from '../support/ports';
import { call, expectOneLineFailure, runTasklane, startServerProcess, type ServerProcess } from '../support/server-process';

/**
 * One process per PGlite data directory (a kernel lock on DATA_DIR/tasklane.lock), and the operator
 * commands reaching the server that runs on it (DATA_DIR/tasklane.sock). On PostgreSQL nothing is
 * locked: servers share the database and the commands work on it directly.
 */
const onPostgres = process.env.TEST_DB === 'postgres';
const scratch = mkdtempSync(join(tmpdir(), 'tasklane-data-dir-'));

const login = (server: ServerProcess, email: string, password: string) => call(server.baseUrl, 'POST', '/api/v1/auth/login', { body: { email, password } });

async function register(server: ServerProcess, email: string) {
  const registered = await call(server.baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Someone', email, password: 'password-123' } });
  expect(registered.status).toBe(201);
  return registered.body.access_token as string;
}

async function stop(server: ServerProcess) {
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}

describe('the data directory and the operator commands', () => {
  let base: Record<string, string>;
  let dropDatabase = async () => {};
  let directories = 0;
  /** Settings for a fresh data directory (and, on PostgreSQL, the database of this file). */
  const fresh = () => ({ ...base, DATA_DIR: join(scratch, `data-${(directories += 1)}`) });

  beforeAll(async () => {
    if (!onPostgres) return void (base = {});
    const database = await freshPostgresDatabase();
    base = { DATABASE_URL: database.url(5432) };
    dropDatabase = database.drop;
  });
  afterAll(async () => {
    await dropDatabase();
    rmSync(scratch, { recursive: true, force: true });
  });

  it.runIf(!onPostgres)('refuses a second server, and every offline command, on a directory a server runs on: one line naming its pid; the first serves on and loses nothing', async () => {
    const env = fresh();
    const [port, otherPort] = await Promise.all([freePort(), freePort()]);
    const first = await startServerProcess(env, port);
    try {
      await register(first, 'before@example.com');
      const inUse = new RegExp(`^${env.DATA_DIR} is in use by process ${first.child.pid} \\(tasklane serve\\): stop that server first`);
      expectOneLineFailure(await runTasklane({ ...env, PORT: String(otherPort) }, 'serve'), inUse);
      expectOneLineFailure(await runTasklane(env, 'migrate'), inUse);
      expectOneLineFailure(await runTasklane(env, 'restore', join(scratch, 'no-such-backup.tar.gz')), inUse);
      expect(JSON.parse(readFileSync(join(env.DATA_DIR, 'tasklane.lock'), 'utf8'))).toEqual({ pid: first.child.pid, command: 'serve' });
      // the first server is unharmed: it serves old and new accounts, and they outlive a restart
      expect((await login(first, 'before@example.com', 'password-123')).status).toBe(200);
      await register(first, 'after@example.com');
    } finally {
      await stop(first);
    }
    // The embedded database keeps a 32 MB buffer pool from then on (docs/performance.md, "Start and idle memory").
    expect(readFileSync(join(env.DATA_DIR, 'pgdata', 'postgresql.auto.conf'), 'utf8')).toMatch(/^shared_buffers = '32MB'$/m);
    const again = await startServerProcess(env, port);
    try {
      for (const email of ['before@example.com', 'after@example.com']) expect((await login(again, email, 'password-123')).status).toBe(200);
    } finally {
      await stop(again);
    }
  }, 180_000);

  it.runIf(!onPostgres)('a new DATA_DIR starts from the bundled template, migrated, with the 32 MB buffer pool from the first start; a restart finds its database', async () => {
    const env = { ...fresh(), LOG_LEVEL: 'info' };
    const first = await startServerProcess(env, await freePort());
    try {
      // The template is the built server's own (dist/pglite-template.tar.gz): no initdb, no migrations.
      expect(first.output()).toContain('made the embedded database in DATA_DIR/pgdata from the bundled template');
      await register(first, 'templated@example.com');
    } finally {
      await stop(first);
    }
    expect(readFileSync(join(env.DATA_DIR, 'pgdata', 'postgresql.auto.conf'), 'utf8')).toMatch(/^shared_buffers = '32MB'$/m);
    const again = await startServerProcess(env, await freePort());
    try {
      expect(again.output()).not.toContain('made the embedded database');
      expect((await login(again, 'templated@example.com', 'password-123')).status).toBe(200);
    } finally {
      await stop(again);
    }
  });

  it.runIf(!onPostgres)('a SIGKILLed server leaves no lock behind: the commands and the next server open the directory at once', async () => {
    const env = fresh();
    const port = await freePort();
    const killed = await startServerProcess(env, port);
    await register(killed, 'survivor@example.com');
    killed.child.kill('SIGKILL');
    expect(await killed.exited).toBe('SIGKILL');
    // its socket file is left behind, answering nobody: the command opens the directory itself
    const created = await runTasklane({ ...env, TASKLANE_PASSWORD: 'made-offline-123' }, 'create-user', 'offline@example.com', 'Off', 'Line');
    expect(created).toMatchObject({ code: 0, stderr: '', stdout: expect.stringMatching(/^Created user offline@example\.com /) });
    const next = await startServerProcess(env, port);
    try {
      expect((await login(next, 'survivor@example.com', 'password-123')).status).toBe(200);
      expect((await login(next, 'offline@example.com', 'made-offline-123')).status).toBe(200);
    } finally {
      await stop(next);
    }
  }, 180_000);

  it('create-user and reset-password against a running server, without ADMIN_TOKEN: it sees the change at once', async () => {
    const env = fresh();
    const server = await startServerProcess(env, await freePort());
    try {
      const oldToken = await register(server, 'ada@example.com');
      const created = await runTasklane({ ...env, TASKLANE_PASSWORD: 'operator-made-123' }, 'create-user', 'ops@example.com', 'Ops', 'Person');
      expect(created).toMatchObject({ code: 0, stderr: '', stdout: expect.stringMatching(/^Created user ops@example\.com \(/) });
      const ops = await login(server, 'ops@example.com', 'operator-made-123');
      expect(ops).toMatchObject({ status: 200, body: { user: { email: 'ops@example.com', name: 'Ops Person' } } });

      const reset = await runTasklane({ ...env, TASKLANE_PASSWORD: 'reset-password-456' }, 'reset-password', 'ada@example.com');
      expect(reset).toMatchObject({ code: 0, stdout: 'Password of ada@example.com replaced; their sessions are signed out and reset links ended (personal access tokens keep working).\n' });
      expect((await login(server, 'ada@example.com', 'reset-password-456')).status).toBe(200);
      expect((await login(server, 'ada@example.com', 'password-123')).status).toBe(401);
      // revocations reach the server's token cache by notification: allow it a moment on a busy machine
      await expect.poll(async () => (await call(server.baseUrl, 'GET', '/api/v1/auth/me', { token: oldToken })).status, { timeout: 20_000, interval: 100 }).toBe(401);

      // refusals come back as the one line the command prints
      expectOneLineFailure(await runTasklane({ ...env, TASKLANE_PASSWORD: 'operator-made-123' }, 'create-user', 'ops@example.com', 'Again'), /^This email is already registered$/);
      expectOneLineFailure(await runTasklane({ ...env, TASKLANE_PASSWORD: 'short' }, 'create-user', 'new@example.com', 'New'), /^password: /);
      expectOneLineFailure(await runTasklane({ ...env, TASKLANE_PASSWORD: 'long-enough-123' }, 'reset-password', 'nobody@example.com'), /^No user with this email$/);
    } finally {
      await stop(server);
    }
  }, 180_000);

  it.runIf(!onPostgres)('backup of a running server without ADMIN_TOKEN holds the accounts made since it started; its socket is the owner\'s alone', async () => {
    const env = fresh();
    const [port, restoredPort] = await Promise.all([freePort(), freePort()]);
    const server = await startServerProcess(env, port);
    const socket = statSync(join(env.DATA_DIR, 'tasklane.sock'));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    try {
      await register(server, 'since-start@example.com');
      const file = join(scratch, 'live.tar.gz');
      expect(await runTasklane({ ...env, PORT: String(port) }, 'backup', file)).toMatchObject({ code: 0, stdout: `Backup of the running server written to ${file}.\nAttachment files included: 0.\n` });
      // the channel is not on the network
      expect((await call(server.baseUrl, 'GET', '/backup')).status).toBe(404);

      const restoredEnv = fresh();
      expect((await runTasklane(restoredEnv, 'restore', file)).code).toBe(0);
      const restored = await startServerProcess(restoredEnv, restoredPort);
      try {
        expect((await login(restored, 'since-start@example.com', 'password-123')).status).toBe(200);
      } finally {
        await stop(restored);
      }
    } finally {
      await stop(server);
    }
  }, 180_000);

  it.runIf(!onPostgres)('a DATA_DIR path too long for a UNIX socket: the server starts without the channel, saying so, and the directory stays locked', async () => {
    const env = { DATA_DIR: join(scratch, 'a-data-directory-whose-path-is-longer-than-any-unix-socket-path-may-be-'.repeat(2)) };
    const server = await startServerProcess(env, await freePort());
    try {
      await expect.poll(() => server.output(), { timeout: 20_000 }).toContain("DATA_DIR's path is too long for a UNIX socket");
      const refused = await runTasklane({ ...env, TASKLANE_PASSWORD: 'long-enough-123' }, 'create-user', 'late@example.com', 'Late');
      expectOneLineFailure(refused, new RegExp(`is in use by process ${server.child.pid} \\(tasklane serve\\)`));
    } finally {
      await stop(server);
    }
  }, 180_000);

  it.runIf(onPostgres)('on PostgreSQL nothing is locked: two servers share the database, and the commands write to it directly', async () => {
    const env = fresh();
    const [port, otherPort] = await Promise.all([freePort(), freePort()]);
    const first = await startServerProcess(env, port);
    const second = await startServerProcess(env, otherPort);
    try {
      await register(first, 'shared@example.com');
      expect((await login(second, 'shared@example.com', 'password-123')).status).toBe(200);
    } finally {
      await Promise.all([stop(first), stop(second)]);
    }
  }, 180_000);
});
