import { type AnyRouter, TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  acceptsRequestBody,
  createProcedureCache,
  getBody,
  getErrorFromUnknown,
  getInputOutputParsers,
  getQuery,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  TRPC_ERROR_CODE_HTTP_STATUS,
  unwrapZodType,
} from 'trpc-to-openapi';
import { ZodArray } from 'zod';
import { formatError } from '../trpc/errors';
import type { Context } from '../trpc/init';

type ProcedureCall = (input: unknown) => Promise<unknown>;
type Caller = Record<string, unknown>;

export interface ProcedureRouteOptions {
  basePath: string;
  router: AnyRouter;
  createContext: (request: FastifyRequest, reply: FastifyReply) => Context;
  onError: (failure: { error: TRPCError; req: FastifyRequest }) => void;
  /** The answer's status and headers, from the procedure's result or its error (app.ts). */
  responseMeta: (answer: { ctx?: Context; paths?: readonly string[]; errors: TRPCError[]; data?: unknown[] }) => { status?: number; headers?: Record<string, string> };
}

/**
 * The REST routes (`basePath/*`): each request runs its procedure through tRPC's public server-side
 * caller, as trpc-to-openapi's Fastify adapter does, built from trpc-to-openapi's public parts (its
 * route table, query and body readers, error statuses) so the route matching and the input are
 * exactly its. What it leaves out is the adapter's per-request work we have no use for: a WHATWG
 * `Request` built from the Node request only to take its abort signal (no procedure of ours reads
 * one), with its `AbortController`, listeners and `DOMException`, and the Node-style methods bound
 * onto Fastify's request and reply for that conversion. `coerceSchema` is left out too: the input
 * checks fix every schema's `coerce` (rest-input.ts, keepUncoerced), so it changed nothing.
 * The error body is the adapter's (our tRPC error shape, with the code's name), which the REST
 * scope's onSend hook turns into the documented body (rest-errors.ts).
 */
export function registerProcedureRoute(rest: FastifyInstance, options: ProcedureRouteOptions): void {
  const { basePath, router, createContext, onError, responseMeta } = options;
  const procedureOf = createProcedureCache(router as never);
  const callerFor = (ctx: Context) => router.createCaller(ctx) as unknown as Caller;

  rest.route({
    method: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'],
    url: `${basePath}/*`,
    handler: async (request, reply) => {
      const send = (status: number, headers: Record<string, string | undefined>, body: unknown) => {
        reply.code(status).header('Content-Type', 'application/json');
        for (const [key, value] of Object.entries(headers)) if (value !== undefined) reply.header(key, value);
        if (!reply.sent) reply.send(JSON.stringify(body));
        return reply;
      };
      const relative = request.url.replace(basePath, '');
      const url = new URL(`http://127.0.0.1${relative}`);
      const method = request.method as 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
      const { procedure, pathInput } = procedureOf(method, normalizePath(url.pathname)) ?? {};
      let ctx: Context | undefined;
      try {
        if (!procedure) throw notFound();
        const useBody = acceptsRequestBody(method);
        const contentType = request.headers['content-type'];
        if (useBody && !contentType?.startsWith('application/json')) throw unsupportedMediaType(contentType);
        const schema = unwrapZodType(getInputOutputParsers(procedure.procedure).inputParser, true);
        let input: Record<string, unknown> | undefined;
        // Input stays undefined for a z.void() input.
        if (!instanceofZodTypeLikeVoid(schema)) {
          const fields: Record<string, unknown> = { ...(useBody ? await getBody(request as never) : getQuery(request as never, url)), ...pathInput };
          // A list field given once in a query is a list of one, as trpc-to-openapi reads it.
          if (!useBody && instanceofZodTypeObject(schema)) {
            for (const [key, shape] of Object.entries(schema.shape)) {
              const isList = shape instanceof ZodArray || (instanceofZodTypeOptional(shape) && shape.unwrap() instanceof ZodArray);
              if (isList && fields[key] !== undefined && !Array.isArray(fields[key])) fields[key] = [fields[key]];
            }
          }
          input = fields;
        }
        ctx = createContext(request, reply);
        const call = procedure.path.split('.').reduce<unknown>((node, segment) => (node as Caller)[segment], callerFor(ctx)) as ProcedureCall;
        const data = await call(input);
        const meta = responseMeta({ ctx, paths: [procedure.path], errors: [], data: [data] });
        const other = ctx.response.body;
        if (other) {
          // A representation the client negotiated (Accept: text/csv): sent as the procedure wrote it.
          reply.code(meta.status ?? 200);
          for (const [key, value] of Object.entries(meta.headers ?? {})) if (value !== undefined) reply.header(key, value);
          reply.header('Content-Type', other.contentType);
          return reply.send(other.text);
        }
        return send(meta.status ?? 200, meta.headers ?? {}, data);
      } catch (cause) {
        const error = getErrorFromUnknown(cause);
        onError({ error, req: request });
        const meta = responseMeta({ ctx, paths: procedure ? [procedure.path] : undefined, errors: [error], data: [undefined] });
        const shape = formatError({
          error,
          shape: { message: error.message, code: TRPC_ERROR_CODES_BY_KEY[error.code], data: { code: error.code, httpStatus: getHTTPStatusCodeFromError(error) } },
        });
        return send(meta.status ?? TRPC_ERROR_CODE_HTTP_STATUS[error.code] ?? 500, meta.headers ?? {}, { ...shape, code: error.code });
      }
    },
  });
}

const notFound = () => new TRPCError({ code: 'NOT_FOUND', message: 'Not found' });

// trpc-to-openapi's message, its missing quote included (the REST layer answers 415 before this).
const unsupportedMediaType = (contentType: string | undefined) =>
  new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: contentType ? `Unsupported content-type "${contentType}` : 'Missing content-type header' });
