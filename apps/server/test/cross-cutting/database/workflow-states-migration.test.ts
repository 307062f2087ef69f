import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createDatabase, type Database, migrationsFolder } from '@tasklane/db';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app/app';
import { signTestToken } from '../../support/checks';
import { freshPostgresDatabase, testConfig } from '../../support/harness';

// Migration 0010 on a database that has lived before it: projects with tasks in every status (and
// their counts, kept by 0004's trigger) get the five default states, and keep their tasks,
// statuses, completion times and counts; the counts stay kept afterwards.

const BEFORE_STATES = '0009_events_dispatch';

/** The migrations up to and including 0009, as a folder of their own (removed by the caller). */
function migrationsBeforeStates(): string {
  const folder = mkdtempSync(join(tmpdir(), 'tasklane-migrations-'));
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { idx: number; tag: string }[] };
  const last = journal.entries.findIndex((entry) => entry.tag === BEFORE_STATES);
  journal.entries = journal.entries.slice(0, last + 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

const userId = randomUUID();
const projectIds = [randomUUID(), randomUUID()];
const STATUSES = ['TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELLED'];
const completedAt = '2026-11-20T10:00:00.000Z';

/** Data as the service before 0010 wrote it: a user, two projects, and tasks in every status of the first. */
const SEED = [
  `insert into users (id, name, email, password_hash) values ('${userId}', 'Old timer', 'old@example.com', null)`,
  ...projectIds.map((id, index) => `insert into projects (id, name, owner_id) values ('${id}', 'Old ${index}', '${userId}')`),
  ...projectIds.map((id) => `insert into memberships (id, project_id, user_id, role) values ('${randomUUID()}', '${id}', '${userId}', 'ADMIN')`),
  ...STATUSES.flatMap((status, index) =>
    Array.from(
      { length: index + 1 },
      (_, n) =>
        `insert into tasks (id, project_id, title, status, created_by_id, completed_at) values ('${randomUUID()}', '${projectIds[0]}', '${status} ${n}', '${status}', '${userId}', ${status === 'DONE' ? `'${completedAt}'` : 'null'})`,
    ),
  ),
];

/** A database migrated to 0009 and seeded, then opened as the server opens it (which migrates the rest). */
async function upgradedDatabase(folder: string): Promise<{ database: Database; drop: () => Promise<void> }> {
  if (process.env.TEST_DB === 'postgres') {
    const fresh = await freshPostgresDatabase();
    const url = fresh.url(Number(new URL(process.env.TEST_DATABASE_URL!).port || 5432));
    const client = postgres(url, { max: 1, onnotice: () => {} });
    await migratePostgres(drizzlePostgres(client), { migrationsFolder: folder });
    for (const statement of SEED) await client.unsafe(statement);
    await client.end();
    const database = await createDatabase({ kind: 'postgres', url, poolSize: 2 });
    await database.migrate();
    return {
      database,
      drop: async () => {
        await database.close();
        await fresh.drop();
      },
    };
  }
  const client = await PGlite.create({ extensions: { pg_trgm } });
  await migratePglite(drizzlePglite(client), { migrationsFolder: folder });
  for (const statement of SEED) await client.exec(statement);
  const dump = (await client.dumpDataDir('none')) as Blob;
  await client.close();
  const database = await createDatabase({ kind: 'pglite', loadDataDir: dump });
  await database.migrate();
  return { database, drop: () => database.close() };
}

describe('migration 0010: workflow states on an existing database', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let token: string;

  beforeAll(async () => {
    const folder = migrationsBeforeStates();
    try {
      ({ database, drop } = await upgradedDatabase(folder));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    app = await buildApp(testConfig(), { database, logger: false });
    await app.ready();
    token = await signTestToken(userId);
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });

  const get = async (url: string) => {
    const response = await app.inject({ method: 'GET', url: `/api/v1${url}`, headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };

  it('gives every existing project the five default states, in order', async () => {
    for (const projectId of projectIds) {
      expect(await get(`/projects/${projectId}/states`)).toMatchObject([
        { key: 'TODO', name: 'To do', category: 'unstarted', color: '#6b7280', position: 0, projectId },
        { key: 'IN_PROGRESS', name: 'In progress', category: 'started', color: '#2563eb', position: 1 },
        { key: 'IN_REVIEW', name: 'In review', category: 'started', color: '#9333ea', position: 2 },
        { key: 'DONE', name: 'Done', category: 'completed', color: '#16a34a', position: 3 },
        { key: 'CANCELLED', name: 'Cancelled', category: 'cancelled', color: '#dc2626', position: 4 },
      ]);
    }
  });

  it('keeps every task with its status and completion time, and the counts by key', async () => {
    const tasks = (await get(`/tasks/project/${projectIds[0]}?limit=100`)) as { title: string; status: string; completedAt: string | null }[];
    expect(tasks).toHaveLength(15);
    for (const task of tasks) {
      expect(task.title.startsWith(`${task.status} `)).toBe(true);
      expect(task.completedAt).toBe(task.status === 'DONE' ? completedAt : null);
    }
    expect((await get(`/projects/${projectIds[0]}`)).taskCounts).toEqual({ TODO: 1, IN_PROGRESS: 2, IN_REVIEW: 3, DONE: 4, CANCELLED: 5 });
    expect((await get(`/projects/${projectIds[1]}`)).taskCounts).toEqual({ TODO: 0, IN_PROGRESS: 0, IN_REVIEW: 0, DONE: 0, CANCELLED: 0 });
    expect(((await get(`/tasks/project/${projectIds[0]}?statusCategory=completed`)) as unknown[]).length).toBe(4);
  });

  it('keeps counting after the upgrade (the count trigger works on keys)', async () => {
    const [task] = (await get(`/tasks/project/${projectIds[0]}?status=TODO`)) as { id: string }[];
    const moved = await app.inject({ method: 'PATCH', url: `/api/v1/tasks/${task!.id}`, headers: { authorization: `Bearer ${token}` }, payload: { status: 'DONE' } });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().completedAt).toEqual(expect.any(String));
    expect((await get(`/projects/${projectIds[0]}`)).taskCounts).toEqual({ TODO: 0, IN_PROGRESS: 2, IN_REVIEW: 3, DONE: 5, CANCELLED: 5 });
  });
});
