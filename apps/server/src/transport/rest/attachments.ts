import multipart from '@fastify/multipart';
import contentDisposition from 'content-disposition';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import parseRange from 'range-parser';
import type { AuthService } from '../../resources/auth/service';
import type { AttachmentRow, AttachmentsService } from '../../resources/attachments/service';
import { INLINE_TYPES } from '../../resources/attachments/content';
import { runWithGrant } from '../../resources/policy/policy';
import { ifNoneMatchNames } from '../../platform/versions';
import { BlobTooLargeError } from '../../platform/storage';
import { recordingEvents } from '../../events/record';
import { errorBody, sendError } from './rest-errors';
import { authenticate, MULTIPART_OVERHEAD, refuse as refuseInBody, refuseMalformedMultipart, relayPart } from './plain-routes';

export interface AttachmentRoutesOptions {
  auth: AuthService;
  attachments: AttachmentsService;
  maxBytes: number;
  /** Waits for the derived work of the upload's event (as every write's request does: trpc/init.ts). */
  settleEvents: (eventIds: readonly number[]) => Promise<void>;
}

/** A refusal of these routes in the documented error body; an over-long file closes the connection. */
function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  if (error instanceof BlobTooLargeError) {
    // The rest of an over-long body is not read: the connection closes after the answer.
    reply.header('connection', 'close');
    return sendError(request, reply, 413, errorBody(413, `The file exceeds ATTACHMENT_MAX_BYTES (${error.maxBytes} bytes)`, 'PAYLOAD_TOO_LARGE'));
  }
  return refuseInBody(request, reply, error);
}

type IdRequest = FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>;

/**
 * The upload (multipart), the bytes and the preview of attachments: plain Fastify routes, since the
 * REST adapter neither streams a request body nor answers bytes. They authenticate as the
 * procedures do (a bearer token, its scopes), answer the documented error body, and go through the
 * app's hooks (rate limits, request log, metrics); documented by hand in rest/openapi.ts.
 */
