import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '@tasklane/db';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/sql';
import { multipartBody } from './support/attachments';
import { freshPostgresDatabase } from './support/harness';
import { freePort } from './support/ports';
import { call, startServerProcess, type ServerProcess } from './support/server-process';

/**
 * An import survives its server: killed (SIGKILL) while the import runs, the server leaves no part
 * of the project behind, and once restarted it takes the import up again (its lease ran out) and
 * writes the project exactly once. On PostgreSQL the kill comes while the project's rows are being
 * written (progress shows tasks written, uncommitted). PGlite's one connection is held by the
 * write, so no request can see it under way: there the kill comes half a second after the upload,
 * whichever step the job is at, and the outcome must be the same.
 */
const onPostgres = process.env.TEST_DB === 'postgres';
const ROWS = 20_000;

describe('an import across a restart', () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tasklane-import-'));
    const database = onPostgres ? await freshPostgresDatabase() : undefined;
    env = { DATA_DIR: dataDir, IMPORT_LEASE_MS: '1000', IMPORT_POLL_MS: '100', ...(database ? { DATABASE_URL: database.url(5432) } : {}) };
    cleanup = async () => {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(() => cleanup());

  async function stop(server: ServerProcess, signal: NodeJS.Signals) {
    server.child.kill(signal);
    await server.exited;
  }

  it('is written once, whole, after a SIGKILL in the middle of it', async () => {
    const port = await freePort();
    const first = await startServerProcess(env, port);
    const registered = await call(first.baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Restart', email: 'restart@example.com', password: 'password-123' } });
    const token: string = registered.body.access_token;
    const csv = ['Title,Notes', ...Array.from({ length: ROWS }, (_, i) => `Task ${i + 1},"Notes of task ${i + 1}, with a comma"`)].join('\n');
    const { body, contentType } = multipartBody([
      { name: 'source', content: 'csv' },
      { name: 'mapping', content: JSON.stringify({ title: 'Title', description: 'Notes' }) },
      { name: 'file', filename: 'big.csv', content: csv },
    ]);
    const queued = await fetch(`${first.baseUrl}/api/v1/imports`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
    expect(queued.status).toBe(202);
    const { id } = (await queued.json()) as { id: string };

    if (onPostgres) {
      for (;;) {
        const seen = (await call(first.baseUrl, 'GET', `/api/v1/imports/${id}`, { token })).body;
        if (seen.status === 'succeeded') throw new Error('the import finished before the kill: make ROWS larger');
        if (seen.status === 'running' && seen.progress.done > 0) {
          expect(seen.progress).toMatchObject({ total: ROWS });
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } else {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await stop(first, 'SIGKILL');

    // Nothing of the project was kept (the write is one transaction), and the import waits to run again.
    const database = await createDatabase(onPostgres ? { kind: 'postgres', url: env.DATABASE_URL! } : { kind: 'pglite', dataDir: join(env.DATA_DIR!, 'pgdata') });
    try {
      const [left] = rowsOf<{ projects: number; tasks: number; status: string }>(
        await database.db.execute(sql`select (select count(*)::int from projects) as projects, (select count(*)::int from tasks) as tasks, (select status from imports) as status`),
      );
      expect(left).toEqual({ projects: 0, tasks: 0, status: expect.stringMatching(/^(pending|running)$/) });
    } finally {
      await database.close();
    }

    const second = await startServerProcess(env, port);
    try {
      let outcome: { status: string; projectId: string; progress: { done: number } };
      for (;;) {
        outcome = (await call(second.baseUrl, 'GET', `/api/v1/imports/${id}`, { token })).body;
        if (outcome.status === 'succeeded' || outcome.status === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(outcome).toMatchObject({ status: 'succeeded', progress: { done: ROWS } });
      const projects = (await call(second.baseUrl, 'GET', '/api/v1/projects', { token })).body as { id: string }[];
      expect(projects.map((project) => project.id)).toEqual([outcome.projectId]);
      const detail = (await call(second.baseUrl, 'GET', `/api/v1/projects/${outcome.projectId}`, { token })).body;
      expect(detail.taskCounts).toEqual({ TODO: ROWS, DONE: 0 });
      const last = (await call(second.baseUrl, 'GET', `/api/v1/tasks/project/${outcome.projectId}?limit=1&sort=-position`, { token })).body;
      expect(last[0]).toMatchObject({ title: `Task ${ROWS}`, description: `Notes of task ${ROWS}, with a comma`, key: `${detail.key}-${ROWS}` });
    } finally {
      await stop(second, 'SIGTERM');
    }
  }, 300_000);
});
