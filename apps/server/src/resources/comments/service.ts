import type { Db } from '@tasklane/db';
import type { Comment, CommentPathInput, CreateCommentInput, ListCommentsInput, UpdateCommentInput } from '@tasklane/schemas';
import { isId, newId } from '../../platform/ids';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { nextVersion, requireVersion } from '../../platform/versions';
import { authorize, authorizeCommentChange } from '../policy/policy';
import { recordEvent } from '../../events/record';
import { changedFields } from '../../events/changes';
import { transactionIn } from '../../events/scope';
import type { TasksService } from '../tasks/service';
import { DomainError, notFound } from '../../platform/errors';
import { checkedWhileThere, membersAmong } from '../policy/access';
import * as store from './store';

export const toComment = (row: store.CommentRow): Comment => ({
  id: row.id,
  text: row.text,
  authorId: row.authorId,
  authorName: row.authorName,
  taskId: row.taskId,
  mentionIds: row.mentionIds,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id) => b.includes(id));

export function createCommentsService(db: Db, tasks: TasksService) {
  /** The comment and the caller's access to its task's project; 404 when either is not visible. */
  async function loadComment(userId: string, { id: taskId, commentId }: CommentPathInput) {
    const { access } = await tasks.loadTask(userId, taskId);
    const comment = isId(commentId) ? await store.findComment(db, taskId, commentId) : undefined;
    if (!comment) throw notFound('Comment');
    return { comment, access };
  }

  /** The mentioned users, in lower case, once each; every one must be a current member of the project. */
  async function checkMentions(projectId: string, mentionIds: readonly string[]): Promise<string[]> {
    const ids = mentionIds.map((id) => id.toLowerCase());
    const members = ids.every(isId) ? await membersAmong(db, projectId, ids) : new Set<string>();
    const strangers = ids.filter((id) => !members.has(id));
    if (strangers.length > 0) {
      throw new DomainError('BAD_REQUEST', `mentionIds: not members of the project: ${strangers.slice(0, 5).join(', ')}`, 'MENTION_NOT_MEMBER');
    }
    return ids;
  }

  /** checkMentions; a mention refused because the task went (with its project's members) meanwhile is the task's 404. */
  const mentionsWhileThere = (userId: string, taskId: string, projectId: string, mentionIds: readonly string[]): Promise<string[]> =>
    checkedWhileThere(() => checkMentions(projectId, mentionIds), () => tasks.loadTask(userId, taskId));

  return {
    async create(userId: string, { id: taskId, text, mentionIds = [] }: CreateCommentInput): Promise<Comment> {
      const { task, access, authorName } = await tasks.loadTaskForAuthor(userId, taskId);
      authorize(access, 'comment.create');
      const mentions = await mentionsWhileThere(userId, taskId, access.projectId, mentionIds);
      const now = new Date();
      const row = { id: newId(), taskId: task.id, authorId: userId, text, mentionIds: mentions, createdAt: now, updatedAt: now };
      const comment = toComment({ ...row, authorName });
      // The comment and its event in one transaction; its notifications and new watchers follow from the event (events/dispatcher.ts).
      const written = await store.insertComment(db, row, {
        projectId: access.projectId,
        taskId: task.id,
        actorId: userId,
        type: 'comment.created',
        resource: comment,
      });
      if (!written) throw notFound('Task');
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

    /** The author only; `versions` (If-Match) is checked under the row lock. Without `mentionIds` the mentions stay. */
    async update(userId: string, { text, mentionIds, ...path }: UpdateCommentInput, versions?: Date[]): Promise<Comment> {
      const { comment, access } = await loadComment(userId, path);
      authorizeCommentChange(access, 'edit', comment.authorId === userId);
      const mentions = mentionIds === undefined ? undefined : await mentionsWhileThere(userId, path.id, access.projectId, mentionIds);
      return transactionIn(db, { projectId: access.projectId, taskId: comment.taskId }, 'Comment', async (tx) => {
        const before = requireVersion(await store.lockComment(tx, comment.id), versions, 'Comment');
        const row = await store.updateComment(tx, comment.id, { text, mentionIds: mentions ?? before.mentionIds, updatedAt: nextVersion(before.updatedAt) });
        if (!row) throw notFound('Comment');
        const after = toComment({ ...row, authorName: comment.authorName });
        const old = toComment({ ...before, authorName: comment.authorName });
        const changes = {
          ...changedFields(old, after, ['text']),
          ...(sameIds(old.mentionIds, after.mentionIds) ? {} : { mentionIds: { old: old.mentionIds, new: after.mentionIds } }),
        };
        if (Object.keys(changes).length > 0) {
          await recordEvent(tx, {
            projectId: access.projectId,
            taskId: comment.taskId,
            actorId: userId,
            type: 'comment.updated',
            resource: after,
            changes,
          });
        }
        return after;
      });
    },

    /** The author, or ADMIN and owner; `versions` (If-Match) is checked under the row lock. */
    async remove(userId: string, path: CommentPathInput, versions?: Date[]): Promise<{ message: string }> {
      const { comment, access } = await loadComment(userId, path);
      authorizeCommentChange(access, 'delete', comment.authorId === userId);
      await transactionIn(db, { projectId: access.projectId, taskId: comment.taskId }, 'Comment', async (tx) => {
        const before = requireVersion(await store.lockComment(tx, comment.id), versions, 'Comment');
        // Deleted before its history entry is recorded: the deletion counts it off its task (the
        // trigger of migration 0006), locking the task's row, and every writer of a task takes that
        // row before the project's lock that recording takes.
        await store.deleteComment(tx, comment.id);
        await recordEvent(tx, {
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
