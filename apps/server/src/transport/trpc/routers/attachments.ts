import { AttachmentPathInput, AttachmentSchema, ListAttachmentsInput, MessageSchema } from '@tasklane/schemas';
import { z } from 'zod';
import { protectedProcedure, router } from '../init';

const tags = ['attachments'];

/**
 * The attachments' JSON procedures. The upload (multipart), the bytes and the preview are plain
 * Fastify routes (transport/rest/attachments.ts), documented by hand in rest/openapi.ts.
 */
export const attachmentsRouter = router({
  list: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/tasks/{id}/attachments',
        tags,
        summary: "List a task's attachments",
        description: 'Oldest first, each with a signed `downloadUrl`. Members of the project.',
      },
    })
    .input(ListAttachmentsInput)
    .output(z.array(AttachmentSchema))
    .query(({ ctx, input }) => ctx.services.attachments.list(ctx.userId, input)),

  get: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/attachments/{id}',
        tags,
        summary: 'Get an attachment',
        description: `Its metadata, with a signed \`downloadUrl\` valid for ATTACHMENT_LINK_TTL seconds. Members of the attachment's project.`,
      },
    })
    .input(AttachmentPathInput)
    .output(AttachmentSchema)
    .query(({ ctx, input }) => ctx.services.attachments.get(ctx.userId, input)),

  delete: protectedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/attachments/{id}',
        tags,
        summary: 'Delete an attachment',
        description: 'Its uploader (while EDITOR or above), or ADMIN and owner. The file is removed from storage once no attachment of the project has the same bytes.',
      },
      errors: [403],
    })
    .input(AttachmentPathInput)
    .output(MessageSchema)
    .mutation(({ ctx, input }) => ctx.services.attachments.remove(ctx.userId, input)),
});
