import type { Db } from '@tasklane/db';
import type { Attachment, Comment, CommentPathInput, CreateCommentInput, ListCommentsInput, UpdateCommentInput } from '@tasklane/schemas';
import { isId, newId } from '../../platform/ids';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { nextVersion, requireVersion } from '../../platform/versions';
import { authorize, authorizeCommentChange } from '../policy/policy';
import { recordEvent } from '../../events/record';
import { changedFields } from '../../events/changes';
import type { TaskLock } from '../../events/scope';
import type { TasksService } from '../tasks/service';
import { DomainError, notFound } from '../../platform/errors';
import { membersAmong } from '../policy/access';
import * as store from './store';

/**
 * The attachments service's two views of an attachment row (resources/attachments): the API's, with
 * a signed download link, and history's, without one (a link would outlive its use there).
 */
export interface AttachmentViews {
  toAttachment(row: store.AttachmentRow): Attachment;
  toRecorded(row: store.AttachmentRow): Omit<Attachment, 'downloadUrl'>;
}

/** A comment as the API shows it, or (`view` toRecorded) as its history keeps it. */
const commentOf = <A>(row: store.CommentRow, view: (row: store.AttachmentRow) => A) => ({
  id: row.id,
  text: row.text,
  authorId: row.authorId,
  authorName: row.authorName,
  taskId: row.taskId,
  mentionIds: row.mentionIds,
  attachments: row.attachments.map(view),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id) => b.includes(id));

/** Mentioned users (and named attachments) as stored: lower case, as the database returns ids. */
const normalizedMentions = (mentionIds: readonly string[]) => mentionIds.map((id) => id.toLowerCase());

/**
 * The task's attachments a comment names, locked, in the write's transaction: every id must be
 * one (an unknown id, or one of another task, is a 400 naming the field).
 */
async function namedAttachments(tx: Db, taskId: string, ids: readonly string[]): Promise<store.AttachmentRow[]> {
  const found = ids.every(isId) ? await store.attachmentsOfTask(tx, taskId, [...ids]) : [];
  const strangers = ids.filter((id) => !found.some((row) => row.id === id));
  if (strangers.length > 0) {
    throw new DomainError('BAD_REQUEST', `attachmentIds: not attachments of the task: ${strangers.slice(0, 5).join(', ')}`, 'ATTACHMENT_NOT_IN_TASK');
  }
  return found;
}

/** Which of the mentioned (normalizedMentions) are members of the project, read in the write's transaction (which holds the project's lock). */
const mentionedMembers = (tx: Db, projectId: string, mentions: readonly string[]): Promise<Set<string>> =>
  mentions.every(isId) ? membersAmong(tx, projectId, mentions) : Promise.resolve(new Set());

/** Every mentioned user must be a current member of the project: else a 400 naming the others. */
function requireMembers(mentions: readonly string[], members: Set<string>): void {
  const strangers = mentions.filter((id) => !members.has(id));
  if (strangers.length > 0) {
    throw new DomainError('BAD_REQUEST', `mentionIds: not members of the project: ${strangers.slice(0, 5).join(', ')}`, 'MENTION_NOT_MEMBER');
  }
}

