import type { FastifyInstance } from 'fastify';
import { type ErrorIssue, summarizeIssues, UNSUPPORTED_MEDIA_TYPE_MESSAGE } from '../trpc/errors';
import { errorBody } from './rest-errors';

const BODY_METHODS = new Set(['POST', 'PATCH', 'PUT']);

/** Each templated path of the REST document (`/projects/{id}`) as a matcher naming its parameters. */
function pathParameterMatchers(basePath: string, paths: string[]) {
  return paths
    .filter((path) => path.includes('{'))
    .map((path) => ({
      pattern: new RegExp(`^${basePath}${path.replace(/\{\w+\}/g, '[^/]+')}/?$`),
      names: [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!),
    }));
}

const invalidInput = (issues: ErrorIssue[]) => ({ message: summarizeIssues(issues), code: 'BAD_REQUEST', issues });

/**
 * Checks trpc-to-openapi leaves out. It builds a procedure's input as `{ ...body, ...pathParams }`,
 * so a body field named like a path parameter (`{"id": …}` on PATCH /tasks/{id}) would be silently
 * overwritten and a JSON string spread into numbered keys; and its 415 for a body Fastify did parse
 * (text/plain) has a garbled message. All are answered here, before the adapter, in our error shape.
 */
export function registerRestInputChecks(rest: FastifyInstance, basePath: string, paths: string[]): void {
  const matchers = pathParameterMatchers(basePath, paths);

  rest.addHook('preHandler', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const parameters = matchers.find(({ pattern }) => pattern.test(path))?.names ?? [];
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
