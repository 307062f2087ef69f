import { ErrorBodySchema } from '@tasklane/schemas';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import type { ProcedureMeta } from './trpc/init';
import type { AppRouter } from './trpc/router';

type Operation = {
  responses: Record<string, unknown>;
  security?: unknown[];
  parameters?: unknown[];
  requestBody?: unknown;
};
type Document = ReturnType<typeof generateOpenApiDocument> & {
  paths?: Record<string, Record<string, Operation>>;
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: malformed JSON, a missing, wrongly typed or unknown field, a bad query value',
  401: 'Missing, malformed, expired or revoked token (or wrong email or password on login)',
  403: "The caller's role does not allow this action",
  404: 'Unknown or malformed id, or a project the caller is not a member of',
  409: 'Conflict with the current state (see `reason`)',
  412: 'If-Match was given and is stale',
  413: 'Request body larger than 1 MiB',
  415: 'Content type other than application/json',
  429: 'Rate limited; see Retry-After',
  500: 'Unexpected server error',
};

const HEADER_DESCRIPTIONS = {
  ETag: 'Version of the returned resource, for If-Match',
  Link: 'RFC 8288 link to the next page: `<…>; rel="next"` (absent on the last page)',
  Location: 'URL of the created resource',
} as const;

/** Every procedure's dotted path and meta; `_def.procedures` is flat in tRPC v11. */
export function procedureMetas(router: AppRouter): [string, ProcedureMeta | undefined][] {
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: ProcedureMeta } }>;
  return Object.entries(procedures).map(([path, procedure]) => [path, procedure._def.meta]);
}

/** Each procedure's meta, by "method /path" as the document names its operations. */
function metaByOperation(router: AppRouter): Map<string, ProcedureMeta> {
  return new Map(
    procedureMetas(router).flatMap(([, meta]) =>
      meta?.openapi ? [[`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, meta] as const] : [],
    ),
  );
}

/** The procedures whose REST success status is 201. */
export const createdPaths = (router: AppRouter): Set<string> =>
  new Set(procedureMetas(router).flatMap(([path, meta]) => (meta?.successStatus === 201 ? [path] : [])));

/**
 * The document trpc-to-openapi generates, corrected where it cannot know: the real success
 * status (201 for creates), the headers a route sets, and every error status with our error body.
 */
export function buildOpenApiDocument(router: AppRouter, version: string): Document {
  const document = generateOpenApiDocument(router, {
    title: 'Tasklane API',
    description:
      'Self-hosted task and project management. Every operation except register and login needs `Authorization: Bearer <access_token>`. Errors share one body: `{ message, code, reason?, issues? }`.',
    version,
    baseUrl: '/api/v1',
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    defs: { Error: ErrorBodySchema },
  }) as Document;

  const errorResponse = (status: number) => ({
    description: ERROR_DESCRIPTIONS[status] ?? 'Error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  const metas = metaByOperation(router);
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const meta = metas.get(`${method} ${path}`);
      const success = operation.responses['200'] as { headers?: Record<string, unknown> };
      const isProtected = meta?.openapi?.protect !== false;
      success.headers = Object.fromEntries(
        (meta?.headers ?? []).map((name) => [name, { description: HEADER_DESCRIPTIONS[name], schema: { type: 'string' } }]),
      );
      const statuses = new Set([400, 404, 500, ...(isProtected ? [401] : []), ...(meta?.errors ?? [])]);
      if (method === 'post' && !isProtected && path === '/auth/login') statuses.add(401);
      if (method === 'post' || method === 'patch') statuses.add(415).add(413);
      const responses: Record<string, unknown> = { [String(meta?.successStatus ?? 200)]: success };
      for (const status of [...statuses].sort()) responses[String(status)] = errorResponse(status);
      operation.responses = responses;
      if (!isProtected) operation.security = [];
    }
  }
  return document;
}

