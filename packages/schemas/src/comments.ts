import { z } from 'zod';
import { AttachmentSchema } from './attachments';
import { IdRefSchema, IdSchema, PageQueryShape, PathIdSchema, TimestampSchema, trimmed } from './common';
import { MentionIdsSchema } from './notifications';
import { COMMENT_TEXT_MAX } from './constants';

export { COMMENT_TEXT_MAX } from './constants';

/** The most attachments one comment names. */
export const COMMENT_ATTACHMENTS_MAX = 50;

const AttachmentIdsSchema = z
  .array(IdRefSchema)
  .max(COMMENT_ATTACHMENTS_MAX, { error: `attachmentIds lists at most ${COMMENT_ATTACHMENTS_MAX} attachments` })
  .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, { error: 'attachmentIds must not repeat an attachment' })
  .meta({
    description: `Attachments of the same task (uploaded first, POST /tasks/{id}/attachments) that the comment shows (distinct, at most ${COMMENT_ATTACHMENTS_MAX}); any other id: 400 ATTACHMENT_NOT_IN_TASK. On an edit the list replaces the comment's attachments (those left out stay on the task, named by no comment); without it they stay`,
  });

export const CommentSchema = z
  .object({
    id: IdSchema,
    text: z.string(),
    authorId: IdSchema,
    authorName: z.string().meta({ description: "The author's current name" }),
    taskId: IdSchema,
    mentionIds: z.array(IdSchema).meta({ description: 'The users the comment mentions' }),
    attachments: z.array(AttachmentSchema).meta({ description: 'The attachments the comment names (attachmentIds), oldest first; each has this commentId' }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'Comment' });

const CommentTextSchema = trimmed(1, COMMENT_TEXT_MAX);

export const CreateCommentInput = z
  .object({ id: PathIdSchema, text: CommentTextSchema, mentionIds: MentionIdsSchema.optional(), attachmentIds: AttachmentIdsSchema.optional() })
  .strict()
  .meta({ examples: [{ text: 'Draft is in the shared folder.' }, { text: '@Grace Hopper can you review?', mentionIds: ['0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b'] }, { text: 'The error on login:', attachmentIds: ['0193a5b4-9d2e-7f10-8a3b-5c6d7e8f9a0b'] }] });

export const ListCommentsInput = z.object({ id: PathIdSchema, ...PageQueryShape }).strict();

export const CommentPathInput = z.object({ id: PathIdSchema, commentId: PathIdSchema }).strict();

export const UpdateCommentInput = CommentPathInput.extend({ text: CommentTextSchema, mentionIds: MentionIdsSchema.optional(), attachmentIds: AttachmentIdsSchema.optional() })
  .strict()
  .meta({ examples: [{ text: 'Draft is in the shared folder (v2).' }] });

export type Comment = z.infer<typeof CommentSchema>;
export type CreateCommentInput = z.infer<typeof CreateCommentInput>;
export type ListCommentsInput = z.infer<typeof ListCommentsInput>;
export type CommentPathInput = z.infer<typeof CommentPathInput>;
export type UpdateCommentInput = z.infer<typeof UpdateCommentInput>;
