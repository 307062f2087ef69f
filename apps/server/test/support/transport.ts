import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** A client address of its own, so rate-limit counters of one test never meet another's. */
export const randomClientIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** A fetch that goes through `app.inject`, for the SDK (a real tRPC client) without a socket. */
export function injectFetch(app: FastifyInstance, headers: Record<string, string> = {}): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const response = await app.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: url.pathname + url.search,
      headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...headers },
      ...(init?.body ? { payload: init.body as string } : {}),
    });
    return new Response(response.body, {
      status: response.statusCode,
      headers: Object.entries(response.headers).flatMap(([name, value]) =>
        value === undefined ? [] : [[name, String(value)] as [string, string]],
      ),
    });
  };
}

/** The tRPC error envelope the tRPC client reads: `{ error: { message, code, data: { code, httpStatus } } }`, or a batch of them. */
export function isTrpcErrorBody(body: unknown, status: number): boolean {
  const items = Array.isArray(body) ? body : [body];
  return items.length > 0 && items.every((item) => {
    const error = (item as { error?: { message?: unknown; code?: unknown; data?: { code?: unknown; httpStatus?: unknown; stack?: unknown } } })?.error;
    return (
      typeof error?.message === 'string' &&
      typeof error.code === 'number' &&
      typeof error.data?.code === 'string' &&
      error.data.httpStatus === status &&
      error.data.stack === undefined
    );
  });
}
