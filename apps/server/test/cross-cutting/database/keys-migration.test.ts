import { createDatabase, type Database, migrationsFolder } from '@tasklane/db';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app/app';
import { freshPostgresDatabase, testConfig } from '../../support/harness';

// Migration 0011 on a database that already holds projects and tasks (as one made before it does):
// each project gets a key derived from its name (older projects first, so the older one keeps the
// plain stem), each task a number in creation order, and the numbering goes on from there.

/** The migrations before task keys (0010 and later are applied by migrate(), as at an upgrade). */
const BEFORE = readMigrationFiles({ migrationsFolder }).filter((migration) => migration.folderMillis < 1_796_000_000_000);

let database: Database;
let drop: () => Promise<void>;
let app: FastifyInstance;

const OWNER = '0193a5b4-0000-7000-8000-000000000001';
const project = (n: number) => `0193a5b4-0000-7000-8000-0000000001${String(n).padStart(2, '0')}`;
const task = (n: number) => `0193a5b4-0000-7000-8000-0000000002${String(n).padStart(2, '0')}`;

/** The database as migrations 0000–0009 left it, recorded as drizzle's migrator records them, with data in it. */
async function databaseBeforeKeys(): Promise<void> {
  if (process.env.TEST_DB === 'postgres') {
    const fresh = await freshPostgresDatabase();
    database = await createDatabase({ kind: 'postgres', url: fresh.url(Number(new URL(process.env.TEST_DATABASE_URL!).port || 5432)), poolSize: 2 });
    drop = async () => {
      await database.close();
      await fresh.drop();
    };
  } else {
    database = await createDatabase({ kind: 'pglite' });
    drop = () => database.close();
  }
  const { db } = database;
  await db.execute(sql`create schema if not exists drizzle`);
  await db.execute(sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`);
  for (const migration of BEFORE) {
    for (const statement of migration.sql) if (statement.trim()) await db.execute(sql.raw(statement));
    await db.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`);
  }
  const rows = `
    insert into users (id, name, email, password_hash) values ('${OWNER}', 'Owner', 'owner@example.com', null);
    insert into projects (id, name, owner_id, created_at) values
      ('${project(1)}', 'Engineering', '${OWNER}', '2026-01-01T00:00:00Z'),
      ('${project(2)}', 'Engineering', '${OWNER}', '2026-01-02T00:00:00Z'),
      ('${project(3)}', 'Website relaunch', '${OWNER}', '2026-01-03T00:00:00Z'),
      ('${project(4)}', '¿?', '${OWNER}', '2026-01-04T00:00:00Z');
    insert into memberships (id, project_id, user_id, role) select gen_random_uuid(), id, '${OWNER}', 'ADMIN' from projects;
    insert into tasks (id, project_id, title, created_by_id, created_at) values
      ('${task(1)}', '${project(1)}', 'Second made', '${OWNER}', '2026-02-02T00:00:00Z'),
      ('${task(2)}', '${project(1)}', 'First made', '${OWNER}', '2026-02-01T00:00:00Z'),
      ('${task(3)}', '${project(1)}', 'Third made', '${OWNER}', '2026-02-03T00:00:00Z'),
      ('${task(4)}', '${project(3)}', 'Only one', '${OWNER}', '2026-02-01T00:00:00Z')`;
  for (const statement of rows.split(';')) await db.execute(sql.raw(statement));
}

beforeAll(async () => {
  await databaseBeforeKeys();
  await database.migrate();
  app = await buildApp(testConfig(), { database, logger: false });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await drop?.();
});

const tokenOf = async () => {
  const registered = await app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { name: 'Reader', email: 'reader@example.com', password: 'password-123' } });
  const { access_token: token, user } = registered.json();
  // The existing owner is not a user one can log in as; the reader joins each project instead.
  await database.db.execute(sql.raw(`insert into memberships (id, project_id, user_id, role) select gen_random_uuid(), id, '${user.id}', 'EDITOR' from projects`));
  return token as string;
};

describe('migration 0011 on existing data', () => {
  it('gives existing projects keys and tasks numbers, and new tasks carry on from there', async () => {
    const token = await tokenOf();
    const get = async (url: string) => (await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })).json();

    expect((await get(`/api/v1/projects/${project(1)}`)).key).toBe('ENG');
    expect((await get(`/api/v1/projects/${project(2)}`)).key).toBe('ENG2');
    expect((await get(`/api/v1/projects/${project(3)}`)).key).toBe('WR');
    expect((await get(`/api/v1/projects/${project(4)}`)).key).toBe('P1');

    const tasks = await get(`/api/v1/tasks/project/${project(1)}`);
    expect(tasks.map((found: { title: string; key: string; number: number }) => [found.title, found.key, found.number])).toEqual([
      ['First made', 'ENG-1', 1],
      ['Second made', 'ENG-2', 2],
      ['Third made', 'ENG-3', 3],
    ]);
    expect((await get('/api/v1/tasks/wr-1')).id).toBe(task(4));

    const created = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: { authorization: `Bearer ${token}` }, payload: { title: 'After', projectId: project(1) } });
    expect(created.json()).toMatchObject({ number: 4, key: 'ENG-4', parentId: null, subtaskCount: 0 });
    const fresh = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: { authorization: `Bearer ${token}` }, payload: { title: 'First', projectId: project(2) } });
    expect(fresh.json()).toMatchObject({ number: 1, key: 'ENG2-1' });
  });
});
