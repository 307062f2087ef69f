import { ActivitySchema, ListProjectActivityInput, ListTaskActivityInput, ProjectEventsInput } from '@tasklane/schemas';
import { tracked } from '@trpc/server';
import { toTRPCError } from '../trpc/errors';
import { protectedProcedure, router } from '../trpc/init';
import { pagedList } from '../trpc/paged-list';

const tags = ['activity'];
const pagingNote = 'Newest first, paged by cursor (`Link: rel="next"`). Every member may read it. Event types and payloads: docs/events.md.';

export const activityRouter = router({
  ...pagedList('listForProject', {
    meta: { openapi: { method: 'GET', path: '/projects/{id}/activity', tags, summary: "A project's activity", description: `Every change of the project, its members, tasks and comments: who, when, what, and for updates the old and new values. ${pagingNote}` } },
    input: ListProjectActivityInput,
    item: ActivitySchema,
    list: (ctx, input) => ctx.services.activity.listForProject(ctx.userId, input),
  }),

  ...pagedList('listForTask', {
    meta: { openapi: { method: 'GET', path: '/tasks/{id}/activity', tags, summary: "A task's activity", description: `Changes of the task and its comments. ${pagingNote}` } },
    input: ListTaskActivityInput,
    item: ActivitySchema,
    list: (ctx, input) => ctx.services.activity.listForTask(ctx.userId, input),
  }),
});

/**
 * `projects.events`: the live stream as a tRPC subscription (SSE transport). Each event is tracked
 * by its id, so the client's automatic reconnect resumes after the last one it received. A client
 * too slow to keep up has its connection dropped rather than sent an error: tRPC's client ends a
 * subscription on an error, but reconnects (resuming) after a lost connection.
 */
export const projectEvents = protectedProcedure
  .input(ProjectEventsInput)
  // A plain async resolver, not a generator: tRPC awaits it before telling the client the
  // subscription started, so the stream is subscribed by then (a generator would run only after).
  .subscription(async ({ ctx, input, signal }) => {
    const events = await ctx.services.events.follow(ctx.userId, input.projectId, {
      lastEventId: input.lastEventId ?? null,
      ...(signal ? { signal } : {}),
      transport: 'trpc',
      cutOff: () => ctx.dropConnection(),
    });
    return (async function* () {
      try {
        for await (const entry of events) yield tracked(entry.id, entry);
      } catch (error) {
        throw toTRPCError(error);
      }
    })();
  });
