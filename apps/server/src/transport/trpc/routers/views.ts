import { CreateViewInput, ListViewsInput, MessageSchema, UpdateViewInput, ViewPathInput, ViewSchema } from '@tasklane/schemas';
import { acceptedVersions, withETag } from '../../../platform/versions';
import { protectedProcedure, router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['views'];
const base = '/projects/{id}/views';
const staleRefused = 'With If-Match, a stale version is refused (412).';
const whoChanges = "Its owner changes a personal view; a shared one, its owner while EDITOR or above, and ADMIN or the owner of the project for anyone's.";

export const viewsRouter = router({
  ...pagedList('list', {
    meta: {
      openapi: {
        method: 'GET',
        path: base,
        tags,
        summary: "List a project's saved views",
        description: "The project's shared views and the caller's personal ones, by name regardless of case, paged by cursor. Members of the project.",
      },
    },
    input: ListViewsInput,
    item: ViewSchema,
    list: (ctx, input) => ctx.services.views.list(ctx.userId, input),
  }),

  create: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: base,
        tags,
        summary: 'Save a view',
        description:
          'A name, a layout (board, list, calendar, timeline), the task list\'s filters and its sort. Any member saves a personal view, seen only by them; `shared: true` shows it to every member and needs EDITOR, ADMIN or owner. Filters are checked as the task list checks them (400 naming `filters.<key>`).',
      },
      successStatus: 201,
      location: '/projects/{projectId}/views/{id}',
      errors: [403],
      headers: ['ETag'],
    })
    .input(CreateViewInput)
    .output(ViewSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.views.create(ctx.userId, input))),

  get: protectedProcedure
    .meta({ openapi: { method: 'GET', path: `${base}/{viewId}`, tags, summary: 'Get a saved view', description: "A shared view, or the caller's own (another member's personal view is a 404)." }, headers: ['ETag'] })
    .input(ViewPathInput)
    .output(ViewSchema)
    .query(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.views.get(ctx.userId, input))),

  update: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: `${base}/{viewId}`, tags, summary: 'Update a saved view', description: `Name, layout, filters (replaced as a whole), sort or shared. ${whoChanges} ${staleRefused}` },
      errors: [403, 412],
      headers: ['ETag'],
      requestHeaders: ['If-Match'],
    })
    .input(UpdateViewInput)
    .output(ViewSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.views.update(ctx.userId, input, acceptedVersions(ctx.ifMatch)))),

  delete: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: `${base}/{viewId}`, tags, summary: 'Delete a saved view', description: `${whoChanges} ${staleRefused}` },
      errors: [403, 412],
      requestHeaders: ['If-Match'],
    })
    .input(ViewPathInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.views.remove(ctx.userId, input, acceptedVersions(ctx.ifMatch))),
});
