import type { Db } from '@tasklane/db';
import type { Attachment, AttachmentPathInput, ListAttachmentsInput } from '@tasklane/schemas';
import { lockAttachmentFiles, removeUnnamedFiles } from '../../events/attachment-files';
import { recordEvent } from '../../events/record';
import { DomainError, notFound } from '../../platform/errors';
import { isId, newId } from '../../platform/ids';
import { type BlobStore, contentKey, thumbnailKey } from '../../platform/storage';
import { authorize, can, type ProjectAccess, requireReach } from '../policy/policy';
import type { TasksService } from '../tasks/service';
import { makeThumbnail, sanitizeFilename, sniffContentType, THUMBNAIL_TYPES } from './content';
import type { AttachmentLinks } from './links';
import * as store from './store';

/** An attachment's row, as the content routes serve it. */
export type AttachmentRow = store.AttachmentRow;

export interface AttachmentsOptions {
  files: BlobStore;
  links: AttachmentLinks;
  maxBytes: number;
  quotaBytes?: number;
}

/** An attachment as history, live events and webhooks keep it: without a signed link, which would outlive its use there. */
const toRecorded = (row: store.AttachmentRow) => ({
  id: row.id,
  taskId: row.taskId,
  commentId: row.commentId,
  filename: row.filename,
  contentType: row.contentType,
  size: row.size,
  sha256: row.sha256,
  uploaderId: row.uploaderId,
  createdAt: row.createdAt.toISOString(),
  thumbnail: row.thumbnail,
});

