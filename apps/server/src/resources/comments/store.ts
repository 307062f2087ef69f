import { comments, type Db, users } from '@tasklane/db';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { CursorValue } from '../../platform/paging';

export type CommentRow = typeof comments.$inferSelect & { authorName: string };

const commentColumns = {
  id: comments.id,
  taskId: comments.taskId,
  authorId: comments.authorId,
  authorName: users.name,
  text: comments.text,
  mentionIds: comments.mentionIds,
  createdAt: comments.createdAt,
  updatedAt: comments.updatedAt,
};

const selectComments = (db: Db) => db.select(commentColumns).from(comments).innerJoin(users, eq(users.id, comments.authorId));

/*
 * The writes return the driver's promise from `.execute()`, so calling one sends its statement at
 * once: the caller sends the change's history entry right after, and postgres.js pipelines the two
 * in their order. Each insertion or deletion counts the comment on or off its task (the trigger of
 * migration 0006), locking the task's row, which every writer of a task takes before the project's
 * lock that recording the change takes: so the record comes after.
 */

export const insertComment = (db: Db, comment: typeof comments.$inferSelect) => db.insert(comments).values(comment).execute();

export const updateComment = (db: Db, commentId: string, patch: { text: string; mentionIds: string[]; updatedAt: Date }) =>
  db.update(comments).set(patch).where(eq(comments.id, commentId)).execute();

export const deleteComment = (db: Db, commentId: string) => db.delete(comments).where(eq(comments.id, commentId)).execute();

/** A comment of the task, with its author's name; `lock` holds its row FOR UPDATE to the end of the caller's transaction. */
export const findComment = async (db: Db, taskId: string, commentId: string, options: { lock?: boolean } = {}): Promise<CommentRow | undefined> => {
  const query = selectComments(db)
    .where(and(eq(comments.taskId, taskId), eq(comments.id, commentId)))
    .limit(1);
  return (await (options.lock ? query.for('update', { of: comments }) : query).execute())[0];
};

/** A task's comments, oldest first, strictly after the (createdAt, id) cursor; served by comments_task_idx. */
export const listComments = (db: Db, taskId: string, cursor: CursorValue[] | undefined, limit: number): Promise<CommentRow[]> =>
  selectComments(db)
    .where(
      and(
        eq(comments.taskId, taskId),
        cursor ? sql`(${comments.createdAt}, ${comments.id}) > (${cursor[0]}::timestamptz, ${cursor[1]}::uuid)` : undefined,
      ),
    )
    .orderBy(asc(comments.createdAt), asc(comments.id))
    .limit(limit);
