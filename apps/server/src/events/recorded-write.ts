import { activity, type Db, projects, tasks, webhookDeliveries, webhooks } from '@tasklane/db';
import type { Activity, ActivityType, FieldChange } from '@tasklane/schemas';
import { type SQL, sql } from 'drizzle-orm';
import { placeholderIn, runStatement, type StatementPart, valuesFor } from '../platform/prepared';
import type { NotificationPlan } from './notification-plan';
import { announceNotified, notificationSteps } from './notification-write';
import { notFound } from '../platform/errors';

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

/*
 * The lock order. Every write inside a project takes its locks in this order, so no two writes
 * (nor a write and the project's deletion) ever wait on each other in a cycle, which PostgreSQL
 * would break by failing one of them ("deadlock detected"):
 *
 *  1. the project's row: FOR KEY SHARE by every write into the project, first in its statement or
 *     transaction (lockedScope, lockScope); FOR NO KEY UPDATE by the project's update and ownership
 *     transfer; FOR UPDATE by the project's deletion and a member's removal;
 *  2. label rows (a task write naming labels locks them FOR KEY SHARE; a label's update and deletion);
 *  3. the task's row (FOR KEY SHARE in lockedScope, then the task's own write, or a comment's count
 *     trigger of migration 0006);
 *  4. the write's other rows: a comment, a membership, a webhook;
 *  5. the project's advisory lock (recordChange, and the task-count trigger of migration 0004);
 *  6. the rows of the project's webhooks, FOR KEY SHARE (recordChange's outbox step: a webhook
 *     deleted meanwhile gets no delivery, rather than failing the write on its foreign key), and
 *     after a webhook's row, its deliveries' (its deletion, and the sender's markDelivered and markFailed);
 *  7. the recipients' advisory locks (notifications/write.ts; recordChange's `outboxed` step makes
 *     them wait for the outbox step to end).
 *
 * The project's deletion holds its row FOR UPDATE before anything else: it waits for the writes in
 * flight there, and a write that comes later waits for the deletion, then finds the row gone and
 * writes nothing, so its caller answers 404, as when it came after the deletion. For the same
 * reason a row is only inserted under a locked parent, and no foreign key fails. A write that holds
 * a single row and takes no other lock (a watcher, a notification marked read) cannot be in a cycle.
 */

/** `conditions` evaluated in their order, each only if those before it hold: AND lets the planner reorder them, CASE does not. */
const inOrder = (conditions: SQL[]): SQL => conditions.reduceRight((inner, condition) => sql`(case when ${condition} then ${inner} else false end)`);

/**
 * An SQL condition that locks the project's row, then the task's (if given), FOR KEY SHARE (see the
 * lock order above), and holds only if they still exist; `then`, if given, is evaluated only after,
 * so the locks it takes come later. A write's statement puts it in its WHERE.
 */
export const lockedScope = (scope: { projectId: SQL; taskId?: SQL }, then?: SQL): SQL =>
  inOrder([
    sql`exists (select 1 from ${projects} as scope_project where scope_project.id = ${scope.projectId} for key share)`,
    ...(scope.taskId ? [sql`exists (select 1 from ${tasks} as scope_task where scope_task.id = ${scope.taskId} for key share)`] : []),
    ...(then ? [then] : []),
  ]);

const scopeValue = placeholderIn('scope_');

/**
 * lockedScope as a transaction's first statement: false when the project (or the task) is gone,
 * and the write must not happen.
 */
export async function lockScope(tx: Db, scope: { projectId: string; taskId?: string }): Promise<boolean> {
  const [row] = await runStatement<{ held: boolean }>(tx, {
    key: scope.taskId ? 'scope:task' : 'scope:project',
    build: () =>
      sql`select ${lockedScope({ projectId: sql`${scopeValue('projectId')}::uuid`, ...(scope.taskId ? { taskId: sql`${scopeValue('taskId')}::uuid` } : {}) })} as held`,
    values: valuesFor(scope, 'scope_'),
  });
  return row?.held === true;
}

/** A transaction that takes its scope's locks first (lockScope); with the scope gone, `missing`'s 404 and nothing written. */
export function transactionIn<T>(db: Db, scope: { projectId: string; taskId?: string }, missing: string, body: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    if (!(await lockScope(tx, scope))) throw notFound(missing);
    return body(tx);
  });
}

/** A change as its history entry, its webhook deliveries and its announcement tell it. */
export interface Change {
  projectId: string;
  /** The task of a task or comment event. */
  taskId?: string;
  actorId: string;
  type: ActivityType;
  resource: object;
  changes?: Record<string, FieldChange> | null;
  /** The notifications it causes and the watchers it adds (notifications/plan.ts). */
  notify?: NotificationPlan | undefined;
}

