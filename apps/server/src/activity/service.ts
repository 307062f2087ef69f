import type { Db } from '@tasklane/db';
import type { Activity, ActivityType, FieldChange, ListProjectActivityInput } from '@tasklane/schemas';
import { requireProjectAccess } from '../access';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../lib/paging';
import type { StatementPart } from '../lib/prepared';
import type { TasksService } from '../tasks/service';
import { outboxInsert } from '../webhooks/store';
import * as store from './store';

export interface Change {
  projectId: string;
  /** The task of a task or comment event. */
  taskId?: string;
  actorId: string;
  type: ActivityType;
  resource: object;
  changes?: Record<string, FieldChange> | null;
}

export const toActivity = (row: store.ActivityRow): Activity => ({
  id: String(row.id),
  type: row.type as ActivityType,
  time: row.createdAt.toISOString(),
  actorId: row.actorId,
  projectId: row.projectId,
  taskId: row.taskId,
  resource: row.resource as Record<string, unknown>,
  changes: (row.changes as Record<string, FieldChange> | null) ?? null,
});

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
  const id = await store.insertActivity(tx, { ...change, taskId: event.taskId, changes: event.changes, createdAt }, outboxInsert(event), write);
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

export function createActivityService(db: Db, tasks: TasksService) {
  async function page(scope: { projectId: string } | { taskId: string }, query: Omit<ListProjectActivityInput, 'id'>): Promise<Page<Activity>> {
    const limit = pageSize(query.limit);
    const [beforeId] = decodeCursor(query.cursor, [cursorChecks.positiveInteger]) ?? [];
    const rows = await store.listNewestFirst(db, scope, typeof beforeId === 'number' ? beforeId : undefined, limit + 1);
    return toPage(rows, limit, toActivity, (row) => [row.id]);
  }

  return {
    async listForProject(userId: string, { id, ...query }: ListProjectActivityInput): Promise<Page<Activity>> {
      await requireProjectAccess(db, id, userId);
      return page({ projectId: id }, query);
    },

    async listForTask(userId: string, { id, ...query }: ListProjectActivityInput): Promise<Page<Activity>> {
      await tasks.loadTask(userId, id);
      return page({ taskId: id }, query);
    },
  };
}

export type ActivityService = ReturnType<typeof createActivityService>;
