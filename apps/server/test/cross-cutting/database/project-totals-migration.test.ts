import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations, type Connection, connect } from '../../support/migrations';

/**
 * An upgrade of a database made before migration 0018: the estimate totals per state and each
 * project's storage bytes (each distinct file once) are filled from the tasks and attachments it
 * holds, and kept from then on.
 */
const OWNER = '00000000-0000-7000-8000-000000000001';
const PROJECT = '00000000-0000-7000-8000-0000000000a1';
const EMPTY = '00000000-0000-7000-8000-0000000000a2';
const task = (n: number) => `00000000-0000-7000-8000-0000000001${String(n).padStart(2, '0')}`;
const attachment = (n: number) => `00000000-0000-7000-8000-0000000002${String(n).padStart(2, '0')}`;
const sha = (c: string) => c.repeat(64);

describe('migration 0018: the project totals of the data that was there before', () => {
  let db: Connection;

  beforeAll(async () => {
    db = await connect();
    await applyMigrations(db, (idx) => idx < 18);
    await db.run(`
      insert into users (id, name, email, password_hash) values ('${OWNER}', 'Old', 'old@example.com', 'x');
      insert into projects (id, name, owner_id, key) values ('${PROJECT}', 'Old', '${OWNER}', 'OLD'), ('${EMPTY}', 'Empty', '${OWNER}', 'EMP');
      insert into tasks (id, project_id, title, status, created_by_id, number, position, estimate) values
        ('${task(1)}', '${PROJECT}', 'One', 'TODO', '${OWNER}', 1, 'a0', 2.5),
        ('${task(2)}', '${PROJECT}', 'Two', 'TODO', '${OWNER}', 2, 'a1', 1.25),
        ('${task(3)}', '${PROJECT}', 'Three', 'DONE', '${OWNER}', 3, 'a2', null),
        ('${task(4)}', '${PROJECT}', 'Four', 'DONE', '${OWNER}', 4, 'a3', 4);
      insert into attachments (id, project_id, task_id, filename, content_type, size, sha256, thumbnail) values
        ('${attachment(1)}', '${PROJECT}', '${task(1)}', 'a', 'text/plain', 100, '${sha('a')}', false),
        ('${attachment(2)}', '${PROJECT}', '${task(2)}', 'a again', 'text/plain', 100, '${sha('a')}', false),
        ('${attachment(3)}', '${PROJECT}', '${task(2)}', 'b', 'text/plain', 30, '${sha('b')}', false);
    `);
    await applyMigrations(db, (idx) => idx === 18);
  });
  afterAll(() => db?.close());

  const totals = () => db.rows<{ status: string; count: number; estimate: string }>(`select status, count, estimate::text from project_task_counts where project_id = '${PROJECT}' order by status`);
  const bytes = async (projectId: string) => (await db.rows<{ bytes: string }>(`select bytes::text from project_storage where project_id = '${projectId}'`))[0]?.bytes;

  it('fills the estimate totals beside the counts, and each project’s bytes with each distinct file once', async () => {
    expect(await totals()).toEqual([
      { status: 'DONE', count: 2, estimate: '4' },
      { status: 'TODO', count: 2, estimate: '3.75' },
    ]);
    expect(await bytes(PROJECT)).toBe('130');
    expect(await bytes(EMPTY)).toBeUndefined();
  });

  it('keeps them from then on: an estimate changed, a task and its files deleted', async () => {
    await db.run(`update tasks set estimate = 1 where id = '${task(4)}'`);
    await db.run(`delete from tasks where id = '${task(2)}'`);
    expect(await totals()).toEqual([
      { status: 'DONE', count: 2, estimate: '1' },
      { status: 'TODO', count: 1, estimate: '2.50' },
    ]);
    // Task two's copy of a is gone, a still named by task one; b gone.
    expect(await bytes(PROJECT)).toBe('100');
  });
});
