import {
  CreateProjectInput,
  ListProjectsInput,
  MessageSchema,
  PathIdInput,
  ProjectEventsInput,
  ProjectDetailSchema,
  ProjectSchema,
  TransferOwnershipInput,
  UpdateProjectInput,
} from '@tasklane/schemas';
import { tracked } from '@trpc/server';
import { acceptedVersions, withETag } from '../../../platform/versions';
import { toTRPCError } from '../errors';
import { idempotentCreate } from '../idempotent';
import { protectedProcedure, router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['projects'];

/**
 * `projects.events`: the live stream as a tRPC subscription (SSE transport). Each event is tracked
 * by its id, so the client's automatic reconnect resumes after the last one it received. A client
 * too slow to keep up has its connection dropped rather than sent an error: tRPC's client ends a
 * subscription on an error, but reconnects (resuming) after a lost connection.
 */
const projectEvents = protectedProcedure
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

export const projectsRouter = router({
  ...pagedList('list', {
    meta: { openapi: { method: 'GET', path: '/projects', tags, summary: 'List projects', description: 'The projects the caller is a member of, oldest first, paged by cursor.' } },
    input: ListProjectsInput.optional(),
    item: ProjectSchema,
    list: (ctx, input) => ctx.services.projects.list(ctx.userId, input ?? {}),
  }),

  create: protectedProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects', tags, summary: 'Create a project', description: 'The caller becomes its owner and an ADMIN member. `key` (the stem of its task keys) is derived from the name when absent; one any project has or had: 409 PROJECT_KEY_TAKEN. Honours Idempotency-Key.' },
      successStatus: 201,
      location: '/projects/{id}',
      errors: [409],
      headers: ['ETag', 'Idempotent-Replayed'],
      requestHeaders: ['Idempotency-Key'],
    })
    .input(CreateProjectInput)
    .output(ProjectSchema)
    .mutation(async ({ ctx, input }) =>
      withETag(ctx.response, await idempotentCreate(ctx, 'projects.create', input, () => ctx.services.projects.create(ctx.userId, input))),
    ),

  get: protectedProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{id}', tags, summary: 'Get a project', description: "Members only; anyone else gets 404. Also returns `taskCounts` by status and the caller's `role` (OWNER for the owner). The ETag is the project's version, for If-Match." },
      headers: ['ETag'],
    })
    .input(PathIdInput)
    .output(ProjectDetailSchema)
    .query(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.projects.get(ctx.userId, input.id))),

  update: protectedProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/projects/{id}', tags, summary: 'Update a project', description: 'Name, description and key (409 PROJECT_KEY_TAKEN; the former key keeps finding its tasks); ADMIN or owner. With If-Match, a stale version is refused (412).' },
      errors: [403, 409, 412],
      headers: ['ETag'],
      requestHeaders: ['If-Match'],
    })
    .input(UpdateProjectInput)
    .output(ProjectSchema)
    .mutation(async ({ ctx, input }) =>
      withETag(ctx.response, await ctx.services.projects.update(ctx.userId, input, acceptedVersions(ctx.ifMatch))),
    ),

  delete: protectedProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/projects/{id}', tags, summary: 'Delete a project', description: 'Owner only. Deletes its tasks, comments and memberships too. With If-Match, a stale version is refused (412).' },
      errors: [403, 412],
      requestHeaders: ['If-Match'],
    })
    .input(PathIdInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.projects.remove(ctx.userId, input.id, acceptedVersions(ctx.ifMatch))),

  transferOwnership: protectedProcedure
    .meta({
      openapi: { method: 'POST', path: '/projects/{id}/transfer-ownership', tags, summary: 'Transfer ownership', description: 'Owner only. `userId` must be a member (400 NOT_A_MEMBER); they become owner and ADMIN, the former owner stays an ADMIN member.' },
      errors: [403],
      headers: ['ETag'],
    })
    .input(TransferOwnershipInput)
    .output(ProjectSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.projects.transferOwnership(ctx.userId, input))),

  events: projectEvents,
});