/**
 * Records one change — its history entry (activity), its webhook deliveries (the outbox) and the
 * announcement to live streams and senders — in one statement.
 *
 * `write`, when given, is the change's own write, made by the resource's store (an INSERT or
 * UPDATE … RETURNING as a statement part, parenthesised as drizzle writes its builders): it runs in
 * the same statement, one round trip, atomic on its own, so no explicit transaction is needed
 * (BEGIN and COMMIT are round trips too). Then the change is recorded only if `write` returned a
 * row; otherwise nothing is, and the result is undefined. Without `write`, call it with the
 * transaction of the change itself, so all of it commits or none does.
 *
 * The per-project advisory lock, held to the end of the transaction, makes a project's ids commit
 * in increasing order (keyed by the id as the database writes it, lower case, as the task-count
 * trigger keys it, however the client spelled it), so a reader that has seen id N can never later
 * find a smaller id appear. It is taken only after `write` has run (and so holds its row locks),
 * the order every other writer of a task uses — row, then project lock — so the two never wait on
 * each other in a cycle. The announcement is the new id on the project's channel (projectChannel),
 * and one on DELIVERIES_CHANNEL only if deliveries were queued, so only those changes wake the senders.
 *
 * With `change.notify`, the same statement adds the task's new watchers and writes the change's
 * notifications (notifications/write.ts), each announced on its recipient's channel. A transaction
 * records at most one change with notifications: their recipient locks are taken in one pass.
 */
export async function recordChange(db: Db, change: Change): Promise<Activity>;
export async function recordChange(db: Db, change: Change, write: StatementPart): Promise<Activity | undefined>;
export async function recordChange(db: Db, change: Change, write?: StatementPart): Promise<Activity | undefined> {
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
  const value = placeholderIn('activity_');
  const outbox = queueDeliveries(event);
  const { notify: plan, ...recorded } = change;
  const notify = plan && notificationSteps(plan, { ...recorded, taskId: event.taskId, createdAt });
  const [row] = await runStatement<{ id: string }>(db, {
    key: `activity:${write?.key ?? 'alone'}${notify ? ':notify' : ''}`,
    build: (handle) => sql`
      with ${write ? sql`written as ${write.build(handle)},` : sql``}
      locked as (select pg_advisory_xact_lock(${ACTIVITY_LOCK_CLASS}, hashtext(${value('projectId')}::uuid::text))${write ? sql` from (select 1 from written limit 1) as change` : sql``}),
      inserted as (
        insert into ${activity} (project_id, task_id, actor_id, type, resource, changes, created_at)
        select ${value('projectId')}::uuid, ${value('taskId')}::uuid, ${value('actorId')}::uuid, ${value('type')}::text,
               ${value('resource')}::jsonb, ${value('changes')}::jsonb, ${value('createdAt')}::timestamptz
        from locked
        returning id
      ),
      queued as (${outbox.build(sql`inserted`)})${notify ? sql`,
      outboxed as (select 1 from inserted, (select count(*) from queued) as outbox),
      ${notify.build(sql`outboxed`)}` : sql``}
      select id::text as id,
             pg_notify(${value('channel')}::text, id::text),
             case when exists (select 1 from queued) then pg_notify(${DELIVERIES_CHANNEL}, '') end${notify ? sql`, ${announceNotified} as notified` : sql``}
      from inserted`,
    values: {
      ...write?.values,
      ...outbox.values,
      ...notify?.values,
      ...valuesFor(
        {
          ...recorded,
          taskId: event.taskId,
          resource: JSON.stringify(event.resource),
          changes: event.changes === null ? null : JSON.stringify(event.changes),
          createdAt,
          channel: projectChannel(change.projectId),
        },
        'activity_',
      ),
    },
  });
  return row ? { id: row.id, ...event } : undefined;
}

/**
 * The outbox step of recordChange's statement: one delivery per active webhook of the project that
 * wants this event type, so it commits with the change. The body every attempt sends is the
 * event's JSON, but its id is only known inside that statement (`event`, a CTE with its `id`), so
 * the body is assembled there: `{"id":"<id>",` + the rest of it. Ordered per task (or per project
 * for project and member events). The webhooks are locked (the lock order above) so that one
 * deleted meanwhile is skipped, and one disabled meanwhile is read as it is now.
 */
function queueDeliveries(event: Omit<Activity, 'id'>): { build: (inserted: SQL) => SQL; values: Record<string, unknown> } {
  const value = placeholderIn('outbox_');
  return {
    build: (inserted) => sql`
      insert into ${webhookDeliveries} (webhook_id, event_id, event_type, ordering_key, payload)
      select ${webhooks.id}, event.id, ${value('type')}::text, ${value('orderingKey')}::uuid, '{"id":"' || event.id::text || '",' || ${value('restOfBody')}::text
      from ${webhooks}, ${inserted} as event
      where ${webhooks.projectId} = ${value('projectId')}::uuid and ${webhooks.active}
        and (cardinality(${webhooks.events}) = 0 or ${value('type')}::text = any(${webhooks.events}))
      for key share of ${webhooks}
      returning 1`,
    values: valuesFor(
      {
        type: event.type,
        orderingKey: event.taskId ?? event.projectId,
        // The payload is the entry as JSON with its id first; the id is known only in the statement.
        restOfBody: JSON.stringify(event).slice(1),
        projectId: event.projectId,
      },
      'outbox_',
    ),
  };
}

/** Equal field values: the same scalar, or arrays of the same scalars in the same order (a task's labelIds). */
const sameValue = (a: unknown, b: unknown): boolean =>
  a === b || (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => item === b[index]));

/** The fields whose values differ between two versions of a resource, or null when none do. */
export function changedFields<T extends object>(before: T, after: T, fields: readonly (keyof T & string)[]): Record<string, FieldChange> | null {
  const changes: Record<string, FieldChange> = {};
  for (const field of fields) {
    if (!sameValue(before[field], after[field])) changes[field] = { old: before[field], new: after[field] };
  }
  return Object.keys(changes).length > 0 ? changes : null;
}
