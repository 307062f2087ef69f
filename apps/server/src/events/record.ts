import { AsyncLocalStorage } from 'node:async_hooks';
import { activity, type Db } from '@tasklane/db';
import type { Activity, ActivityType, FieldChange } from '@tasklane/schemas';
import { sql } from 'drizzle-orm';
import { PROJECT_LOCK_CLASS } from '../platform/locks';
import { rowsOf } from '../platform/sql';

/**
 * The channel of a project's "activity N happened" notifications (the payload is N). One channel
 * per project, LISTENed to only by instances with a live stream of it: with one shared channel
 * every instance received and parsed every write of every project, however many instances there
 * were and whether or not anyone was watching.
 */
export const projectChannel = (projectId: string) => `tasklane_p_${projectId.replaceAll('-', '').toLowerCase()}`;
/** Notified by every event's commit (the payload is its id): every instance's dispatcher (dispatcher.ts) wakes on it. */
export const EVENTS_CHANNEL = 'tasklane_events';

/** One change, as the event log (the activity table) records it: its history entry, and what the dispatcher derives work from. */
export interface ChangeEvent {
  projectId: string;
  /** The task of a task or comment event. */
  taskId?: string;
  /** A relation event's other task, when in the event's project: that task's history lists the event too. */
  relatedTaskId?: string;
  actorId: string;
  type: ActivityType;
  resource: object;
  changes?: Record<string, FieldChange> | null;
}

/** An event as the API shows it (history, live streams, webhook bodies), from its row: the one mapper of the event log. */
export const toActivity = (row: typeof activity.$inferSelect): Activity => ({
  id: String(row.id),
  type: row.type as ActivityType,
  time: row.createdAt.toISOString(),
  actorId: row.actorId,
  projectId: row.projectId,
  taskId: row.taskId,
  resource: row.resource as Record<string, unknown>,
  changes: (row.changes as Record<string, FieldChange> | null) ?? null,
});

/** The ids of the events recorded within the current call of `recordingEvents`. */
const recorded = new AsyncLocalStorage<number[]>();

/**
 * Runs `work`, and tells the ids of the events it recorded (recordEvent), committed or not: the
 * caller waits for their derived work (Dispatcher.settle) once `work`'s transactions are over.
 */
export async function recordingEvents<T>(work: () => Promise<T>): Promise<{ result: T; eventIds: number[] }> {
  const eventIds: number[] = [];
  const result = await recorded.run(eventIds, work);
  return { result, eventIds };
}

/**
 * Records one change in the write's transaction `tx`: its event row, timed by the database's clock
 * (as the webhooks it is delivered to are: processors/webhooks.ts), (the activity table is the
 * event log and the history), announced at commit on the project's channel (live streams) and on
 * EVENTS_CHANNEL (the dispatcher, which then writes the notifications and webhook deliveries the
 * event causes, after commit: dispatcher.ts). Call it as the transaction's LAST statement.
 *
 * The per-project advisory lock, held to the end of the transaction, makes a project's ids commit
 * in increasing order (keyed by the id as the database writes it, lower case, as the task-count
 * trigger keys it, however the client spelled it), so a reader that has seen id N can never later
 * find a smaller id appear; the dispatcher relies on it too. Taken last, it is held only from here
 * to the commit, and after every row lock of the write (the lock order of platform/locks.ts).
 */
export async function recordEvent(tx: Db, event: ChangeEvent): Promise<Activity> {
  const entry: Omit<Activity, 'id' | 'time'> = {
    type: event.type,
    actorId: event.actorId,
    projectId: event.projectId,
    taskId: event.taskId ?? null,
    resource: event.resource as Record<string, unknown>,
    changes: event.changes ?? null,
  };
  const [row] = rowsOf<{ id: string; time_ms: number }>(
    await tx.execute(sql`
      with locked as (select pg_advisory_xact_lock(${PROJECT_LOCK_CLASS}, hashtext(${entry.projectId}::uuid::text))),
      inserted as (
        insert into ${activity} (project_id, task_id, related_task_id, actor_id, type, resource, changes, created_at)
        select ${entry.projectId}::uuid, ${entry.taskId}::uuid, ${event.relatedTaskId ?? null}::uuid, ${entry.actorId}::uuid, ${entry.type}::text,
               ${JSON.stringify(entry.resource)}::jsonb, ${entry.changes === null ? null : JSON.stringify(entry.changes)}::jsonb, statement_timestamp()
        from locked
        returning id, created_at
      )
      select id::text as id, (extract(epoch from created_at) * 1000)::float8 as time_ms, pg_notify(${projectChannel(entry.projectId)}::text, id::text), pg_notify(${EVENTS_CHANNEL}, id::text)
      from inserted`),
  );
  if (!row) throw new Error('The event was not recorded');
  recorded.getStore()?.push(Number(row.id));
  return { id: row.id, time: new Date(Number(row.time_ms)).toISOString(), ...entry };
}
