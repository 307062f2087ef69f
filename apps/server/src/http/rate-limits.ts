import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorBody } from './rest-errors';

const AUTH_PATHS = /^\/api\/(v1\/auth\/(login|register)|trpc\/auth\.(login|register))(\?|$)/;

/** The email of a login or register body, REST or native tRPC (single or batched). */
function emailOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const candidate = record.email ?? (record['0'] as Record<string, unknown> | undefined)?.email;
  return typeof candidate === 'string' ? candidate.trim().toLowerCase().slice(0, 254) : undefined;
}

/**
 * Login and register are limited per client IP and per email, so neither a single client nor a
 * distributed guess at one account gets more than `perMinute` attempts a minute.
 */
export async function registerAuthRateLimits(app: FastifyInstance, perMinute: number): Promise<void> {
  await app.register(rateLimit, { global: false });
  const limiters = [
    app.createRateLimit({ max: perMinute, timeWindow: 60_000, keyGenerator: (request) => `auth-ip:${request.ip}` }),
    app.createRateLimit({
      max: perMinute,
      timeWindow: 60_000,
      keyGenerator: (request) => `auth-email:${emailOf(request.body) ?? ''}`,
    }),
  ];
  app.addHook('preHandler', async (request: FastifyRequest, reply) => {
    if (request.method !== 'POST' || !AUTH_PATHS.test(request.url)) return;
    for (const [index, limiter] of limiters.entries()) {
      if (index === 1 && !emailOf(request.body)) continue;
      const result = await limiter(request);
      if (!result.isAllowed && result.isExceeded) {
        return reply
          .code(429)
          .header('retry-after', String(result.ttlInSeconds))
          .send(errorBody(429, `Too many attempts: retry in ${result.ttlInSeconds} s`, 'RATE_LIMITED'));
      }
    }
  });
}
