import { GetImportInput, ImportSchema } from '@tasklane/schemas';
import { protectedProcedure, router } from '../init';

/** `imports`: an import's progress and outcome (the upload is the plain route rest/imports.ts). */
export const importsRouter = router({
  get: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/imports/{id}',
        tags: ['imports'],
        summary: 'An import',
        description: 'Its status (`pending`, `running`, `succeeded`, `failed`), progress (tasks written of the total), counts, warnings, the new project once it has succeeded, and why it failed. Only its creator sees it (404 for anyone else).',
      },
    })
    .input(GetImportInput)
    .output(ImportSchema)
    .query(({ ctx, input }) => ctx.services.imports.get(ctx.userId, input.id)),
});