export async function registerAttachmentRoutes(app: FastifyInstance, options: AttachmentRoutesOptions): Promise<void> {
  const { auth, attachments, maxBytes } = options;

  // The multipart parser only here: everywhere else multipart/form-data stays a 415.
  await app.register(async (scope) => {
    await scope.register(multipart, {
      // The name as sent (busboy would cut it to its last path segment): sanitised by the service.
      preservePath: true,
      // One byte over the limit reaches the service's counter, which refuses it (413) and keeps nothing.
      limits: { fileSize: maxBytes + 1, files: 1, fields: 20, fieldSize: 1024, parts: 21, headerPairs: 100 },
      throwFileSizeLimit: false,
    });

    scope.post('/api/v1/tasks/:id/attachments', async (request: IdRequest, reply) => {
      const caller = await authenticate(request, reply, auth, 'attachments.upload', 'write');
      if (!caller) return;
      try {
        return await runWithGrant(caller.grant, async () => {
          // Access first (404, 403): a refused upload's bytes are never read.
          await attachments.prepareUpload(caller.userId, request.params.id);
          if (!request.isMultipart()) {
            return sendError(request, reply, 415, errorBody(415, 'Send the file as multipart/form-data, in a part named `file`'));
          }
          const length = Number(request.headers['content-length']);
          if (Number.isFinite(length) && length > maxBytes + MULTIPART_OVERHEAD) throw new BlobTooLargeError(maxBytes);
          let part;
          try {
            part = await request.file();
          } catch (error) {
            return refuseMalformedMultipart(request, reply, error);
          }
          if (!part || part.fieldname !== 'file') {
            if (part) part.file.resume();
            return sendError(request, reply, 400, errorBody(400, 'The multipart body needs a part named `file` holding the file', 'FILE_REQUIRED'));
          }
          const file = relayPart(part.file);
          try {
            const { result: attachment, eventIds } = await recordingEvents(() => attachments.upload(caller.userId, request.params.id, file.stream, part.filename));
            await options.settleEvents(eventIds);
            return reply.code(201).header('location', `/api/v1/attachments/${attachment.id}`).send(attachment);
          } catch (error) {
            // The body ended before its file did: the client's (and the upload kept nothing).
            if (file.bodyError) return refuseMalformedMultipart(request, reply, file.bodyError);
            throw error;
          }
        });
      } catch (error) {
        return refuse(request, reply, error);
      }
    });
  });

  /** The attachment a request may read: by its signed link (`expires`, `signature`), else by its bearer token. */
  async function locate(request: IdRequest, reply: FastifyReply): Promise<AttachmentRow | undefined> {
    const { expires, signature } = request.query;
    // A link's part given twice is malformed input, as a repeated query value is everywhere (a 400 naming it).
    for (const [field, value] of Object.entries({ expires, signature })) {
      if (value !== undefined && typeof value !== 'string') {
        const message = `${field}: expected one value`;
        return void (await sendError(request, reply, 400, { ...errorBody(400, message), issues: [{ path: [field], message }] }));
      }
    }
    if (expires !== undefined || signature !== undefined) return attachments.locateByLink(request.params.id, expires, signature);
    const caller = await authenticate(request, reply, auth, 'attachments.get', 'read');
    if (!caller) return undefined;
    return runWithGrant(caller.grant, () => attachments.locate(caller.userId, request.params.id));
  }

  /** GET and HEAD in one route: Fastify's derived HEAD would read the whole file only to discard it. */
  const getAndHead = (url: string, handler: (request: IdRequest, reply: FastifyReply) => Promise<unknown>) =>
    app.route({ method: ['GET', 'HEAD'], url, handler: (request, reply) => handler(request as IdRequest, reply) });

  getAndHead('/api/v1/attachments/:id/content', async (request, reply) => {
    try {
      const row = await locate(request, reply);
      if (!row) return reply;
      return await serveBytes(request, reply, {
        key: attachments.keysOf(row).content,
        size: row.size,
        etag: `"${row.sha256}"`,
        contentType: row.contentType,
        disposition: contentDisposition(row.filename, { type: INLINE_TYPES.has(row.contentType) ? 'inline' : 'attachment' }),
      });
    } catch (error) {
      return refuse(request, reply, error);
    }
  });

  getAndHead('/api/v1/attachments/:id/thumbnail', async (request, reply) => {
    try {
      const row = await locate(request, reply);
      if (!row) return reply;
      if (!row.thumbnail) return sendError(request, reply, 404, errorBody(404, 'This attachment has no preview'));
      return await serveBytes(request, reply, {
        key: attachments.keysOf(row).thumbnail,
        etag: `"${row.sha256}.thumb"`,
        contentType: 'image/webp',
        disposition: contentDisposition(`${row.filename}.webp`, { type: 'inline' }),
      });
    } catch (error) {
      return refuse(request, reply, error);
    }
  });

  /**
   * Bytes from the store, safe to open: the type decided from the bytes at upload; `nosniff` so no
   * browser guesses another; `sandbox` so even a document rendered in place runs no script in
   * our origin; `attachment` (a download) for anything but images and PDF. ETag (the SHA-256) and
   * 304; one byte range (206) or an unsatisfiable one (416). `size` unknown (a preview): no ranges.
   */
  async function serveBytes(request: FastifyRequest, reply: FastifyReply, file: { key: string; size?: number; etag: string; contentType: string; disposition: string }) {
    const headers = {
      etag: file.etag,
      'cache-control': 'private, no-cache',
      'x-content-type-options': 'nosniff',
      'content-security-policy': 'sandbox',
      'content-disposition': file.disposition,
      ...(file.size !== undefined ? { 'accept-ranges': 'bytes' } : {}),
    };
    const ifNoneMatch = request.headers['if-none-match'];
    // As for every read with an ETag (rest-semantics.ts): weak comparison, `*` alone, a malformed value names nothing.
    if (ifNoneMatch && ifNoneMatchNames(ifNoneMatch, file.etag)) return reply.code(304).headers({ etag: file.etag, 'cache-control': headers['cache-control'] }).send();
    let range: { start: number; end: number } | undefined;
    const ifRange = request.headers['if-range'];
    if (file.size !== undefined && request.headers.range && (ifRange === undefined || ifRange === file.etag)) {
      const ranges = parseRange(file.size, request.headers.range, { combine: true });
      if (ranges === -1) {
        reply.header('content-range', `bytes */${file.size}`);
        return sendError(request, reply, 416, errorBody(416, `The range is outside the file's ${file.size} bytes`));
      }
      // A malformed header or several ranges: the whole file (RFC 9110 lets a server ignore Range).
      if (ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1) range = ranges[0];
    }
    const stream = request.method === 'HEAD' ? undefined : await attachments.files.read(file.key, range);
    if (request.method !== 'HEAD' && !stream) return sendError(request, reply, 404, errorBody(404, 'The file is missing from storage'));
    reply.headers(headers).type(file.contentType);
    if (range) {
      reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${file.size}`).header('content-length', String(range.end - range.start + 1));
    } else if (file.size !== undefined) {
      reply.header('content-length', String(file.size));
    }
    return reply.send(stream);
  }
}
