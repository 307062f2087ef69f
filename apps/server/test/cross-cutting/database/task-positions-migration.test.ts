import { generateKeyBetween, generateNKeysBetween } from 'fractional-indexing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations, type Connection, connect } from '../../support/migrations';

/**
 * An upgrade of a database made before task positions (migration 0013): the tasks it holds get
 * the library's own integer keys in the order they had (created_at, id), per project, whatever
 * their status, and those keys sort as the library compares them.
 */

/** The last migration of the release before issue 34: the data below is written as it stood then. */
const LAST_BEFORE = 9;

const OWNER = '00000000-0000-7000-8000-000000000001';
const BIG = '00000000-0000-7000-8000-0000000000b1';
const SMALL = '00000000-0000-7000-8000-0000000000b2';
/** More than 62 tasks, so the keys pass from 'az' to 'b00'. */
const BIG_COUNT = 70;

describe('migration 0013: positions of the tasks that were there before', () => {
  let db: Connection;

  beforeAll(async () => {
    db = await connect();
    await applyMigrations(db, (idx) => idx <= LAST_BEFORE);
    await db.run(`
      insert into users (id, name, email, password_hash) values ('${OWNER}', 'Old', 'old@example.com', 'x');
      insert into projects (id, name, owner_id) values ('${BIG}', 'Big', '${OWNER}'), ('${SMALL}', 'Small', '${OWNER}');
      -- Ids against time: a later id is often an earlier task; the first ten share one instant (ties by id).
      insert into tasks (id, project_id, title, status, created_by_id, created_at, updated_at)
        select ('00000000-0000-7000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, '${BIG}', 'T' || i,
               (array['TODO', 'IN_PROGRESS', 'DONE'])[i % 3 + 1]::task_status, '${OWNER}',
               timestamptz '2026-01-01T00:00:00Z' + (case when i <= 10 then 0 else (i * 37) % ${BIG_COUNT} + 1 end) * interval '1 second',
               now()
        from generate_series(${BIG_COUNT}, 1, -1) as i;
      insert into tasks (id, project_id, title, created_by_id, created_at, updated_at) values
        ('00000000-0000-7000-8000-0000000001f2', '${SMALL}', 'Second', '${OWNER}', '2026-02-02T00:00:00Z', now()),
        ('00000000-0000-7000-8000-0000000001f1', '${SMALL}', 'First', '${OWNER}', '2026-02-01T00:00:00Z', now());
    `);
    await applyMigrations(db, (idx) => idx > LAST_BEFORE);
  });
  afterAll(() => db?.close());

  /** A project's tasks in their order before the migration, with the position it gave them. */
  const inCreatedOrder = (projectId: string) =>
    db.rows<{ title: string; position: string }>(`select title, position from tasks where project_id = '${projectId}' order by created_at, id`);

  it('gives each project’s tasks the library’s first keys, in created order, whatever their status', async () => {
    const big = await inCreatedOrder(BIG);
    expect(big).toHaveLength(BIG_COUNT);
    expect(big.map((task) => task.position)).toEqual(generateNKeysBetween(null, null, BIG_COUNT));
    expect(big.map((task) => task.position).slice(61, 63)).toEqual(['az', 'b00']);
    expect((await inCreatedOrder(SMALL)).map((task) => [task.title, task.position])).toEqual([
      ['First', 'a0'],
      ['Second', 'a1'],
    ]);
  });

  it('gives keys the library accepts and that sort in the database as the library compares them', async () => {
    const big = await inCreatedOrder(BIG);
    const byPosition = await db.rows<{ title: string }>(`select title from tasks where project_id = '${BIG}' order by position`);
    expect(byPosition.map((task) => task.title)).toEqual(big.map((task) => task.title));
    const keys = big.map((task) => task.position);
    expect([...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(keys);
    for (const [index, key] of keys.entries()) {
      expect(() => generateKeyBetween(key, keys[index + 1] ?? null)).not.toThrow();
    }
    // Upper-case digits sort before lower-case ones byte by byte ('aZ' < 'aa'), not as a locale would.
    const mixed = await db.rows<{ position: string }>(`select position from tasks where project_id = '${BIG}' and position in ('aZ', 'aa', 'a9', 'aA') order by position`);
    expect(mixed.map((task) => task.position)).toEqual(['a9', 'aA', 'aZ', 'aa']);
  });

  it('keeps the keys unique in a project and requires one on every task', async () => {
    await expect(db.run(`update tasks set position = 'a0' where project_id = '${BIG}' and position = 'a1'`)).rejects.toThrow();
    await expect(
      db.run(`insert into tasks (id, project_id, title, created_by_id) values ('00000000-0000-7000-8000-0000000002f1', '${SMALL}', 'No place', '${OWNER}')`),
    ).rejects.toThrow();
  });
});
