import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchNames } from '../../platform/versions';
import { errorBody, sendError } from './rest-errors';
import { templatePattern } from './rest-input';

/** The `Allow` value of a request's path (`GET, HEAD, PATCH`), or undefined when no documented path matches it. */
export type AllowOf = (path: string) => string | undefined;

/**
 * The methods each documented path has, read from the OpenAPI document's path items, so the plain
 * Fastify routes it describes (the event streams, the unsubscribe link) count as well. A path that
 * two templates match has the methods of both, since either may route the request.
 */
export function allowOfPaths(basePath: string, paths: Record<string, Record<string, unknown>>): AllowOf {
  // By segment count: a template matches only paths of as many segments (each parameter is one,
  // a trailing slash is allowed), so a request tests a handful of patterns rather than all of them.
  const bySegments = new Map<number, { pattern: RegExp; methods: string[] }[]>();
  for (const [path, operations] of Object.entries(paths)) {
    const count = segmentCount(`${basePath}${path}`);
    bySegments.set(count, [...(bySegments.get(count) ?? []), { pattern: templatePattern(basePath, path), methods: Object.keys(operations).map((method) => method.toUpperCase()) }]);
  }
  return (path) => {
    const methods = new Set((bySegments.get(segmentCount(path)) ?? []).flatMap((template) => (template.pattern.test(path) ? template.methods : [])));
    if (methods.size === 0) return undefined;
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort().join(', ');
  };
}

const segmentCount = (path: string) => (path.endsWith('/') ? path.slice(0, -1) : path).split('/').length;

const pathOf = (request: FastifyRequest) => request.url.split('?')[0]!;

/** A method the path does not have: 405 naming the ones it has, or 404 when the path is not the API's. */
export function refuseMethod(allowOf: AllowOf, request: FastifyRequest, reply: FastifyReply) {
  const allow = allowOf(pathOf(request));
  if (allow === undefined || allow.split(', ').includes(request.method)) return sendError(request, reply, 404, errorBody(404, `No route for ${request.method} ${pathOf(request)}`));
  reply.header('allow', allow);
  return sendError(request, reply, 405, errorBody(405, `${request.method} is not a method of ${pathOf(request)}; it allows ${allow}`));
}

/** HEAD requests of this app, answered by the GET handler and sent without their body. */
const heads = new WeakSet<FastifyRequest>();

/**
 * HTTP's rules for the REST routes that trpc-to-openapi leaves out, in the scope of its catch-all
 * route (registered before it):
 * - HEAD runs as GET (trpc-to-openapi knows no HEAD and answered every one 204): the request is
 *   the GET until its answer is sent, then HEAD again, so Fastify sends the GET's status and
 *   headers, its Content-Length included, without the body;
 * - a method the path does not have is a 405 with `Allow`, before the body is read;
 * - a GET whose answer carries an ETag named by `If-None-Match` is a 304 with that ETag.
 */
export function registerRestSemantics(rest: FastifyInstance, allowOf: AllowOf): void {
  rest.addHook('onRequest', async (request, reply) => {
    if (request.raw.method === 'HEAD') {
      heads.add(request);
      request.raw.method = 'GET';
    }
    const allow = allowOf(pathOf(request));
    if (allow !== undefined && !allow.split(', ').includes(request.method)) return refuseMethod(allowOf, request, reply);
  });
  rest.addHook('onSend', async (request, reply, payload) => {
    if (heads.has(request)) request.raw.method = 'HEAD';
    const etag = reply.getHeader('etag');
    const ifNoneMatch = request.headers['if-none-match'];
    if ((request.method === 'GET' || request.method === 'HEAD') && reply.statusCode === 200 && typeof etag === 'string' && ifNoneMatch && ifNoneMatchNames(ifNoneMatch, etag)) {
      // Node sends no body with a 304; the Content-Length Fastify sets is the 200's, as RFC 9110 §8.6 allows.
      reply.code(304).removeHeader('content-type');
    }
    return payload;
  });
}
