import { activity, type Db, webhookDeliveries, webhooks } from '@tasklane/db';
import type { Activity, ActivityType, FieldChange } from '@tasklane/schemas';
import { type SQL, sql } from 'drizzle-orm';
import { placeholderIn, runStatement, type StatementPart, valuesFor } from './lib/prepared';

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

/** The outbox's step of insertActivity's statement: `build(event)` written with placeholders, `values` for them. */
export interface OutboxPart {
  build: (event: SQL) => SQL;
  values: Record<string, unknown>;
}

/**
 * The outbox, as a step of the statement that records the event (activity/store.ts): one delivery
 * per active webhook of the project that wants this event type, so it commits with the change.
 * The body every attempt sends is the event's JSON, but its id is only known inside that statement
 * (`event`, a CTE with its `id`), so the body is assembled there: `{"id":"<id>",` + the rest of it.
 * Ordered per task (or per project for project and member events).
 */
export function outboxInsert(entry: Omit<Activity, 'id'>): OutboxPart {
  const value = placeholderIn('outbox_');
  return {
    build: (event) => sql`
      insert into ${webhookDeliveries} (webhook_id, event_id, event_type, ordering_key, payload)
      select ${webhooks.id}, event.id, ${value('type')}::text, ${value('orderingKey')}::uuid, '{"id":"' || event.id::text || '",' || ${value('restOfBody')}::text
      from ${webhooks}, ${event} as event
      where ${webhooks.projectId} = ${value('projectId')}::uuid and ${webhooks.active}
        and (cardinality(${webhooks.events}) = 0 or ${value('type')}::text = any(${webhooks.events}))
      returning 1`,
    values: valuesFor(
      {
        type: entry.type,
        orderingKey: entry.taskId ?? entry.projectId,
        // The payload is the entry as JSON with its id first; the id is known only in the statement.
        restOfBody: JSON.stringify(entry).slice(1),
        projectId: entry.projectId,
      },
      'outbox_',
    ),
  };
}

export interface Change {
  projectId: string;
  /** The task of a task or comment event. */
  taskId?: string;
  actorId: string;
  type: ActivityType;
  resource: object;
  changes?: Record<string, FieldChange> | null;
}

/**
 * Records one change: its history entry, its webhook deliveries (the outbox) and the notification
 * to live streams. Call it with the transaction of the change itself, so all of it commits or
 * none does — or pass the change's own write (RETURNING a row) as `write`: both then run as one
 * statement, atomic by itself, and nothing is recorded (undefined) when that write matched no row.
 */
export async function recordActivity(tx: Db, change: Change): Promise<Activity>;
export async function recordActivity(tx: Db, change: Change, write: StatementPart): Promise<Activity | undefined>;
export async function recordActivity(tx: Db, change: Change, write?: StatementPart): Promise<Activity | undefined> {
  const createdAt = new Date();
  const event: Omit<Activity, 'id'> = {
    type: change.type,
    time: createdAt.toISOString(),
    actorId: change.actorId,
    projectId: change.projectId,
    taskId: change.taskId ?? null,
    resource: change.resource as Record<string, unknown>,
    changes: change.changes ?? null,
  };
  const id = await insertActivity(tx, { ...change, taskId: event.taskId, changes: event.changes, createdAt }, outboxInsert(event), write);
  return id === undefined ? undefined : { id: String(id), ...event };
}

/** The fields whose values differ between two versions of a resource, or null when none do. */
export function changedFields<T extends object>(before: T, after: T, fields: readonly (keyof T & string)[]): Record<string, FieldChange> | null {
  const changes: Record<string, FieldChange> = {};
  for (const field of fields) {
    if (before[field] !== after[field]) changes[field] = { old: before[field], new: after[field] };
  }
  return Object.keys(changes).length > 0 ? changes : null;
}
