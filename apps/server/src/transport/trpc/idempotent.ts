import type { Services } from '../../resources/services';
import type { Context } from './init';

type CallerContext = Omit<Context, 'services'> & { services: Services; userId: string };

/**
 * Runs a create under the request's `Idempotency-Key` (if any): the REST status is the stored
 * one and a replay is marked with `Idempotent-Replayed: true`.
 */
export async function idempotentCreate<T>(ctx: CallerContext, operation: string, input: unknown, create: () => Promise<T>): Promise<T> {
  const result = await ctx.services.idempotency.run({ userId: ctx.userId, key: ctx.idempotencyKey, operation, input }, 201, create);
  ctx.response.status = result.status;
  if (result.replayed) ctx.response.headers['idempotent-replayed'] = 'true';
  return result.body;
}
