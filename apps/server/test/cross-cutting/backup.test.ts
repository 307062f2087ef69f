import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { call, SERVER_ENTRY, startServerProcess, type ServerProcess } from '../support/server-process';
import { freePort } from '../support/ports';

const onPostgres = process.env.TEST_DB === 'postgres';
const ADMIN_TOKEN = 'admin-token-for-the-backup-test-0123456789';
const JWT_SECRET = 'process-test-secret-that-is-long-enough-for-hs256';
const scratch = mkdtempSync(join(tmpdir(), 'tasklane-backup-'));

/** `tasklane <command>` as an operator runs it. */
async function tasklane(env: Record<string, string>, ...args: string[]) {
  const result = await promisify(execFile)(process.execPath, [SERVER_ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', JWT_SECRET, ADMIN_TOKEN, BCRYPT_COST: '4', LOG_LEVEL: 'warn', ...env },
  });
  return result.stdout;
}

async function tasksOf(server: ServerProcess, token: string, projectId: string) {
  const page = await call(server.baseUrl, 'GET', `/api/v1/tasks/project/${projectId}?limit=500`, { token });
  expect(page.status).toBe(200);
  return page.body as { id: string; title: string; status: string; updatedAt: string }[];
}

describe('tasklane CLI: backup, restore, create-user, reset-password', () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it.runIf(onPostgres)('points PostgreSQL users to pg_dump / pg_restore', async () => {
    const failed = await tasklane({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }, 'backup', join(scratch, 'x')).catch((error: { stderr: string }) => error.stderr);
    expect(failed).toContain('pg_dump --format=custom');
  });

  it.runIf(!onPostgres)('backs up a live PGlite database under writes and restores it with identical data', async () => {
    // Held at once, so the three are distinct.
    const [livePort, restoredPort, quietPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const live = { DATA_DIR: join(scratch, 'live'), PORT: String(livePort), ADMIN_TOKEN, JWT_SECRET };
    const server = await startServerProcess(live, livePort);
    try {
      const registered = await call(server.baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Backup', email: 'backup@example.com', password: 'password-123' } });
      const token: string = registered.body.access_token;
      const project = await call(server.baseUrl, 'POST', '/api/v1/projects', { token, body: { name: 'Backed up' } });
      let writing = true;
      const acknowledged: string[] = [];
      const writers = Array.from({ length: 4 }, async (_, index) => {
        for (let sequence = 0; writing; sequence += 1) {
          const created = await call(server.baseUrl, 'POST', '/api/v1/tasks', { token, body: { projectId: project.body.id, title: `w${index}-${sequence}` } });
          if (created.status === 201) acknowledged.push(created.body.id);
        }
      });
      while (acknowledged.length < 30) await new Promise((resolve) => setTimeout(resolve, 20));
      const beforeBackup = [...acknowledged];
      await tasklane(live, 'backup', join(scratch, 'under-writes.tar.gz'));
      while (acknowledged.length < beforeBackup.length + 20) await new Promise((resolve) => setTimeout(resolve, 20));
      writing = false;
      await Promise.all(writers);
      await call(server.baseUrl, 'PATCH', `/api/v1/tasks/${acknowledged[0]}`, { token, body: { status: 'DONE' } });
      const liveTasks = await tasksOf(server, token, project.body.id);
      await tasklane(live, 'backup', join(scratch, 'quiet.tar.gz'));

      // the backup taken under writes: everything acknowledged before it, nothing that never existed
      const restoredEnv = { DATA_DIR: join(scratch, 'restored-1'), PORT: String(restoredPort) };
      await tasklane(restoredEnv, 'restore', join(scratch, 'under-writes.tar.gz'));
      const restored = await startServerProcess(restoredEnv, restoredPort);
      const underWrites = await tasksOf(restored, token, project.body.id);
      restored.child.kill('SIGTERM');
      await restored.exited;
      const restoredIds = new Set(underWrites.map((task) => task.id));
      expect(beforeBackup.filter((id) => !restoredIds.has(id))).toEqual([]);
      expect(underWrites.every((task) => acknowledged.includes(task.id))).toBe(true);

      // the quiet backup restores to exactly the live data; operators can add users and reset passwords
      const quietEnv = { DATA_DIR: join(scratch, 'restored-2'), PORT: String(quietPort) };
      await tasklane(quietEnv, 'restore', join(scratch, 'quiet.tar.gz'));
      await expect(tasklane(quietEnv, 'restore', join(scratch, 'quiet.tar.gz'))).rejects.toThrow(/not empty/);
      await tasklane({ ...quietEnv, TASKLANE_PASSWORD: 'operator-made-123' }, 'create-user', 'ops@example.com', 'Ops', 'Person');
      await tasklane({ ...quietEnv, TASKLANE_PASSWORD: 'reset-password-456' }, 'reset-password', 'backup@example.com');
      const quiet = await startServerProcess(quietEnv, quietPort);
      try {
        expect((await call(quiet.baseUrl, 'GET', '/api/v1/auth/me', { token })).status).toBe(401);
        const login = await call(quiet.baseUrl, 'POST', '/api/v1/auth/login', { body: { email: 'backup@example.com', password: 'reset-password-456' } });
        expect(login.status).toBe(200);
        expect(await tasksOf(quiet, login.body.access_token, project.body.id)).toEqual(liveTasks);
        const ops = await call(quiet.baseUrl, 'POST', '/api/v1/auth/login', { body: { email: 'ops@example.com', password: 'operator-made-123' } });
        expect(ops.body.user).toMatchObject({ email: 'ops@example.com', name: 'Ops Person' });
      } finally {
        quiet.child.kill('SIGTERM');
        await quiet.exited;
      }
      // without the admin token the live server does not hand its data out
      expect((await call(server.baseUrl, 'GET', '/admin/backup')).status).toBe(401);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 420_000);
});
