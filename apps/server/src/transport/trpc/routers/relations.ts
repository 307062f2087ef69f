import { CreateRelationInput, ListRelationsInput, MessageSchema, RelationPathInput, RelationSchema, TaskRelationSchema } from '@tasklane/schemas';
import { z } from 'zod';
import { protectedProcedure, router } from '../init';

const tags = ['relations'];
const base = '/tasks/{id}/relations';
const managers = "EDITOR, ADMIN or owner of the task's project.";

export const relationsRouter = router({
  list: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: base,
        tags,
        summary: "List a task's relations",
        description:
          'Both ways, oldest first: `outgoing` where the task is the source (it blocks, relates to, duplicates `task`), `incoming` where `task` is (an incoming `blocks` reads "blocked by"). Relations to tasks the caller cannot see are left out. Members of the project.',
      },
    })
    .input(ListRelationsInput)
    .output(z.array(TaskRelationSchema))
    .query(({ ctx, input }) => ctx.services.relations.list(ctx.userId, input)),

  create: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: base,
        tags,
        summary: 'Relate a task to another',
        description: `The path task is the source: it \`blocks\`, \`relates_to\` (either way: one relation per pair) or \`duplicates\` the task \`taskId\`, which may be in any project the caller is a member of (else 404). The same relation twice is a 409 (RELATION_EXISTS); a task to itself a 400 (RELATION_TO_SELF); a \`blocks\` closing a cycle of blocks relations a 409 (RELATION_CYCLE). ${managers}`,
      },
      successStatus: 201,
      // A relation has no read of its own: its place is the task's list of relations, which holds it.
      location: '/tasks/{taskId}/relations',
      errors: [403, 409],
    })
    .input(CreateRelationInput)
    .output(RelationSchema)
    .mutation(({ ctx, input }) => ctx.services.relations.create(ctx.userId, input)),

  delete: protectedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: `${base}/{relationId}`,
        tags,
        summary: 'Remove a relation',
        description: `From either of its tasks; 404 when the relation does not touch the path task. ${managers}`,
      },
      errors: [403],
    })
    .input(RelationPathInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.relations.remove(ctx.userId, input)),
});
