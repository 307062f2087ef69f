import { CommentSchema, CreateCommentInput } from '@tasklane/schemas';
import { protectedProcedure, router } from '../trpc/init';

const tags = ['comments'];

export const commentsRouter = router({
  create: protectedProcedure
    .meta({
      openapi: { method: 'POST', path: '/tasks/{id}/comments', tags, summary: 'Comment on a task', description: 'EDITOR, ADMIN or owner; authorId is the caller.' },
      successStatus: 201,
      errors: [403],
    })
    .input(CreateCommentInput)
    .output(CommentSchema)
    .mutation(({ ctx, input }) => ctx.services.comments.create(ctx.userId, input)),
});
