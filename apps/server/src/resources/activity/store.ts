import { activity, type Db } from '@tasklane/db';
import { and, desc, eq, gt, lt, asc, or } from 'drizzle-orm';

export type ActivityRow = typeof activity.$inferSelect;

/** A project's history is deleted with it (its `project.deleted` entry is written afterwards). */
export const deleteProjectActivity = (tx: Db, projectId: string) => tx.delete(activity).where(eq(activity.projectId, projectId));

/** Newest first, before the cursor id. A task's history is its events and the relation events naming it as the other task. */
export const listNewestFirst = (db: Db, scope: { projectId: string } | { taskId: string }, beforeId: number | undefined, limit: number) =>
  db
    .select()
    .from(activity)
    .where(
      and(
        'projectId' in scope ? eq(activity.projectId, scope.projectId) : or(eq(activity.taskId, scope.taskId), eq(activity.relatedTaskId, scope.taskId)),
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
