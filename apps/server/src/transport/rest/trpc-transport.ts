import type { AnyRouter } from '@trpc/server';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';

type TrpcOptions = FastifyTRPCPluginOptions<AnyRouter>['trpcOptions'];

/**
 * The native tRPC transport on `/api/trpc/:path`: tRPC's own Fastify plugin, in a scope of its own
 * (it replaces the JSON and multipart body parsers with its own, which the REST routes must not get).
 */
export async function registerTrpcTransport(app: FastifyInstance, prefix: string, options: TrpcOptions) {
  await app.register(fastifyTRPCPlugin, { prefix, trpcOptions: options });
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