export function createCommentsService(db: Db, tasks: TasksService, views: AttachmentViews) {
  const toComment = (row: store.CommentRow): Comment => commentOf(row, views.toAttachment);
  const toRecorded = (row: store.CommentRow) => commentOf(row, views.toRecorded);

  /**
   * A write to a task's comments: one transaction that locks the task's project and then the task
   * (the tasks service's inTaskTransaction: the lock order of platform/locks.ts), so neither can
   * go, nor the project's members change, before it commits; a task gone meanwhile is its 404.
   * An insert or a deletion takes the task's row FOR NO KEY UPDATE at once, since migration 0006's
   * trigger then updates the row's comment_count (events/scope.ts TaskLock); an edit, KEY SHARE.
   */
  const inTaskTransaction = <T>(taskId: string, lockTask: TaskLock, body: (tx: Db, projectId: string) => Promise<T>): Promise<T> =>
    tasks.inTaskTransaction(taskId, { lockTask }, body);

  /**
   * In a comment write's transaction: the caller's access to the task (404 for non-members), the
   * comment locked FOR UPDATE (404 when it is not the task's) and the mentioned users' membership,
   * read together in one round trip.
   */
  async function loadForChange(tx: Db, projectId: string, userId: string, { id: taskId, commentId }: CommentPathInput, mentions?: string[]) {
    const [{ access }, comment, members] = await Promise.all([
      tasks.loadTask(userId, taskId, { tx }),
      isId(commentId) ? store.findComment(tx, taskId, commentId, { lock: true }) : undefined,
      mentions ? mentionedMembers(tx, projectId, mentions) : undefined,
    ]);
    if (!comment) throw notFound('Comment');
    return { access, comment, members };
  }

  return {
    /** One transaction: access and mentions checked under the task's and project's locks, the comment inserted and recorded. */
    async create(userId: string, { id: taskId, text, mentionIds = [], attachmentIds = [] }: CreateCommentInput): Promise<Comment> {
      const mentions = normalizedMentions(mentionIds);
      const attachmentIdsGiven = normalizedMentions(attachmentIds);
      return inTaskTransaction(taskId, 'no key update', async (tx, projectId) => {
        const [{ task, access, callerName }, members] = await Promise.all([
          tasks.loadTask(userId, taskId, { tx, withName: true }),
          mentionedMembers(tx, projectId, mentions),
        ]);
        authorize(access, 'comment.create');
        requireMembers(mentions, members);
        const named = await namedAttachments(tx, task.id, attachmentIdsGiven);
        const now = new Date();
        const row = { id: newId(), taskId: task.id, projectId, authorId: userId, text, mentionIds: mentions, createdAt: now, updatedAt: now };
        const created = { ...row, authorName: callerName, attachments: named.map((attachment) => ({ ...attachment, commentId: row.id })) };
        // Sent together (store.ts), in this order (the attachments name the inserted comment): one round trip.
        await Promise.all([
          store.insertComment(tx, row),
          store.setCommentAttachments(tx, row.id, attachmentIdsGiven, { replace: false }),
          recordEvent(tx, { projectId, taskId: task.id, actorId: userId, type: 'comment.created', resource: toRecorded(created) }),
        ]);
        return toComment(created);
      });
    },

    /** Oldest first, paged by (createdAt, id). */
    async list(userId: string, { id: taskId, ...query }: ListCommentsInput): Promise<Page<Comment>> {
      await tasks.loadTask(userId, taskId);
      const limit = pageSize(query.limit);
      const cursor = decodeCursor(query.cursor, [cursorChecks.timestamp, cursorChecks.id]);
      const rows = await store.listComments(db, taskId, cursor, limit + 1);
      return toPage(rows, limit, toComment, (row) => [row.createdAt.toISOString(), row.id]);
    },

    async get(userId: string, { id: taskId, commentId }: CommentPathInput): Promise<Comment> {
      await tasks.loadTask(userId, taskId);
      const comment = isId(commentId) ? await store.findComment(db, taskId, commentId) : undefined;
      if (!comment) throw notFound('Comment');
      return toComment(comment);
    },

    /** The author only; `versions` (If-Match) is checked under the row lock. */
    /** Without `mentionIds` the mentions stay, without `attachmentIds` the attachments; given, each list replaces the old. */
    async update(userId: string, { text, mentionIds, attachmentIds, ...path }: UpdateCommentInput, versions?: Date[]): Promise<Comment> {
      const mentions = mentionIds && normalizedMentions(mentionIds);
      const attachmentIdsGiven = attachmentIds && normalizedMentions(attachmentIds);
      return inTaskTransaction(path.id, 'key share', async (tx, projectId) => {
        const { access, comment: before, members } = await loadForChange(tx, projectId, userId, path, mentions);
        authorizeCommentChange(access, 'edit', before.authorId === userId);
        if (mentions && members) requireMembers(mentions, members);
        requireVersion(before, versions, 'Comment');
        const named = attachmentIdsGiven && (await namedAttachments(tx, before.taskId, attachmentIdsGiven));
        const patch = { text, mentionIds: mentions ?? before.mentionIds, updatedAt: nextVersion(before.updatedAt) };
        const attachments = named ? named.map((attachment) => ({ ...attachment, commentId: before.id })) : before.attachments;
        const old = toRecorded(before);
        const after = toRecorded({ ...before, ...patch, attachments });
        const oldAttachmentIds = old.attachments.map((attachment) => attachment.id);
        const newAttachmentIds = after.attachments.map((attachment) => attachment.id);
        const changes = {
          ...changedFields(old, after, ['text']),
          ...(sameIds(old.mentionIds, after.mentionIds) ? {} : { mentionIds: { old: old.mentionIds, new: after.mentionIds } }),
          ...(sameIds(oldAttachmentIds, newAttachmentIds) ? {} : { attachmentIds: { old: oldAttachmentIds, new: newAttachmentIds } }),
        };
        // An edit that changes nothing is still a new version, with nothing to record.
        await Promise.all([
          store.updateComment(tx, before.id, patch),
          attachmentIdsGiven && store.setCommentAttachments(tx, before.id, attachmentIdsGiven, { replace: true }),
          Object.keys(changes).length > 0 &&
            recordEvent(tx, {
              projectId,
              taskId: before.taskId,
              actorId: userId,
              type: 'comment.updated',
              resource: after,
              changes,
            }),
        ]);
        return toComment({ ...before, ...patch, attachments });
      });
    },

    /** The author, or ADMIN and owner; `versions` (If-Match) is checked under the row lock. */
    async remove(userId: string, path: CommentPathInput, versions?: Date[]): Promise<{ message: string }> {
      await inTaskTransaction(path.id, 'no key update', async (tx, projectId) => {
        const { access, comment } = await loadForChange(tx, projectId, userId, path);
        authorizeCommentChange(access, 'delete', comment.authorId === userId);
        requireVersion(comment, versions, 'Comment');
        // Deleted before its history entry is recorded (store.ts), sent together: one round trip.
        await Promise.all([
          store.deleteComment(tx, comment.id),
          recordEvent(tx, { projectId, taskId: comment.taskId, actorId: userId, type: 'comment.deleted', resource: toRecorded(comment) }),
        ]);
      });
      return { message: 'Comment deleted' };
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
