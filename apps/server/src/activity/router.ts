import { ActivitySchema, ListProjectActivityInput, ListTaskActivityInput, ProjectEventsInput, pageOf } from '@tasklane/schemas';
import { tracked } from '@trpc/server';
import { z } from 'zod';
import { announceNextPage } from '../lib/paging';
import { protectedProcedure, router } from '../trpc/init';

const tags = ['activity'];
const pagingNote = 'Newest first, paged by cursor (`Link: rel="next"`). Every member may read it. Event types and payloads: docs/events.md.';

export const activityRouter = router({
  listForProject: protectedProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{id}/activity', tags, summary: "A project's activity", description: `Every change of the project, its members, tasks and comments: who, when, what, and for updates the old and new values. ${pagingNote}` },
      headers: ['Link'],
    })
    .input(ListProjectActivityInput)
    .output(z.array(ActivitySchema))
    .query(async ({ ctx, input }) => {
      const page = await ctx.services.activity.listForProject(ctx.userId, input);
      announceNextPage(ctx.response, ctx.url, page.nextCursor);
      return page.items;
    }),

  listForTask: protectedProcedure
    .meta({
      openapi: { method: 'GET', path: '/tasks/{id}/activity', tags, summary: "A task's activity", description: `Changes of the task and its comments. ${pagingNote}` },
      headers: ['Link'],
    })
    .input(ListTaskActivityInput)
    .output(z.array(ActivitySchema))
    .query(async ({ ctx, input }) => {
      const page = await ctx.services.activity.listForTask(ctx.userId, input);
      announceNextPage(ctx.response, ctx.url, page.nextCursor);
      return page.items;
    }),

  /** tRPC-only twins with the next cursor in the body (the SDK's paging). */
  listForProjectPage: protectedProcedure
    .input(ListProjectActivityInput)
    .output(pageOf(ActivitySchema))
    .query(({ ctx, input }) => ctx.services.activity.listForProject(ctx.userId, input)),

  listForTaskPage: protectedProcedure
    .input(ListTaskActivityInput)
    .output(pageOf(ActivitySchema))
    .query(({ ctx, input }) => ctx.services.activity.listForTask(ctx.userId, input)),
});

/**
 * `projects.events`: the live stream as a tRPC subscription (SSE transport). Each event is tracked
 * by its id, so the client's automatic reconnect resumes after the last one it received.
 */
export const projectEvents = protectedProcedure
  .input(ProjectEventsInput)
  .subscription(async function* ({ ctx, input, signal }) {
    const events = ctx.services.events.follow(ctx.userId, input.projectId, {
      lastEventId: input.lastEventId ?? null,
      ...(signal ? { signal } : {}),
      transport: 'trpc',
    });
    for await (const entry of events) yield tracked(entry.id, entry);
  });