export function createAttachmentsService(db: Db, tasks: TasksService, options: AttachmentsOptions) {
  const { files, links } = options;
  const toAttachment = (row: store.AttachmentRow): Attachment => ({ ...toRecorded(row), downloadUrl: links.urlFor(row.id) });

  /**
   * The attachment and the caller's access to its project; 404 for non-members as for unknown ids,
   * and for a project the request's token does not reach (in `tx`, with `lock`, its row FOR UPDATE).
   * One statement: the row with the caller's role, not the attachment's task read in full.
   */
  async function loadAttachment(userId: string, id: string, options: { tx?: Db; lock?: boolean } = {}): Promise<{ row: store.AttachmentRow; access: ProjectAccess }> {
    const found = isId(id) ? await store.findAttachmentForUser(options.tx ?? db, id, userId, { lock: options.lock ?? false }) : undefined;
    if (!found?.role) throw notFound('Attachment');
    requireReach(found.row.projectId, 'Attachment');
    return { row: found.row, access: { projectId: found.row.projectId, role: found.role, isOwner: found.ownerId === userId } };
  }

  return {
    /** The two views of a row, for the comments that name attachments (comments/service.ts AttachmentViews). */
    toAttachment,
    toRecorded,

    /**
     * Before an upload's bytes are read: the task's project, and the caller may upload there (404
     * for non-members, 403 for VIEWERs), so no refused upload is stored even for a moment.
     */
    async prepareUpload(userId: string, taskId: string): Promise<{ projectId: string }> {
      const { access } = await tasks.loadTask(userId, taskId);
      authorize(access, 'attachments.upload');
      return { projectId: access.projectId };
    },

    /**
     * Streams the file to a temporary key (hashed and counted on the way; over maxBytes → 413,
     * nothing kept), decides its type from its bytes and makes its preview, then in one
     * transaction: the task's project and row locked (the tasks service's inTaskTransaction), access checked again, the
     * project's files lock taken, the quota checked, the file moved to its content key (unless the
     * same bytes are there already), the row inserted and the event recorded. The files lock is
     * held to the commit: see events/attachment-files.ts for why no removal can lose the file.
     */
    async upload(userId: string, taskId: string, source: NodeJS.ReadableStream, rawFilename: string | undefined): Promise<Attachment> {
      // Known once the transaction has locked the task's project (a failure before leaves no file to remove).
      let projectId: string | undefined;
      const stored = await files.upload(source, options.maxBytes);
      const temporaries = new Set([stored.temporaryKey]);
      let moved = false;
      try {
        const contentType = await sniffContentType(stored.head);
        const preview = THUMBNAIL_TYPES.has(contentType) ? await makeThumbnail(files, stored.temporaryKey, stored.head) : undefined;
        const previewKey = preview ? await files.putTemporary(preview) : undefined;
        if (previewKey) temporaries.add(previewKey);
        const row = await tasks.inTaskTransaction(taskId, { lockTask: 'key share' }, async (tx, project) => {
          projectId = project;
          const { task, access } = await tasks.loadTask(userId, taskId, { tx });
          authorize(access, 'attachments.upload');
          await lockAttachmentFiles(tx, projectId);
          const usage = await store.projectUsage(tx, projectId, stored.sha256);
          if (options.quotaBytes !== undefined && !usage.named && usage.bytes + stored.size > options.quotaBytes) {
            throw new DomainError('PAYLOAD_TOO_LARGE', `The project's storage quota (${options.quotaBytes} bytes) would be exceeded`, 'QUOTA_EXCEEDED');
          }
          const key = contentKey(projectId, stored.sha256);
          // The same bytes already stored (by a row, or left by a crash and about to be swept: the
          // sweep's check waits for this lock, then sees this row) are kept; else the upload's copy moves in.
          if (!(await files.exists(key))) {
            moved = true;
            await files.promote(stored.temporaryKey, key);
            temporaries.delete(stored.temporaryKey);
          }
          if (previewKey && !(await files.exists(thumbnailKey(projectId, stored.sha256)))) {
            moved = true;
            await files.promote(previewKey, thumbnailKey(projectId, stored.sha256));
            temporaries.delete(previewKey);
          }
          const inserted: store.AttachmentRow = {
            id: newId(),
            projectId,
            taskId: task.id,
            commentId: null,
            filename: sanitizeFilename(rawFilename),
            contentType,
            size: stored.size,
            sha256: stored.sha256,
            uploaderId: userId,
            thumbnail: preview !== undefined,
            createdAt: new Date(),
          };
          await store.insertAttachment(tx, inserted);
          await recordEvent(tx, { projectId, taskId: task.id, actorId: userId, type: 'attachment.created', resource: toRecorded(inserted) });
          return inserted;
        });
        return toAttachment(row);
      } catch (error) {
        // Rolled back after its file moved in: the file goes again unless a row names it (checked under the lock).
        if (moved && projectId) await removeUnnamedFiles(db, files, projectId, [stored.sha256]).catch(() => {});
        throw error;
      } finally {
        await files.remove([...temporaries]).catch(() => {});
      }
    },

    /** Oldest first; members of the project. */
    async list(userId: string, { id: taskId }: ListAttachmentsInput): Promise<Attachment[]> {
      const { task } = await tasks.loadTask(userId, taskId);
      return (await store.listAttachments(db, task.id)).map(toAttachment);
    },

    async get(userId: string, { id }: AttachmentPathInput): Promise<Attachment> {
      return toAttachment((await loadAttachment(userId, id)).row);
    },

    /** The attachment a member may read (the content and thumbnail routes, with a token). */
    async locate(userId: string, id: string): Promise<store.AttachmentRow> {
      return (await loadAttachment(userId, id)).row;
    },

    /** The attachment a signed link opens: 403 for a tampered or expired link, 404 once the attachment is gone. */
    async locateByLink(id: string, expires: string | undefined, signature: string | undefined): Promise<store.AttachmentRow> {
      if (!isId(id) || !links.verify(id, expires, signature)) throw new DomainError('FORBIDDEN', 'The link is invalid or has expired', 'INVALID_SIGNED_LINK');
      const row = await store.findAttachment(db, id);
      if (!row) throw notFound('Attachment');
      return row;
    },

    /** The uploader (while they may upload), or ADMIN and owner. The file goes after the commit (events/attachment-files.ts). */
    async remove(userId: string, { id }: AttachmentPathInput): Promise<{ message: string }> {
      if (!isId(id)) throw notFound('Attachment');
      await db.transaction(async (tx) => {
        // Its project's and task's locks first (the lock order), then its row's, then the checks.
        if (!(await store.lockAttachmentScope(tx, id))) throw notFound('Attachment');
        const { row, access } = await loadAttachment(userId, id, { tx, lock: true });
        const own = row.uploaderId === userId && can(access, 'attachments.upload');
        if (!own) authorize(access, 'attachments.deleteAny');
        await store.deleteAttachment(tx, row.id);
        await recordEvent(tx, { projectId: row.projectId, taskId: row.taskId, actorId: userId, type: 'attachment.deleted', resource: toRecorded(row) });
      });
      return { message: 'Attachment deleted' };
    },

    /** The blob keys of an attachment's bytes and preview. */
    keysOf: (row: store.AttachmentRow) => ({ content: contentKey(row.projectId, row.sha256), thumbnail: thumbnailKey(row.projectId, row.sha256) }),
    files,
  };
}

export type AttachmentsService = ReturnType<typeof createAttachmentsService>;
