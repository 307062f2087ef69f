import {
  CreateProjectInput,
  ListProjectsInput,
  MessageSchema,
  PathIdInput,
  ProjectSchema,
  UpdateProjectInput,
  pageOf,
} from '@tasklane/schemas';
import { z } from 'zod';
import { announceNextPage } from '../lib/paging';
import { protectedProcedure, router } from '../trpc/init';

const tags = ['projects'];

export const projectsRouter = router({
  list: protectedProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects', tags, summary: 'List projects', description: 'The projects the caller is a member of, oldest first, paged by cursor.' },
      headers: ['Link'],
    })
    .input(ListProjectsInput.optional())
    .output(z.array(ProjectSchema))
    .query(async ({ ctx, input }) => {
      const page = await ctx.services.projects.list(ctx.userId, input ?? {});
      announceNextPage(ctx.response, ctx.url, page.nextCursor);
      return page.items;
    }),

  /** The same list for tRPC clients, with the next cursor in the body (the SDK's paging). */
  listPage: protectedProcedure
    .input(ListProjectsInput.optional())
    .output(pageOf(ProjectSchema))
    .query(({ ctx, input }) => ctx.services.projects.list(ctx.userId, input ?? {})),

  create: protectedProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects', tags, summary: 'Create a project', description: 'The caller becomes its owner and an ADMIN member.' },
      successStatus: 201,
    })
    .input(CreateProjectInput)
    .output(ProjectSchema)
    .mutation(({ ctx, input }) => ctx.services.projects.create(ctx.userId, input)),

  get: protectedProcedure
    .meta({ openapi: { method: 'GET', path: '/projects/{id}', tags, summary: 'Get a project', description: 'Members only; anyone else gets 404.' } })
    .input(PathIdInput)
    .output(ProjectSchema)
    .query(({ ctx, input }) => ctx.services.projects.get(ctx.userId, input.id)),

  update: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/projects/{id}', tags, summary: 'Update a project', description: 'Name and description; ADMIN or owner.' },
      errors: [403],
    })
    .input(UpdateProjectInput)
    .output(ProjectSchema)
    .mutation(({ ctx, input }) => ctx.services.projects.update(ctx.userId, input)),

  delete: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/projects/{id}', tags, summary: 'Delete a project', description: 'Owner only. Deletes its tasks, comments and memberships too.' },
      errors: [403],
    })
    .input(PathIdInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.projects.remove(ctx.userId, input.id)),
});
