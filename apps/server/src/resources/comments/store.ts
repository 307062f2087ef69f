import { comments, type Db, users } from '@tasklane/db';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { CursorValue } from '../../platform/paging';
import { insertSelect, placeholderIn, runStatement, type StatementPart, valuesFor } from '../../platform/prepared';
import { type ChangeEvent, recordEvent } from '../../events/record';
import { lockedScope } from '../../events/scope';

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

/**
 * Inserts a new comment and records its creation (`created`), in one transaction, if its project
 * and task still exist (their rows locked first: the lock order of platform/locks.ts); the event is
 * the transaction's last statement. False when either is gone, and nothing is written.
 */
export const insertComment = (db: Db, comment: typeof comments.$inferSelect, created: ChangeEvent): Promise<boolean> =>
  db.transaction(async (tx) => {
    const write = commentInsert(comment, created.projectId);
    const written = await runStatement(tx, { ...write, key: `${write.key}:written`, build: (handle) => sql`with written as ${write.build(handle)} select 1 from written` });
    if (written.length === 0) return false;
    await recordEvent(tx, created);
    return true;
  });

const commentValue = placeholderIn('comment_');

const commentInsert = (comment: typeof comments.$inferSelect, projectId: string): StatementPart => ({
  key: 'comment.insert',
  build: () => sql`(
    ${insertSelect(comments, 'comment_')}
    where ${lockedScope({ projectId: sql`${commentValue('projectId')}::uuid`, taskId: sql`${commentValue('taskId')}::uuid` })}
    returning ${comments.id})`,
  values: valuesFor({ ...comment, projectId }, 'comment_'),
});

export const findComment = async (db: Db, taskId: string, commentId: string): Promise<CommentRow | undefined> =>
  (await selectComments(db).where(and(eq(comments.taskId, taskId), eq(comments.id, commentId))).limit(1))[0];

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

export const updateComment = async (db: Db, commentId: string, patch: { text: string; mentionIds: string[]; updatedAt: Date }) =>
  (await db.update(comments).set(patch).where(eq(comments.id, commentId)).returning())[0];

export const deleteComment = (db: Db, commentId: string) => db.delete(comments).where(eq(comments.id, commentId));

/** Locks the comment row for a conditional write in the caller's transaction. */
export const lockComment = async (db: Db, commentId: string) =>
  (await db.select().from(comments).where(eq(comments.id, commentId)).for('update').limit(1))[0];
