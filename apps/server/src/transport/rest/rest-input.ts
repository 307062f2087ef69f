import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ErrorIssue, summarizeIssues, UNSUPPORTED_MEDIA_TYPE_MESSAGE } from '../trpc/errors';
import { errorBody } from './rest-errors';

const BODY_METHODS = new Set(['POST', 'PATCH', 'PUT']);

/** A REST operation as the document names it, with the procedure's input schema. */
export interface RestRoute {
  method: string;
  path: string;
  input: unknown;
}

type QueryKind = 'number' | 'list';
type ZodLike = { _zod?: { def?: { type?: string; innerType?: ZodLike; shape?: Record<string, ZodLike> } } };

const unwrapOptional = (schema: ZodLike | undefined): ZodLike | undefined =>
  schema?._zod?.def?.type === 'optional' ? unwrapOptional(schema._zod.def.innerType) : schema;

/** The query fields of an input that are not strings: how each is decoded from the query string. */
function queryKinds(input: unknown): Map<string, QueryKind> {
  const shape = unwrapOptional(input as ZodLike)?._zod?.def?.shape ?? {};
  const kinds = new Map<string, QueryKind>();
  for (const [name, field] of Object.entries(shape)) {
    const type = unwrapOptional(field)?._zod?.def?.type;
    if (type === 'number') kinds.set(name, 'number');
    else if (type === 'array') kinds.set(name, 'list');
  }
  return kinds;
}

const DIGITS = /^-?\d+$/;

/**
 * A query string's values as the schema types them: an integer written in digits becomes a number
 * and a comma list an array; anything else stays a string (or the array of a repeated key), which
 * the schema then refuses with a 400 naming the field. trpc-to-openapi would coerce with `Number()`
 * and `Boolean()` instead ("1e2" is 100, any non-empty value is true), on the shared schema itself.
 */
function decodeQuery(query: Record<string, unknown>, kinds: Map<string, QueryKind>): Record<string, unknown> {
  const decoded: Record<string, unknown> = { ...query };
  for (const [name, kind] of kinds) {
    const value = decoded[name];
    // An empty number (`limit=`) is refused, not taken as absent as other empty values are: it
    // reaches the schema, which names the field. trpc-to-openapi passes on only the query values
    // that are truthy: a falsy one (0, '') goes in a one-element array, which it keeps and unwraps.
    if (kind === 'number' && typeof value === 'string') {
      const number = DIGITS.test(value) ? Number(value) : value;
      decoded[name] = number === 0 || number === '' ? [number] : number;
    }
    else if (kind === 'list' && value !== '' && value !== undefined) {
      decoded[name] = (Array.isArray(value) ? value : [value]).flatMap((item) => String(item).split(',').map((part) => part.trim()));
    }
  }
  return decoded;
}

/** A document path template (`/tasks/{id}`) under `basePath` as a pattern of the request paths it names. */
export const templatePattern = (basePath: string, path: string): RegExp => new RegExp(`^${basePath}${path.replace(/\{\w+\}/g, '[^/]+')}/?$`);

/** Each REST route as a matcher naming its path parameters and the query fields to decode. */
function routeMatchers(basePath: string, routes: RestRoute[]) {
  // A fixed path before a templated one it also matches.
  const ordered = [...routes].sort((a, b) => Number(a.path.includes('{')) - Number(b.path.includes('{')));
  return ordered.map(({ method, path, input }) => ({
    method: method.toUpperCase(),
    template: `${basePath}${path}`,
    pattern: templatePattern(basePath, path),
    names: [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!),
    kinds: queryKinds(input),
  }));
}

/** No body at all, as Fastify itself decides it (it parses nothing then): no Content-Type, no length or 0, not chunked. */
const isBodiless = (headers: IncomingHttpHeaders): boolean =>
  headers['content-type'] === undefined &&
  headers['transfer-encoding'] === undefined &&
  (headers['content-length'] === undefined || headers['content-length'] === '0');

/**
 * A POST as `curl -X POST` sends it, with no body and no Content-Type, is read as the empty JSON
 * object it stands for, on both transports (both adapters otherwise answer 415 for the missing
 * type): an action that takes no body (logout) works as sent, and a route that needs fields names
 * them in a 400. A body, when sent, must still be JSON.
 */
