import { z } from 'zod';
import { IdSchema, PageQueryShape, PathIdSchema, TimestampSchema, trimmed } from './common';
import { MentionIdsSchema } from './notifications';

export const COMMENT_TEXT_MAX = 20_000;

export const CommentSchema = z
  .object({
    id: IdSchema,
    text: z.string(),
    authorId: IdSchema,
    authorName: z.string().meta({ description: "The author's current name" }),
    taskId: IdSchema,
    mentionIds: z.array(IdSchema).meta({ description: 'The users the comment mentions' }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'Comment' });

const CommentTextSchema = trimmed(1, COMMENT_TEXT_MAX);

export const CreateCommentInput = z
  .object({ id: PathIdSchema, text: CommentTextSchema, mentionIds: MentionIdsSchema.optional() })
  .strict()
  .meta({ examples: [{ text: 'Draft is in the shared folder.' }, { text: '@Grace Hopper can you review?', mentionIds: ['0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b'] }] });

export const ListCommentsInput = z.object({ id: PathIdSchema, ...PageQueryShape }).strict();

export const CommentPathInput = z.object({ id: PathIdSchema, commentId: PathIdSchema }).strict();

export const UpdateCommentInput = CommentPathInput.extend({ text: CommentTextSchema, mentionIds: MentionIdsSchema.optional() })
  .strict()
  .meta({ examples: [{ text: 'Draft is in the shared folder (v2).' }] });

export type Comment = z.infer<typeof CommentSchema>;
export type CreateCommentInput = z.infer<typeof CreateCommentInput>;
export type ListCommentsInput = z.infer<typeof ListCommentsInput>;
export type CommentPathInput = z.infer<typeof CommentPathInput>;
export type UpdateCommentInput = z.infer<typeof UpdateCommentInput>;
