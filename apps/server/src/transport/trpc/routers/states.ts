import { CreateStateInput, DeleteStateInput, ListStatesInput, MessageSchema, StatePathInput, StateSchema, STATES_MAX, UpdateStateInput } from '@tasklane/schemas';
import { z } from 'zod';
import { acceptedVersions, withETag } from '../../../platform/versions';
import { protectedProcedure, router } from '../init';

const tags = ['states'];
const base = '/projects/{id}/states';
const managers = 'ADMIN or owner.';
const staleRefused = 'With If-Match, a stale version is refused (412).';
const required = 'A project always keeps at least one `unstarted` and one `completed` state (409 STATE_REQUIRED).';

export const statesRouter = router({
  list: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: base,
        tags,
        summary: "List a project's workflow states",
        description: `In board order (by \`position\`); at most ${STATES_MAX}, so not paged. A task's \`status\` is one of their keys. Members of the project.`,
      },
    })
    .input(ListStatesInput)
    .output(z.array(StateSchema))
    .query(({ ctx, input }) => ctx.services.states.list(ctx.userId, input)),

  create: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: base,
        tags,
        summary: 'Create a workflow state',
        description: `Added as the last column of the board. \`key\` (UPPER_SNAKE, at most 30) is derived from the name when absent, unique in the project (409 STATE_EXISTS) and never changes; \`color\` is \`#rrggbb\`; at most ${STATES_MAX} states (409 STATE_LIMIT). ${managers}`,
      },
      successStatus: 201,
      location: '/projects/{projectId}/states/{id}',
      errors: [403, 409],
      headers: ['ETag'],
    })
    .input(CreateStateInput)
    .output(StateSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.states.create(ctx.userId, input))),

  get: protectedProcedure
    .meta({ openapi: { method: 'GET', path: `${base}/{stateId}`, tags, summary: 'Get a workflow state', description: 'Members of the project.' }, headers: ['ETag'] })
    .input(StatePathInput)
    .output(StateSchema)
    .query(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.states.get(ctx.userId, input))),

  update: protectedProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: `${base}/{stateId}`,
        tags,
        summary: 'Update a workflow state',
        description: `Name, colour, category or position (the states in between shift by one); the key never changes. ${required} ${managers} ${staleRefused}`,
      },
      errors: [403, 409, 412],
      headers: ['ETag'],
      requestHeaders: ['If-Match'],
    })
    .input(UpdateStateInput)
    .output(StateSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.states.update(ctx.userId, input, acceptedVersions(ctx.ifMatch)))),

  delete: protectedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: `${base}/{stateId}`,
        tags,
        summary: 'Delete a workflow state',
        description: `Its tasks move to \`moveTo\` (each a recorded task update) in the same transaction; a state that holds tasks cannot go without one (409 STATE_IN_USE). ${required} ${managers} ${staleRefused}`,
      },
      errors: [403, 409, 412],
      requestHeaders: ['If-Match'],
    })
    .input(DeleteStateInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.states.remove(ctx.userId, input, acceptedVersions(ctx.ifMatch))),
});