export function registerBodilessRequests(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (!BODY_METHODS.has(request.method) || !isBodiless(request.headers)) return;
    request.headers['content-type'] = 'application/json';
    request.body = {};
  });
}

/** The template the input checks matched for a request, kept so the metrics need not match it again. */
const matchedTemplates = new WeakMap<FastifyRequest, string>();

/**
 * The document's path template (`/api/v1/tasks/{id}`) of a REST request, for the metrics; `unmatched`
 * when none matches. A request refused before the input checks is matched here.
 */
export function restRouteLabel(basePath: string, routes: RestRoute[]): (request: FastifyRequest) => string {
  const matchers = routeMatchers(basePath, routes);
  return (request) => {
    const matched = matchedTemplates.get(request);
    if (matched) return matched;
    // A URL stripped of the prefix (as trpc-to-openapi's own adapter does) is read under it too.
    const url = request.url.split('?')[0]!;
    const path = url.startsWith(`${basePath}/`) ? url : `${basePath}${url}`;
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    return matchers.find((route) => route.method === method && route.pattern.test(path))?.template ?? 'unmatched';
  };
}

const invalidInput = (issues: ErrorIssue[]) => ({ message: summarizeIssues(issues), code: 'BAD_REQUEST', issues });

/**
 * Checks trpc-to-openapi leaves out. It builds a procedure's input as `{ ...body, ...pathParams }`,
 * so a body field named like a path parameter (`{"id": …}` on PATCH /tasks/{id}) would be silently
 * overwritten and a JSON string spread into numbered keys; and its 415 for a body Fastify did parse
 * (text/plain) has a garbled message. All are answered here, before the adapter, in our error shape;
 * and query strings are decoded to the types the shared schemas check (decodeQuery).
 */
export function registerRestInputChecks(rest: FastifyInstance, basePath: string, routes: RestRoute[]): void {
  const matchers = routeMatchers(basePath, routes);
  for (const route of routes) keepUncoerced(route.input);

  rest.addHook('preHandler', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const route = matchers.find(({ method, pattern }) => method === request.method && pattern.test(path));
    if (route) matchedTemplates.set(request, route.template);
    const parameters = route?.names ?? [];
    if (route && route.kinds.size > 0) request.query = decodeQuery(request.query as Record<string, unknown>, route.kinds);
    let input: object = request.query as object;
    if (BODY_METHODS.has(request.method)) {
      if (!request.headers['content-type']?.toLowerCase().startsWith('application/json')) {
        return reply.code(415).send(errorBody(415, UNSUPPORTED_MEDIA_TYPE_MESSAGE));
      }
      const body: unknown = request.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        return reply.code(400).send(invalidInput([{ path: [], message: 'The body must be a JSON object', code: 'invalid_type' }]));
      }
      input = body;
    }
    const clashes = parameters.filter((name) => Object.hasOwn(input, name));
    if (clashes.length > 0) {
      return reply
        .code(400)
        .send(invalidInput(clashes.map((name) => ({ path: [name], message: `Unknown field "${name}"`, code: 'unrecognized_keys' }))));
    }
  });
}

const COERCIBLE = new Set(['number', 'boolean', 'bigint', 'date']);

/**
 * trpc-to-openapi's handler sets `coerce` on the number, boolean, bigint and date fields of a
 * procedure's input schema on every REST call. The schemas are shared with the tRPC transport, so
 * from the first REST call on both would take `"1e1"` for 10 and `"false"` for true. Each such
 * field's `coerce` is fixed here to what the schema was built with (a write is ignored), so the
 * schemas check exactly what they say on both transports; query strings are decoded to their
 * types beforehand (decodeQuery).
 */
function keepUncoerced(schema: unknown, seen = new Set<unknown>()): void {
  const def = (schema as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
  if (!def || seen.has(def)) return;
  seen.add(def);
  if (COERCIBLE.has(def.type as string) && Object.getOwnPropertyDescriptor(def, 'coerce')?.set === undefined) {
    const coerce = def.coerce === true;
    Object.defineProperty(def, 'coerce', { get: () => coerce, set: () => {}, enumerable: true, configurable: false });
  }
  const shape = def.shape as Record<string, unknown> | undefined;
  for (const inner of [def.innerType, def.in, def.out, def.element, ...(Array.isArray(def.options) ? def.options : []), ...Object.values(shape ?? {})]) {
    keepUncoerced(inner, seen);
  }
}
