import { replicaMayRun } from '@tasklane/db';
import { describe, expect, it } from 'vitest';

/**
 * Which statements a read replica may run (packages/db replicas.ts): a read that writes nothing and
 * locks nothing. A statement sent to the primary needlessly only costs speed; one sent to a replica
 * wrongly fails there (read-only) and runs again on the primary, so the table errs toward the primary.
 */
describe('replica routing: the statements a replica may run', () => {
  it.each([
    ['select * from "tasks" where "tasks"."id" = $1', true],
    ['  SELECT 1', true],
    ['with query as (select $1::tsquery as q), mine as (select project_id from memberships) select * from tasks', true],
    ['with recursive up(id) as (select $1::uuid union select parent_id from tasks join up on tasks.id = up.id) select * from up', true],
    ['explain (format json) select 1 from "tasks" where search_vector @@ $1::tsquery', true],
    ['select "updated_at", "deleted" from "tasks"', true],
    ['insert into "tasks" ("id") values ($1)', false],
    ['update "tasks" set "title" = $1', false],
    ['delete from "tasks" where "id" = $1', false],
    ['with moved as (update "tasks" as t set "status" = $1 returning t.id) select * from moved', false],
    ['with gone as (delete from "comments" returning id) select count(*) from gone', false],
    ['with batch as (select 1) insert into "deliveries" select * from batch', false],
    ['explain analyze delete from "tasks"', false],
    ['select * from "tasks" for update', false],
    ['select * from "tasks" for no key update', false],
    ['select * from "tasks" for share', false],
    ['select * from "tasks" for key share', false],
    ['select pg_notify($1, $2)', false],
    ['select nextval($1)', false],
    ['select pg_advisory_xact_lock(1, 2)', false],
    ['select pg_current_wal_lsn()', false],
    ['begin', false],
    ['vacuum tasks', false],
  ])('%s → %s', (statement, mayRun) => {
    expect(replicaMayRun(statement)).toBe(mayRun);
  });
});
