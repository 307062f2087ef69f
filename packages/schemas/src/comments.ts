import { z } from 'zod';
import { IdSchema, PageQueryShape, PathIdSchema, TimestampSchema, trimmed } from './common';

export const COMMENT_TEXT_MAX = 20_000;

export const CommentSchema = z
  .object({
    id: IdSchema,
    text: z.string(),
    authorId: IdSchema,
    authorName: z.string().meta({ description: "The author's current name" }),
    taskId: IdSchema,
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'Comment' });

const CommentTextSchema = trimmed(1, COMMENT_TEXT_MAX);

export const CreateCommentInput = z
  .object({ id: PathIdSchema, text: CommentTextSchema })
  .strict()
  .meta({ examples: [{ text: 'Draft is in the shared folder.' }] });

export const ListCommentsInput = z.object({ id: PathIdSchema, ...PageQueryShape }).strict();

export const CommentPathInput = z.object({ id: PathIdSchema, commentId: PathIdSchema }).strict();

export const UpdateCommentInput = CommentPathInput.extend({ text: CommentTextSchema })
  .strict()
  .meta({ examples: [{ text: 'Draft is in the shared folder (v2).' }] });

export type Comment = z.infer<typeof CommentSchema>;
export type CreateCommentInput = z.infer<typeof CreateCommentInput>;
export type ListCommentsInput = z.infer<typeof ListCommentsInput>;
export type CommentPathInput = z.infer<typeof CommentPathInput>;
export type UpdateCommentInput = z.infer<typeof UpdateCommentInput>;
