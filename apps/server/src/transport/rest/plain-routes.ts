import { finished, PassThrough, type Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AuthService } from '../../resources/auth/service';
import { callRefusal, type Grant, SESSION_GRANT, type TokenNeed } from '../../resources/policy/policy';
import { DomainError } from '../../platform/errors';
import { DATABASE_RETRY, isDatabaseUnavailable } from '../../platform/db-errors';
import { normalizeIssues, summarizeIssues } from '../trpc/errors';
import { errorBody, sendError } from './rest-errors';

/**
 * What the plain Fastify routes of the API (attachments' bytes, exports, imports) share with the
 * procedures: the caller from a bearer token, the token's scopes, a strict query, and domain refusals
 * in the documented error body.
 */

/** What multipart framing may add to a file's bytes (boundaries, part headers) before a Content-Length is plainly too large. */
export const MULTIPART_OVERHEAD = 64 * 1024;

/**
 * A multipart body that could not be read, as a 400 naming the reason; a failure that is not the
 * body's is thrown on, for the app's error handler (a 500). @fastify/multipart's own refusals carry a 4xx status; busboy's (a body cut
 * short: "Unexpected end of multipart data", a part ended early, malformed part headers), a request
 * aborted and a part closed early are plain errors with no status, and are the client's too. A
 * TypeError, a RangeError (a failed allocation) or a 5xx is the server's, and stays a 500.
 */
export function refuseMalformedMultipart(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  if (!(error instanceof Error)) throw error;
  const { statusCode, code } = error as { statusCode?: unknown; code?: unknown };
  const fromTheBody = typeof statusCode === 'number' ? statusCode < 500 : Object.getPrototypeOf(error) === Error.prototype || code === 'ERR_STREAM_PREMATURE_CLOSE';
  if (!fromTheBody) throw error;
  return sendError(request, reply, 400, errorBody(400, `Malformed multipart body: ${error.message}`, 'FILE_REQUIRED'));
}

/**
 * A part's file as a stream of its own, and the error the body raised on the part, if any (the
 * body ending inside the file: busboy's "Part terminated early…", then @fastify/multipart destroys
 * the part). A consumer that fails (the upload's size limit, the storage) destroys the relay, not
 * the part, so a failure of the body (400) stays apart from the upload's own (413, 500).
 */
export function relayPart(part: Readable): { readonly stream: Readable; readonly bodyError: Error | undefined } {
  const relay = new PassThrough();
  const seen: { stream: Readable; bodyError: Error | undefined } = { stream: relay, bodyError: undefined };
  // The consumer attaches after awaits of its own (a temporary file opened): its pipeline still
  // sees the relay's error then, and until then the error must not go unhandled.
  relay.on('error', () => {});
  // finished() also reports a part that failed before this was called (a small file's body cut
  // short is parsed to its end before `request.file()` returns).
  finished(part, (error) => {
    if (!error || relay.destroyed) return; // read whole, or the consumer stopped first
    seen.bodyError = error;
    relay.destroy(error);
  });
  // A consumer that stops early stops the part too (its parser then ends the request's parts).
  relay.on('close', () => {
    if (!part.readableEnded) part.destroy();
  });
  part.pipe(relay);
  return seen;
}

const STATUS_OF: Record<DomainError['code'], number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
  SERVICE_UNAVAILABLE: 503,
};

/** A refusal in the documented error body (an unexpected failure goes on to the app's error handler, a 500). */
export function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  if (error instanceof DomainError) {
    const status = STATUS_OF[error.code];
    if (status === 413) reply.header('connection', 'close');
    return sendError(request, reply, status, { ...errorBody(status, error.message, error.reason), ...(error.issues ? { issues: error.issues } : {}) });
  }
  if (isDatabaseUnavailable(error)) {
    reply.headers(DATABASE_RETRY);
    return sendError(request, reply, 503, errorBody(503, 'The database is unavailable; retry shortly', 'DATABASE_UNAVAILABLE'));
  }
  throw error;
}

/**
 * The caller of a bearer-token request and its grant, as the procedures check them (`procedure`
 * names the table row for scope errors, `need` the token scope); undefined once 401 or 403 was sent.
 */
export async function authenticate(
  request: FastifyRequest,
  reply: FastifyReply,
  auth: AuthService,
  procedure: string,
  need: TokenNeed,
): Promise<{ userId: string; grant: Grant } | undefined> {
  const claims = await auth.identify(request.headers.authorization);
  const userId = claims && (await auth.isCurrent(claims)) ? claims.userId : null;
  if (!claims || !userId) {
    reply.header('www-authenticate', 'Bearer');
    return void (await sendError(request, reply, 401, errorBody(401, 'Missing, invalid or expired token')));
  }
  const grant = claims.grant ?? SESSION_GRANT;
  const refusal = callRefusal(grant, procedure, need);
  if (refusal) return void (await sendError(request, reply, 403, errorBody(403, refusal.message, refusal.reason)));
  return { userId, grant };
}

/** Input checked against `schema`, or undefined once a 400 naming each issue was sent (as the procedures answer). */
export async function parseInput<T extends z.ZodType>(request: FastifyRequest, reply: FastifyReply, schema: T, input: unknown): Promise<z.output<T> | undefined> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = normalizeIssues(parsed.error).map(({ path, message }) => ({ path, message }));
  return void (await sendError(request, reply, 400, { ...errorBody(400, summarizeIssues(issues)), issues }));
}
