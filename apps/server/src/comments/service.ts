import type { Db } from '@tasklane/db';
import type { Comment, CommentPathInput, CreateCommentInput, ListCommentsInput, UpdateCommentInput } from '@tasklane/schemas';
import { isId, newId } from '../lib/ids';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../lib/paging';
import { nextVersion, requireVersion } from '../lib/versions';
import { authorize, authorizeCommentChange } from '../policy';
import { changedFields, recordChange } from '../recorded-write';
import type { TasksService } from '../tasks/service';
import { notFound } from '../errors';
import * as store from './store';

export const toComment = (row: store.CommentRow): Comment => ({
  id: row.id,
  text: row.text,
  authorId: row.authorId,
  authorName: row.authorName,
  taskId: row.taskId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export function createCommentsService(db: Db, tasks: TasksService) {
  /** The comment and the caller's access to its task's project; 404 when either is not visible. */
  async function loadComment(userId: string, { id: taskId, commentId }: CommentPathInput) {
    const { access } = await tasks.loadTask(userId, taskId);
    const comment = isId(commentId) ? await store.findComment(db, taskId, commentId) : undefined;
    if (!comment) throw notFound('Comment');
    return { comment, access };
  }

  return {
    async create(userId: string, { id: taskId, text }: CreateCommentInput): Promise<Comment> {
      const { access, authorName } = await tasks.loadTaskForAuthor(userId, taskId);
      authorize(access, 'comment.create');
      const now = new Date();
      const row = { id: newId(), taskId, authorId: userId, text, createdAt: now, updatedAt: now };
      const comment = toComment({ ...row, authorName });
      // The comment and its history entry go to the database in one statement, atomic by itself.
      await store.insertComment(db, row, { projectId: access.projectId, taskId, actorId: userId, type: 'comment.created', resource: comment });
      return comment;
    },

    /** Oldest first, paged by (createdAt, id). */
    async list(userId: string, { id: taskId, ...query }: ListCommentsInput): Promise<Page<Comment>> {
      await tasks.loadTask(userId, taskId);
      const limit = pageSize(query.limit);
      const cursor = decodeCursor(query.cursor, [cursorChecks.timestamp, cursorChecks.id]);
      const rows = await store.listComments(db, taskId, cursor, limit + 1);
      return toPage(rows, limit, toComment, (row) => [row.createdAt.toISOString(), row.id]);
    },

    async get(userId: string, path: CommentPathInput): Promise<Comment> {
      return toComment((await loadComment(userId, path)).comment);
    },

    /** The author only; `versions` (If-Match) is checked under the row lock. */
    async update(userId: string, { text, ...path }: UpdateCommentInput, versions?: Date[]): Promise<Comment> {
      const { comment, access } = await loadComment(userId, path);
      authorizeCommentChange(access, 'edit', comment.authorId === userId);
      return db.transaction(async (tx) => {
        const before = requireVersion(await store.lockComment(tx, comment.id), versions, 'Comment');
        const row = await store.updateComment(tx, comment.id, { text, updatedAt: nextVersion(before.updatedAt) });
        if (!row) throw notFound('Comment');
        const after = toComment({ ...row, authorName: comment.authorName });
        const changes = changedFields(toComment({ ...before, authorName: comment.authorName }), after, ['text']);
        if (changes) await recordChange(tx, { projectId: access.projectId, taskId: comment.taskId, actorId: userId, type: 'comment.updated', resource: after, changes });
        return after;
      });
    },

    /** The author, or ADMIN and owner; `versions` (If-Match) is checked under the row lock. */
    async remove(userId: string, path: CommentPathInput, versions?: Date[]): Promise<{ message: string }> {
      const { comment, access } = await loadComment(userId, path);
      authorizeCommentChange(access, 'delete', comment.authorId === userId);
      await db.transaction(async (tx) => {
        const before = requireVersion(await store.lockComment(tx, comment.id), versions, 'Comment');
        // Deleted before its history entry is recorded: the deletion counts it off its task (the
        // trigger of migration 0006), locking the task's row, and every writer of a task takes that
        // row before the project's lock that recording takes.
        await store.deleteComment(tx, comment.id);
        await recordChange(tx, {
          projectId: access.projectId,
          taskId: comment.taskId,
          actorId: userId,
          type: 'comment.deleted',
          resource: toComment({ ...before, authorName: comment.authorName }),
        });
      });
      return { message: 'Comment deleted' };
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
