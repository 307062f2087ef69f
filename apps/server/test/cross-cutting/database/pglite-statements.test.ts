import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../../src/platform/sql';
import { openTestDatabase } from '../../support/harness';

// On PGlite every statement runs as a named statement, parsed once (packages/db/src/pglite-statements.ts).
// What query() guaranteed must still hold: errors leave the session usable, transactions roll back,
// and a statement whose table changed is read with the table's new columns.
describe.runIf(process.env.TEST_DB !== 'postgres')('named statements on PGlite', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    opened = await openTestDatabase();
    await opened.database.db.execute(sql`create table scratch (id int primary key, label text)`);
  });
  afterAll(() => opened.drop());

  const db = () => opened.database.db;
  const select = async (id: number) => rowsOf(await db().execute(sql`select * from scratch where id = ${id}`));

  it('keeps the session usable after a statement fails, and reports the database error code', async () => {
    await db().execute(sql`insert into scratch (id, label) values (${1}, ${'first'})`);
    const duplicate = await db()
      .execute(sql`insert into scratch (id, label) values (${1}, ${'again'})`)
      .then(() => undefined, (error: { cause?: { code?: string } }) => error.cause?.code);
    expect(duplicate).toBe('23505');
    expect(await select(1)).toEqual([{ id: 1, label: 'first' }]);
  });

  it('rolls a failed transaction back', async () => {
    const failed = await db()
      .transaction(async (tx) => {
        await tx.execute(sql`insert into scratch (id, label) values (${2}, ${'inside'})`);
        throw new Error('give up');
      })
      .catch((error: Error) => error.message);
    expect(failed).toBe('give up');
    expect(await select(2)).toEqual([]);
  });

  it('reads a table with its new columns after they change under a statement already parsed', async () => {
    expect(await select(1)).toEqual([{ id: 1, label: 'first' }]);
    await db().execute(sql`alter table scratch add column done boolean not null default false`);
    expect(await select(1)).toEqual([{ id: 1, label: 'first', done: false }]);
  });
});
