import { z } from 'zod';
import { IdSchema, PathIdSchema, TimestampSchema } from './common';

export const COMMENT_TEXT_MAX = 20_000;

export const CommentSchema = z
  .object({
    id: IdSchema,
    text: z.string(),
    authorId: IdSchema,
    taskId: IdSchema,
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'Comment' });

export const CreateCommentInput = z
  .object({ id: PathIdSchema, text: z.string().trim().min(1).max(COMMENT_TEXT_MAX) })
  .strict()
  .meta({ examples: [{ text: 'Draft is in the shared folder.' }] });

export type Comment = z.infer<typeof CommentSchema>;
export type CreateCommentInput = z.infer<typeof CreateCommentInput>;
