import { attachments, comments, type Db, users } from '@tasklane/db';
import { and, asc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { CursorValue } from '../../platform/paging';

export type AttachmentRow = typeof attachments.$inferSelect;
export type CommentRow = typeof comments.$inferSelect & { authorName: string; attachments: AttachmentRow[] };

/** An attachment row as the aggregate below spells it in JSON: its timestamp as text. */
type AttachmentJson = Omit<AttachmentRow, 'createdAt'> & { createdAt: string };

/**
 * The comment's attachments, oldest first, as one JSON array beside each comment row: a scalar
 * subquery on attachments_comment_idx, so a page of comments stays one statement (no query per
 * comment). The keys are AttachmentRow's; the timestamp is made a Date again by attachmentRowsOf.
 */
const commentAttachments = sql<AttachmentJson[]>`(select coalesce(json_agg(json_build_object(
    'id', a.id, 'projectId', a.project_id, 'taskId', a.task_id, 'commentId', a.comment_id, 'filename', a.filename,
    'contentType', a.content_type, 'size', a.size, 'sha256', a.sha256, 'uploaderId', a.uploader_id,
    'thumbnail', a.thumbnail, 'createdAt', to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
  ) order by a.created_at, a.id), '[]'::json) from ${attachments} as a where a.comment_id = ${comments.id})`;

/** The aggregate's JSON as rows (the drivers hand json over parsed, or as text). */
const attachmentRowsOf = (value: AttachmentJson[] | string): AttachmentRow[] =>
  (typeof value === 'string' ? (JSON.parse(value) as AttachmentJson[]) : value).map((row) => ({ ...row, size: Number(row.size), createdAt: new Date(row.createdAt) }));

const commentColumns = {
  id: comments.id,
  taskId: comments.taskId,
  projectId: comments.projectId,
  authorId: comments.authorId,
  authorName: users.name,
  text: comments.text,
  mentionIds: comments.mentionIds,
  createdAt: comments.createdAt,
  updatedAt: comments.updatedAt,
  attachments: commentAttachments,
};

const selectComments = (db: Db) => db.select(commentColumns).from(comments).innerJoin(users, eq(users.id, comments.authorId));
const toRows = (rows: (Omit<CommentRow, 'attachments'> & { attachments: AttachmentJson[] | string })[]): CommentRow[] =>
  rows.map((row) => ({ ...row, attachments: attachmentRowsOf(row.attachments) }));

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
  return toRows(await (options.lock ? query.for('update', { of: comments }) : query).execute())[0];
};

/** A task's comments, oldest first, strictly after the (createdAt, id) cursor; served by comments_task_idx. */
export const listComments = async (db: Db, taskId: string, cursor: CursorValue[] | undefined, limit: number): Promise<CommentRow[]> =>
  toRows(await selectComments(db)
    .where(
      and(
        eq(comments.taskId, taskId),
        cursor ? sql`(${comments.createdAt}, ${comments.id}) > (${cursor[0]}::timestamptz, ${cursor[1]}::uuid)` : undefined,
      ),
    )
    .orderBy(asc(comments.createdAt), asc(comments.id))
    .limit(limit));

/**
 * The task's attachments among `ids`, locked FOR UPDATE so none is deleted (nor moved to another
 * comment) before the naming comment commits; an id that is no attachment of the task is missing.
 */
export const attachmentsOfTask = (db: Db, taskId: string, ids: string[]): Promise<AttachmentRow[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .select()
        .from(attachments)
        .where(and(eq(attachments.taskId, taskId), inArray(attachments.id, ids)))
        .orderBy(asc(attachments.createdAt), asc(attachments.id))
        .for('update')
        .execute();

/** Makes `ids` the comment's attachments: named ones get its id, the ones it named before and not now lose it. */
export const setCommentAttachments = (db: Db, commentId: string, ids: string[], { replace }: { replace: boolean }) =>
  Promise.all([
    replace &&
      db
        .update(attachments)
        .set({ commentId: null })
        .where(and(eq(attachments.commentId, commentId), ids.length > 0 ? notInArray(attachments.id, ids) : undefined))
        .execute(),
    ids.length > 0 && db.update(attachments).set({ commentId }).where(inArray(attachments.id, ids)).execute(),
  ]);
