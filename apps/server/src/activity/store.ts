import { activity, type Db } from '@tasklane/db';
import { and, desc, eq, gt, lt, asc, sql } from 'drizzle-orm';
import { placeholderIn, runStatement, type StatementPart, valuesFor } from '../lib/prepared';
import type { OutboxPart } from '../webhooks/store';

export type ActivityRow = typeof activity.$inferSelect;

/**
 * The channel of a project's "activity N happened" notifications (the payload is N). One channel
 * per project, LISTENed to only by instances with a live stream of it: with one shared channel
 * every instance received and parsed every write of every project, however many instances there
 * were and whether or not anyone was watching.
 */
export const projectChannel = (projectId: string) => `tasklane_p_${projectId.replaceAll('-', '').toLowerCase()}`;
/** Notified (with no payload) by a change that queued webhook deliveries; every instance's senders wake on it. */
export const DELIVERIES_CHANNEL = 'tasklane_deliveries';
/** First key of the per-project advisory locks taken by activity writers (and, first, by the task count trigger of migration 0004). */
const ACTIVITY_LOCK_CLASS = 7415;

export interface NewActivity {
  projectId: string;
  taskId: string | null;
  actorId: string;
  type: string;
  resource: unknown;
  changes: unknown;
  createdAt: Date;
}

/**
 * Inserts the entry, and its webhook deliveries through `outbox` (given the new entry's id as the
 * relation `event`), in one statement, and announces it on commit. The per-project advisory lock,
 * held to the end of the transaction, makes a project's ids commit in increasing order (keyed by
 * the id as the database writes it, lower case, as the task-count trigger keys it, however the
 * client spelled it), so a reader that has seen id N can never later find a smaller id appear. The announcement is the new
 * id on the project's channel (projectChannel), and one on DELIVERIES_CHANNEL only if deliveries
 * were queued, so only those changes wake the senders.
 * `write`, when given, is the change's own write (an INSERT or UPDATE … RETURNING, as a statement
 * part, which drizzle parenthesises), made by the same statement: one round trip, atomic on its own, so
 * no explicit transaction is needed (BEGIN and COMMIT are round trips too). The entry is written
 * only if `write` returned a row; otherwise nothing is, and the result is undefined. The project's
 * lock is taken only after `write` has run (and so holds its row locks), the order every other
 * writer of a task uses — row, then project lock — so the two never wait on each other in a cycle.
 */
export async function insertActivity(tx: Db, entry: NewActivity, outbox: OutboxPart, write?: StatementPart): Promise<number | undefined> {
  const value = placeholderIn('activity_');
  const rows = await runStatement<{ id: string }>(tx, {
    key: `activity:${write?.key ?? 'alone'}`,
    build: (db) => sql`
      with ${write ? sql`written as ${write.build(db)},` : sql``}
      locked as (select pg_advisory_xact_lock(${ACTIVITY_LOCK_CLASS}, hashtext(${value('projectId')}::uuid::text))${write ? sql` from (select 1 from written limit 1) as change` : sql``}),
      inserted as (
        insert into ${activity} (project_id, task_id, actor_id, type, resource, changes, created_at)
        select ${value('projectId')}::uuid, ${value('taskId')}::uuid, ${value('actorId')}::uuid, ${value('type')}::text,
               ${value('resource')}::jsonb, ${value('changes')}::jsonb, ${value('createdAt')}::timestamptz
        from locked
        returning id
      ),
      queued as (${outbox.build(sql`inserted`)})
      select id::text as id,
             pg_notify(${value('channel')}::text, id::text),
             case when exists (select 1 from queued) then pg_notify(${DELIVERIES_CHANNEL}, '') end
      from inserted`,
    values: {
      ...write?.values,
      ...outbox.values,
      ...valuesFor(
        {
          ...entry,
          resource: JSON.stringify(entry.resource),
          changes: entry.changes === null ? null : JSON.stringify(entry.changes),
          channel: projectChannel(entry.projectId),
        },
        'activity_',
      ),
    },
  });
  const row = rows[0];
  return row ? Number(row.id) : undefined;
}

/** A project's history is deleted with it (its `project.deleted` entry is written afterwards). */
export const deleteProjectActivity = (tx: Db, projectId: string) => tx.delete(activity).where(eq(activity.projectId, projectId));

/** Newest first, before the cursor id. */
export const listNewestFirst = (db: Db, scope: { projectId: string } | { taskId: string }, beforeId: number | undefined, limit: number) =>
  db
    .select()
    .from(activity)
    .where(
      and(
        'projectId' in scope ? eq(activity.projectId, scope.projectId) : eq(activity.taskId, scope.taskId),
        beforeId !== undefined ? lt(activity.id, beforeId) : undefined,
      ),
    )
    .orderBy(desc(activity.id))
    .limit(limit);

/** Oldest first, after an id: what a stream has not yet sent. */
export const listAfter = (db: Db, projectId: string, afterId: number, limit: number) =>
  db
    .select()
    .from(activity)
    .where(and(eq(activity.projectId, projectId), gt(activity.id, afterId)))
    .orderBy(asc(activity.id))
    .limit(limit);

export const latestId = async (db: Db, projectId: string): Promise<number> =>
  (
    await db
      .select({ id: activity.id })
      .from(activity)
      .where(eq(activity.projectId, projectId))
      .orderBy(desc(activity.id))
      .limit(1)
  )[0]?.id ?? 0;
