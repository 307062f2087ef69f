import { CreateFieldInput, FieldPathInput, FieldSchema, FIELDS_MAX, FIELD_TEXT_MAX, ListFieldsInput, MessageSchema, UpdateFieldInput } from '@tasklane/schemas';
import { z } from 'zod';
import { acceptedVersions, withETag } from '../../../platform/versions';
import { protectedProcedure, router } from '../init';

const tags = ['fields'];
const base = '/projects/{id}/fields';
const managers = 'ADMIN or owner.';
const staleRefused = 'With If-Match, a stale version is refused (412).';
const types = `Types: \`text\` (at most ${FIELD_TEXT_MAX} characters), \`number\` (finite), \`date\` (\`YYYY-MM-DD\`), \`select\` and \`multi_select\` (options), \`user\` (a member's id), \`checkbox\`, \`url\` (http or https).`;

export const fieldsRouter = router({
  list: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: base,
        tags,
        summary: "List a project's custom fields",
        description: `In order (by \`position\`); at most ${FIELDS_MAX}, so not paged. A task's \`fields\` holds values by their ids. Members of the project.`,
      },
    })
    .input(ListFieldsInput)
    .output(z.array(FieldSchema))
    .query(({ ctx, input }) => ctx.services.fields.list(ctx.userId, input)),

  create: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: base,
        tags,
        summary: 'Create a custom field',
        description: `Added after the project's other fields. Names are unique in the project regardless of case (409 FIELD_EXISTS); at most ${FIELDS_MAX} fields (409 FIELD_LIMIT). ${types} Options are given by name and returned with ids. ${managers}`,
      },
      successStatus: 201,
      location: '/projects/{projectId}/fields/{id}',
      errors: [403, 409],
      headers: ['ETag'],
    })
    .input(CreateFieldInput)
    .output(FieldSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.fields.create(ctx.userId, input))),

  get: protectedProcedure
    .meta({ openapi: { method: 'GET', path: `${base}/{fieldId}`, tags, summary: 'Get a custom field', description: 'Members of the project.' }, headers: ['ETag'] })
    .input(FieldPathInput)
    .output(FieldSchema)
    .query(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.fields.get(ctx.userId, input))),

  update: protectedProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: `${base}/{fieldId}`,
        tags,
        summary: 'Update a custom field',
        description: `Name, position (the fields in between shift by one) or options (all of them, in order: one with an \`id\` is kept, one without is new, one left out is deleted and cleared from every task, each a recorded task update); the type never changes. ${managers} ${staleRefused}`,
      },
      errors: [403, 409, 412],
      headers: ['ETag'],
      requestHeaders: ['If-Match'],
    })
    .input(UpdateFieldInput)
    .output(FieldSchema)
    .mutation(async ({ ctx, input }) => withETag(ctx.response, await ctx.services.fields.update(ctx.userId, input, acceptedVersions(ctx.ifMatch)))),

  delete: protectedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: `${base}/{fieldId}`,
        tags,
        summary: 'Delete a custom field',
        description: `Removes the field and its values (each task that had one: a recorded task update). ${managers} ${staleRefused}`,
      },
      errors: [403, 412],
      requestHeaders: ['If-Match'],
    })
    .input(FieldPathInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.fields.remove(ctx.userId, input, acceptedVersions(ctx.ifMatch))),
});
