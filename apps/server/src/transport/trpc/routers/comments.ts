import {
  CommentPathInput,
  CommentSchema,
  CreateCommentInput,
  ListCommentsInput,
  MessageSchema,
  UpdateCommentInput,
} from '@tasklane/schemas';
import { acceptedVersions, withETag } from '../../../platform/versions';
import { idempotentCreate } from '../idempotent';
import { protectedProcedure, router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['comments'];

export const commentsRouter = router({
  ...pagedList('list', {
    meta: { openapi: { method: 'GET', path: '/tasks/{id}/comments', tags, summary: "List a task's comments", description: 'Oldest first, paged by cursor. Members of the project.' } },
    input: ListCommentsInput,
    item: CommentSchema,
    list: (ctx, input) => ctx.services.comments.list(ctx.userId, input),
  }),

  create: protectedProcedure
    .meta({
      openapi: { method: 'POST', path: '/tasks/{id}/comments', tags, summary: 'Comment on a task', description: 'EDITOR, ADMIN or owner; authorId is the caller. Honours Idempotency-Key.' },
      successStatus: 201,
      location: '/tasks/{taskId}/comments/{id}',
      errors: [403, 409],
      headers: ['ETag', 'Idempotent-Replayed'],
      requestHeaders: ['Idempotency-Key'],
    })
    .input(CreateCommentInput)
    .output(CommentSchema)
    .mutation(async ({ ctx, input }) =>
      withETag(ctx.response, await idempotentCreate(ctx, 'comments.create', input, () => ctx.services.comments.create(ctx.userId, input))),
    ),

  get: protectedProcedure
    .meta({
      openapi: { method: 'GET', path: '/tasks/{id}/comments/{commentId}', tags, summary: 'Get a comment', description: 'Members of the project. The ETag is for If-Match on PATCH and DELETE.' },
      headers: ['ETag'],
    })
    .input(CommentPathInput)
    .output(CommentSchema)
    .query(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.comments.get(ctx.userId, input))),

  update: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/tasks/{id}/comments/{commentId}', tags, summary: 'Edit a comment', description: 'The author only (403 NOT_AUTHOR). With If-Match, a stale version is refused (412).' },
      errors: [403, 412],
      headers: ['ETag'],
      requestHeaders: ['If-Match'],
    })
    .input(UpdateCommentInput)
    .output(CommentSchema)
    .mutation(async ({ ctx, input }) =>
      withETag(ctx.response, await ctx.services.comments.update(ctx.userId, input, acceptedVersions(ctx.ifMatch))),
    ),

  delete: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/tasks/{id}/comments/{commentId}', tags, summary: 'Delete a comment', description: 'The author, or ADMIN and owner. With If-Match, a stale version is refused (412).' },
      errors: [403, 412],
      requestHeaders: ['If-Match'],
    })
    .input(CommentPathInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.comments.remove(ctx.userId, input, acceptedVersions(ctx.ifMatch))),
});
