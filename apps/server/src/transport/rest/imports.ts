import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { CsvMappingSchema, ImportQuerySchema, ImportSourceSchema } from '@tasklane/schemas';
import { z } from 'zod';
import type { AuthService } from '../../resources/auth/service';
import type { ImportsService } from '../../resources/imports/service';
import { runWithGrant, type TokenNeed } from '../../resources/policy/policy';
import { errorBody, sendError } from './rest-errors';
import { BlobTooLargeError } from '../../platform/storage';
import { authenticate, MULTIPART_OVERHEAD, parseInput, refuse, refuseMalformedMultipart, relayPart } from './plain-routes';

export const IMPORT_ROUTE = '/api/v1/imports';

/** What a personal access token needs to import: a project is made, as `projects.create` needs (admin, and no project limit). */
export const IMPORT_TOKEN_NEEDS = { 'imports.create': 'admin' } as const satisfies Record<string, TokenNeed>;

/** The form's text parts: which tool made the file, and for csv a mapping of its columns (JSON). */
const ImportForm = z.object({
  source: ImportSourceSchema,
  mapping: z
    .string()
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'not valid JSON' });
        return z.NEVER;
      }
    })
    .pipe(CsvMappingSchema)
    .optional(),
});

/**
 * `POST /imports` (issue 38): a plain Fastify route, as the REST adapter does not read multipart.
 * The parts: `source`, `mapping` (a csv's, JSON) and `file`, in any order. The file streams to the
 * blob store as it arrives (at most IMPORT_MAX_BYTES, else 413 and nothing kept), is checked at
 * once (a file that is not what `source` says is a 400), then queued (202) or, with
 * `?dryRun=true`, only described (200).
 */
export async function registerImportRoutes(app: FastifyInstance, options: { auth: AuthService; imports: ImportsService; maxBytes: number; wake: () => void }): Promise<void> {
  const { auth, imports, maxBytes } = options;
  const tooLarge = () => errorBody(413, `The file exceeds IMPORT_MAX_BYTES (${maxBytes} bytes)`, 'PAYLOAD_TOO_LARGE');

  await app.register(async (scope) => {
    await scope.register(multipart, {
      // One byte over the limit reaches the blob store's counter, which refuses it (413) and keeps nothing.
      limits: { fileSize: maxBytes + 1, files: 1, fields: 5, fieldSize: 64 * 1024, parts: 6, headerPairs: 100 },
      throwFileSizeLimit: false,
    });

    scope.post(IMPORT_ROUTE, async (request, reply) => {
      const caller = await authenticate(request, reply, auth, 'imports.create', IMPORT_TOKEN_NEEDS['imports.create']);
      if (!caller) return reply;
      const query = await parseInput(request, reply, ImportQuerySchema, request.query);
      if (!query) return reply;
      if (!request.isMultipart()) {
        return sendError(request, reply, 415, errorBody(415, 'Send the import as multipart/form-data: a part `source`, a part `file`, and for csv a part `mapping`'));
      }
      const length = Number(request.headers['content-length']);
      if (Number.isFinite(length) && length > maxBytes + MULTIPART_OVERHEAD) {
        reply.header('connection', 'close');
        return sendError(request, reply, 413, tooLarge());
      }
      const fields: { source?: string; mapping?: string } = {};
      /** The file streamed to a temporary key as it arrives: never held in memory whole. */
      let upload: string | undefined;
      /** The store's own failure to take the file (a full disk, the bucket down): the server's, not the body's. */
      let storeFailure: { error: unknown } | undefined;
      const answer = async (): Promise<unknown> => {
        try {
          for await (const part of request.parts()) {
            if (part.type === 'file') {
              if (part.fieldname !== 'file' || upload !== undefined) {
                part.file.resume();
                continue;
              }
              const file = relayPart(part.file);
              try {
                upload = await imports.receive(file.stream, maxBytes);
              } catch (error) {
                if (error instanceof BlobTooLargeError) {
                  reply.header('connection', 'close');
                  return sendError(request, reply, 413, tooLarge());
                }
                if (file.bodyError) throw file.bodyError;
                storeFailure = { error };
                break;
              }
            } else if (part.fieldname === 'source' || part.fieldname === 'mapping') {
              fields[part.fieldname] = String(part.value);
            }
          }
        } catch (error) {
          // Everything else in the loop reads the request's body.
          return refuseMalformedMultipart(request, reply, error);
        }
        // Answered as the attachments' upload answers it: a 500, logged (or a 503 while the database is away).
        if (storeFailure) return refuse(request, reply, storeFailure.error);
        if (!upload) return sendError(request, reply, 400, errorBody(400, 'The multipart body needs a part named `file` holding the exported file', 'FILE_REQUIRED'));
        const form = await parseInput(request, reply, ImportForm, fields);
        if (!form) return reply;
        const received = upload;
        // submit owns the file from here: it moves it to the import or removes it.
        upload = undefined;
        try {
          const result = await runWithGrant(caller.grant, () => imports.submit(caller.userId, { ...form, upload: received, dryRun: query.dryRun === 'true' }));
          if ('dryRun' in result) return reply.code(200).send(result);
          options.wake();
          return reply.code(202).header('location', `${IMPORT_ROUTE}/${result.id}`).send(result);
        } catch (error) {
          return refuse(request, reply, error);
        }
      };
      try {
        return await answer();
      } finally {
        // A file received for a request refused afterwards (a bad form, a body cut short).
        if (upload !== undefined) await imports.discard(upload);
      }
    });
  });
}
