import { CreateLabelInput, LabelPathInput, LabelSchema, ListLabelsInput, MessageSchema, UpdateLabelInput } from '@tasklane/schemas';
import { acceptedVersions, withETag } from '../../../platform/versions';
import { protectedProcedure, router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['labels'];
const base = '/projects/{id}/labels';
const managers = 'EDITOR, ADMIN or owner.';
const staleRefused = 'With If-Match, a stale version is refused (412).';

export const labelsRouter = router({
  ...pagedList('list', {
    meta: { openapi: { method: 'GET', path: base, tags, summary: "List a project's labels", description: 'By name regardless of case, paged by cursor. Members of the project.' } },
    input: ListLabelsInput,
    item: LabelSchema,
    list: (ctx, input) => ctx.services.labels.list(ctx.userId, input),
  }),

  create: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: base,
        tags,
        summary: 'Create a label',
        description: `Names are unique in the project regardless of case (409 LABEL_EXISTS); color is \`#rrggbb\`. ${managers}`,
      },
      successStatus: 201,
      location: '/projects/{projectId}/labels/{id}',
      errors: [403, 409],
      headers: ['ETag'],
    })
    .input(CreateLabelInput)
    .output(LabelSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.labels.create(ctx.userId, input))),

  get: protectedProcedure
    .meta({ openapi: { method: 'GET', path: `${base}/{labelId}`, tags, summary: 'Get a label', description: 'Members of the project.' }, headers: ['ETag'] })
    .input(LabelPathInput)
    .output(LabelSchema)
    .query(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.labels.get(ctx.userId, input))),

  update: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: `${base}/{labelId}`, tags, summary: 'Update a label', description: `Name or color; a name the project already has is a 409 (LABEL_EXISTS). ${managers} ${staleRefused}` },
      errors: [403, 409, 412],
      headers: ['ETag'],
      requestHeaders: ['If-Match'],
    })
    .input(UpdateLabelInput)
    .output(LabelSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.labels.update(ctx.userId, input, acceptedVersions(ctx.ifMatch)))),

  delete: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: `${base}/{labelId}`, tags, summary: 'Delete a label', description: `Takes it off every task carrying it (each a recorded task update), in the same transaction. ${managers} ${staleRefused}` },
      errors: [403, 412],
      requestHeaders: ['If-Match'],
    })
    .input(LabelPathInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.labels.remove(ctx.userId, input, acceptedVersions(ctx.ifMatch))),
});
