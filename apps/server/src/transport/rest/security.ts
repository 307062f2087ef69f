import type { Socket } from 'node:net';
import cors from '@fastify/cors';
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import helmet from 'helmet';
import secureJson from 'secure-json-parse';
import { errorBody, sendError } from './rest-errors';

/** No body of the API nests deeper than a handful of levels; far deeper input is an attack. */
export const MAX_JSON_DEPTH = 32;

const jsonTooDeep = () =>
  Object.assign(new Error(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), { statusCode: 400, code: 'JSON_TOO_DEEP' });

/** One pass over the text, skipping strings: cheaper than parsing and bounded by the body limit. */
export function jsonDepthExceeds(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 92 /* \ */) index += 1;
      else if (char === 34 /* " */) inString = false;
    } else if (char === 34) inString = true;
    else if (char === 123 /* { */ || char === 91 /* [ */) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (char === 125 /* } */ || char === 93 /* ] */) depth -= 1;
  }
  return false;
}

/**
 * JSON bodies: Fastify's own rules (prototype poisoning refused) plus the depth limit. The native
 * tRPC endpoint parses its body itself, so the same limit is applied there before validation.
 */
function registerJsonLimits(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
    if (jsonDepthExceeds(text)) return done(jsonTooDeep(), undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined);
    }
  });
  app.addHook('preValidation', async (request, reply) => {
    if (!request.url.startsWith('/api/trpc/')) return;
    // tRPC would read multipart bodies as FormData, which no procedure takes: refuse it up front
    if (request.headers['content-type']?.toLowerCase().startsWith('multipart/')) {
      return sendError(request, reply, 415, errorBody(415, 'Unsupported content type: send application/json'));
    }
    const input = typeof request.body === 'string' ? request.body : (request.query as { input?: unknown }).input;
    if (typeof input === 'string' && jsonDepthExceeds(input)) {
      return sendError(request, reply, 400, errorBody(400, jsonTooDeep().message, 'JSON_TOO_DEEP'));
    }
  });
}

/**
 * helmet's headers, worked out once: they are the same on every response, and building them per
 * request (as @fastify/helmet does, parsing the CSP each time) was ~5 % of a single-row read.
 */
function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: () => {},
  };
  helmet({ contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': null } } })(
    {} as never,
    response as never,
    (error?: unknown) => {
      if (error) throw error;
    },
  );
  return headers;
}

/** Every method a REST operation may have (the procedures' `openapi.method`), and HEAD. */
const API_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The response headers a client of the API reads, which a browser hides from another origin unless exposed. */
const EXPOSED_HEADERS = ['ETag', 'Link', 'Location', 'Idempotent-Replayed', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id', 'Tasklane-Lsn'];

/**
 * Security headers. The CSP stays strict (no inline scripts): Swagger UI and the web app load
 * only their own files; inline styles are allowed because Swagger UI sets style attributes.
 * `upgrade-insecure-requests` is left out so a LAN install served over plain HTTP still works.
 * `refuseMethod` answers an OPTIONS that is no CORS preflight, as for any method a path lacks.
 */
export async function registerSecurity(
  app: FastifyInstance,
  corsOrigins: string[],
  refuseMethod: (request: FastifyRequest, reply: FastifyReply) => unknown,
): Promise<void> {
  registerJsonLimits(app);
  const headers = securityHeaders();
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  // An OPTIONS that is no CORS preflight asks for a method no path has; a half preflight is a
  // malformed one, answered here in the error body rather than in the CORS plugin's plain text.
  const corsOn = corsOrigins.length > 0;
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'OPTIONS') return;
    const hasOrigin = request.headers.origin !== undefined;
    const hasMethod = request.headers['access-control-request-method'] !== undefined;
    if (corsOn && hasOrigin && hasMethod) return;
    if (!corsOn || (!hasOrigin && !hasMethod)) return refuseMethod(request, reply);
    return sendError(request, reply, 400, errorBody(400, 'A CORS preflight needs both Origin and Access-Control-Request-Method'));
  });
  // Without allowed origins no response carries CORS headers and a preflight is an unknown route:
  // the plugin (and its per-request hook) is left out rather than run with `origin: false`.
  if (!corsOn) return;
  await app.register(cors, {
    origin: corsOrigins,
    methods: API_METHODS,
    allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'Last-Event-ID', 'X-Request-Id', 'Tasklane-Lsn'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * Requests Node's HTTP parser rejects never reach Fastify's routes (headers over Node's
 * maxHeaderSize, 16 KiB by default; garbage on the wire): they still get our error body.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431 ? 'Request headers exceed the size limit' : status === 408 ? 'Request timed out' : 'Malformed HTTP request';
  const body = JSON.stringify(errorBody(status, message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
