import { Readable } from 'node:stream';
import contentDisposition from 'content-disposition';
import { z } from 'zod';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProjectExportQuery } from '@tasklane/schemas';
import type { AuthService } from '../../resources/auth/service';
import type { ExportFile, ExportService } from '../../resources/export/service';
import { runWithGrant, type TokenNeed } from '../../resources/policy/policy';
import { authenticate, parseInput, refuse } from './plain-routes';

export const PROJECT_EXPORT_ROUTE = '/api/v1/projects/:id/export';
export const ACCOUNT_EXPORT_ROUTE = '/api/v1/auth/me/export';

/** The account's export takes no query: any key is named as unknown. */
const NO_QUERY = z.strictObject({});

/**
 * What a personal access token needs for the exports (the procedures' table is token-scopes.ts;
 * these are plain routes). A project's export reads only what a `read` token already reads route by
 * route (the role table keeps it to ADMINs and the owner). One's own data includes the tokens' list,
 * which only a signed-in session sees (`auth.tokens.list`), so it takes a session too.
 */
export const EXPORT_TOKEN_NEEDS = { 'projects.export': 'read', 'auth.exportMe': 'session' } as const satisfies Record<string, TokenNeed>;

/**
 * The exports (issue 38): plain Fastify routes, as the REST adapter answers only JSON it holds
 * whole, while an export is a download (Content-Disposition) streamed as it is made. They
 * authenticate as the procedures do, answer the documented error body before the first byte, and
 * go through the app's hooks (rate limits, request log, metrics); documented in export-openapi.ts.
 */
export function registerExportRoutes(app: FastifyInstance, options: { auth: AuthService; exports: ExportService }): void {
  const { auth, exports } = options;

  /** The file, streamed: each piece is made when the socket has taken the previous one. */
  function sendFile(request: FastifyRequest, reply: FastifyReply, file: ExportFile) {
    const body = Readable.from(file.chunks, { objectMode: false });
    body.on('error', (error) => request.log.error({ err: error }, 'an export failed after its first bytes'));
    return reply
      .code(200)
      .header('content-disposition', contentDisposition(file.filename))
      .header('cache-control', 'private, no-store')
      .header('x-content-type-options', 'nosniff')
      .type(file.contentType)
      .send(body);
  }

  app.get(PROJECT_EXPORT_ROUTE, async (request, reply) => {
    const caller = await authenticate(request, reply, auth, 'projects.export', EXPORT_TOKEN_NEEDS['projects.export']);
    if (!caller) return reply;
    const query = await parseInput(request, reply, ProjectExportQuery, request.query);
    if (!query) return reply;
    try {
      const file = await runWithGrant(caller.grant, () => exports.project(caller.userId, (request.params as { id: string }).id, query.format));
      return sendFile(request, reply, { ...file, chunks: runningWithGrant(caller.grant, file.chunks) });
    } catch (error) {
      return refuse(request, reply, error);
    }
  });

  app.get(ACCOUNT_EXPORT_ROUTE, async (request, reply) => {
    const caller = await authenticate(request, reply, auth, 'auth.exportMe', EXPORT_TOKEN_NEEDS['auth.exportMe']);
    if (!caller) return reply;
    if (!(await parseInput(request, reply, NO_QUERY, request.query ?? {}))) return reply;
    try {
      const file = await runWithGrant(caller.grant, () => exports.account(caller.userId));
      return sendFile(request, reply, { ...file, chunks: runningWithGrant(caller.grant, file.chunks) });
    } catch (error) {
      return refuse(request, reply, error);
    }
  });
}

/** The pieces of a file, each made under the request's grant (the services' project checks read it). */
async function* runningWithGrant(grant: Parameters<typeof runWithGrant>[0], chunks: AsyncIterable<string>): AsyncGenerator<string> {
  const iterator = chunks[Symbol.asyncIterator]();
  for (;;) {
    const next = await runWithGrant(grant, () => iterator.next());
    if (next.done) return;
    yield next.value;
  }
}
