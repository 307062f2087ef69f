import { z } from 'zod';
import { IdSchema, PathIdSchema, TimestampSchema } from './common';

/** The default of ATTACHMENT_MAX_BYTES: 25 MiB. */
export const ATTACHMENT_MAX_BYTES_DEFAULT = 26_214_400;
/** A filename is kept for display up to this many bytes of UTF-8. */
export const ATTACHMENT_FILENAME_MAX_BYTES = 255;

export const AttachmentSchema = z
  .object({
    id: IdSchema,
    taskId: IdSchema,
    commentId: IdSchema.nullable().meta({ description: 'The comment naming the attachment, if any' }),
    filename: z.string().meta({
      description: 'As uploaded, for display: Unicode kept, control characters and path separators removed, at most 255 bytes of UTF-8',
    }),
    contentType: z.string().meta({ description: "Decided from the file's own bytes, never the uploader's word (application/octet-stream when unknown)" }),
    size: z.number().int().meta({ description: 'Bytes' }),
    sha256: z.string().meta({ description: 'SHA-256 of the bytes, lower-case hex (also the content ETag)' }),
    uploaderId: IdSchema.nullable().meta({ description: 'Null once the uploader’s account is deleted' }),
    createdAt: TimestampSchema,
    thumbnail: z.boolean().meta({ description: 'Whether GET /attachments/{id}/thumbnail has a preview (PNG, JPEG, GIF, WebP of at most 50 megapixels)' }),
    downloadUrl: z.string().meta({
      description: 'A signed link to the bytes, usable without a token until it expires (ATTACHMENT_LINK_TTL): a path relative to the server, `/api/v1/attachments/{id}/content?expires=…&signature=…`',
    }),
  })
  .meta({
    id: 'Attachment',
    example: {
      id: '0193a5b4-9d2e-7f10-8a3b-5c6d7e8f9a0b',
      taskId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b',
      commentId: null,
      filename: 'screenshot.png',
      contentType: 'image/png',
      size: 48213,
      sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      uploaderId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8c',
      createdAt: '2026-11-21T09:30:00.000Z',
      thumbnail: true,
      downloadUrl: '/api/v1/attachments/0193a5b4-9d2e-7f10-8a3b-5c6d7e8f9a0b/content?expires=1795253700&signature=3q2-7w',
    },
  });

/** GET /tasks/{id}/attachments: the task's attachments, oldest first. */
export const ListAttachmentsInput = z.object({ id: PathIdSchema }).strict();
/** GET / DELETE /attachments/{id}. */
export const AttachmentPathInput = z.object({ id: PathIdSchema }).strict();

export type Attachment = z.infer<typeof AttachmentSchema>;
export type ListAttachmentsInput = z.infer<typeof ListAttachmentsInput>;
export type AttachmentPathInput = z.infer<typeof AttachmentPathInput>;
