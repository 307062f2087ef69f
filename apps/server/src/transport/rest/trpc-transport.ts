import type { AnyRouter } from '@trpc/server';
import { fastifyRequestHandler, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import {
  getErrorShape,
  getHTTPStatusCode,
  getTRPCErrorFromUnknown,
  transformTRPCResponse,
  type AnyProcedure,
  type TRPCResponse,
} from '@trpc/server/unstable-core-do-not-import';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

type TrpcOptions = FastifyTRPCPluginOptions<AnyRouter>['trpcOptions'];
type Call = { procedure: AnyProcedure; input: unknown; batch: boolean };

/**
 * The native tRPC transport on `/api/trpc/:path`: tRPC's own Fastify handler, with one shortcut.
 * tRPC's handler turns every request into a fetch `Request` and its answer into a `Response`, and
 * builds five abort signals per call; on a one-row query that was half the server's CPU (a
 * `--profile` run of the bench's tRPC scenario). A single query (GET) or mutation (POST) that is
 * not streamed, which is what the SDK sends, is called here as tRPC calls it, with the same
 * context, input, error shape, status and headers; everything else (batches of several,
 * subscriptions, streamed batches, unparsable input, unknown paths) goes to tRPC's handler.
 */
export async function registerTrpcTransport(app: FastifyInstance, prefix: string, options: TrpcOptions) {
  const router = options.router;
  const procedures = router._def.procedures as Record<string, AnyProcedure | undefined>;
  const config = router._def._config;

  await app.register(
    async (scope) => {
      // As tRPC's plugin: it reads JSON and multipart bodies itself.
      scope.removeContentTypeParser(['application/json', 'multipart/form-data']);
      scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
      scope.addContentTypeParser('multipart/form-data', {}, (_request, body, done) => done(null, body));

      scope.all<{ Params: { path: string } }>('/:path', async (request, reply) => {
        const call = singleCall(request);
        if (!call) return fastifyRequestHandler({ ...options, req: request, res: reply, path: request.params.path } as never);
        await answer(request, reply, call);
      });
    },
    { prefix },
  );

  function singleCall(request: FastifyRequest<{ Params: { path: string } }>): Call | undefined {
    const path = request.params.path;
    if (path.includes(',') || request.headers['trpc-accept'] !== undefined) return undefined;
    const procedure = procedures[path];
    const type = procedure?._def.type;
    if (!procedure || !((type === 'query' && request.method === 'GET') || (type === 'mutation' && request.method === 'POST'))) return undefined;
    const query = request.query as Record<string, unknown>;
    const batch = query.batch === '1';
    if (query.batch !== undefined && !batch) return undefined;
    let raw: string | undefined;
    if (request.method === 'GET') {
      if (query.input !== undefined && typeof query.input !== 'string') return undefined;
      raw = query.input as string | undefined;
    } else {
      // tRPC refuses a POST that is not JSON; its handler says so.
      const contentType = request.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase();
      if (contentType !== 'application/json') return undefined;
      if (request.body !== undefined && typeof request.body !== 'string') return undefined;
      raw = request.body as string | undefined;
    }
    let inputs: unknown;
    try {
      inputs = raw ? JSON.parse(raw) : undefined;
    } catch {
      return undefined; // tRPC's handler answers it with its own parse error
    }
    if (!batch) return { procedure, input: inputs === undefined ? undefined : config.transformer.input.deserialize(inputs), batch };
    if (inputs !== undefined && (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs))) return undefined;
    const input = (inputs as Record<string, unknown> | undefined)?.['0'];
    return { procedure, input: input === undefined ? undefined : config.transformer.input.deserialize(input), batch };
  }

  async function answer(request: FastifyRequest<{ Params: { path: string } }>, reply: FastifyReply, call: Call) {
    const path = request.params.path;
    const type = call.procedure._def.type;
    const info = {
      isBatchCall: call.batch,
      accept: null,
      calls: [{ path, procedure: call.procedure, getRawInput: async () => call.input, result: () => call.input, batchIndex: 0 }],
      type,
      connectionParams: null,
      signal: undefined as unknown as AbortSignal,
      url: null,
    };
    let ctx: unknown;
    let response: TRPCResponse;
    let error: ReturnType<typeof getTRPCErrorFromUnknown> | undefined;
    try {
      ctx = await options.createContext?.({ req: request, res: reply, info } as never);
      const data = await call.procedure({ path, getRawInput: async () => call.input, ctx, type, signal: undefined, batchIndex: 0 });
      response = { result: { data } };
    } catch (cause) {
      error = getTRPCErrorFromUnknown(cause);
      options.onError?.({ error, path, input: call.input, ctx, type, req: request } as never);
      response = { error: getErrorShape({ config, ctx, error, input: call.input, path, type }) };
    }
    const errors = error ? [error] : [];
    const meta = options.responseMeta?.({ ctx, info, paths: [path], data: [response], errors, eagerGeneration: false, type } as never) ?? {};
    const headers: Record<string, string | string[]> = { vary: 'trpc-accept, accept', 'content-type': 'application/json' };
    for (const [key, value] of Object.entries((meta.headers ?? {}) as Record<string, unknown>)) {
      if (typeof value === 'string' || Array.isArray(value)) headers[key] = value as string | string[];
    }
    const body = call.batch ? transformTRPCResponse(config, [response]) : transformTRPCResponse(config, response);
    await reply
      .code(meta.status ?? getHTTPStatusCode([response], errors))
      .headers(headers)
      .send(JSON.stringify(body));
  }
}

/**
 * The metrics' `route` of a tRPC request: its procedure (`/api/trpc/tasks.get`); a batch of several
 * calls is `/api/trpc/(batch)`, and a name no procedure has is `unmatched`, so what a client sends
 * cannot add series.
 */
export function trpcRouteLabel(prefix: string, router: AnyRouter): (request: FastifyRequest) => string {
  const procedures = router._def.procedures as Record<string, unknown>;
  return (request) => {
    const path = (request.params as { path?: string }).path ?? '';
    if (Object.hasOwn(procedures, path)) return `${prefix}/${path}`;
    return path.includes(',') && path.split(',').every((name) => Object.hasOwn(procedures, name)) ? `${prefix}/(batch)` : 'unmatched';
  };
}
