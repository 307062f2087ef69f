import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { errorBody, sendError } from './rest-errors';

/** Routes that take a password, an email or a single-use code: limited per client IP and per email. */
const AUTH_PATHS =
  /^\/api\/(v1\/auth\/(login|register|password-reset|password-reset\/confirm|oidc\/exchange)|trpc\/auth\.(login|register|requestPasswordReset|confirmPasswordReset|oidc\.exchange))(\?|$)/;
const WINDOW_MS = 60_000;

export interface RateLimitOptions {
  /** Login, register and password reset attempts per minute, per client IP and per email; 0 turns this limit off. */
  authPerMinute: number;
  /** API requests per minute per bearer token; 0 turns this limit off. */
  tokenPerMinute: number;
  /** Counters in Redis (shared by every instance) instead of this process's memory. */
  redisUrl?: string;
  /** Told of every refusal, by the limit that refused. */
  onRefused?: (limit: 'auth_ip' | 'auth_email' | 'token') => void;
}

/** The email of a login or register body, REST or native tRPC (single or batched). */
function emailOf(body: unknown): string | undefined {
  if (typeof body === 'string') return emailOf(parseOrUndefined(body));
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const candidate = record.email ?? (record['0'] as Record<string, unknown> | undefined)?.email;
  return typeof candidate === 'string' ? candidate.trim().toLowerCase().slice(0, 254) : undefined;
}

/** The native tRPC endpoint hands its body over unparsed. */
function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Tokens are counted under a digest, so neither Redis nor a memory dump ever holds one. */
const TOKEN_KEYS_LIMIT = 10_000;
const tokenKeys = new Map<string, string>();

/**
 * The per-token counter's key: a digest, so Redis never holds a bearer token. Remembered per
 * header (bounded, oldest forgotten first, like the verified-token cache): hashing it on every
 * request was 2 % of a single-row read.
 */
function tokenKey(authorization: string): string {
  let key = tokenKeys.get(authorization);
  if (key === undefined) {
    key = `token:${createHash('sha256').update(authorization).digest('base64url')}`;
    if (tokenKeys.size >= TOKEN_KEYS_LIMIT) tokenKeys.delete(tokenKeys.keys().next().value as string);
    tokenKeys.set(authorization, key);
  }
  return key;
}

function refuse(request: FastifyRequest, reply: FastifyReply, ttlInSeconds: number) {
  const seconds = Math.max(1, ttlInSeconds);
  reply.header('retry-after', String(seconds));
  return sendError(request, reply, 429, errorBody(429, `Too many requests: retry in ${seconds} s`, 'RATE_LIMITED'));
}

/**
 * Redis for shared counters. A Redis outage must not take the API down with it, so commands fail
 * fast while it is unreachable (no offline queue) and the limiter lets requests through (skipOnError).
 */
async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 });
  redis.on('error', (error: Error) => app.log.warn({ err: error }, 'rate-limit store (Redis) unavailable'));
  app.addHook('onClose', async () => {
    redis.disconnect();
  });
  try {
    await redis.connect();
  } catch (error) {
    app.log.warn({ err: error }, 'Redis unreachable at start: rate limits pass requests until it is back');
  }
  return redis;
}

/**
 * Login, register, password reset and the sign-on exchange are limited per client IP and per email, so neither a single client nor a
 * distributed guess at one account gets more than `authPerMinute` attempts a minute. Every other
 * API request carrying a token is limited per token, against runaway scripts. A limit of 0 is off.
 */
export async function registerRateLimits(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const redis = options.redisUrl ? await connectRedis(app, options.redisUrl) : undefined;
  await app.register(rateLimit, {
    global: false,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: 'tasklane-rate-limit:' } : {}),
  });
  const limiter = (name: 'auth_ip' | 'auth_email' | 'token', max: number, keyGenerator: (request: FastifyRequest) => string) => {
    const limit = app.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator });
    /** Counts the request; answers 429 and returns true once the key is over its limit. */
    return async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
      const result = await limit(request);
      if (result.isAllowed || !result.isExceeded) return false;
      options.onRefused?.(name);
      await refuse(request, reply, result.ttlInSeconds);
      return true;
    };
  };

  if (options.authPerMinute > 0) {
    const perIp = limiter('auth_ip', options.authPerMinute, (request) => `auth-ip:${request.ip}`);
    const perEmail = limiter('auth_email', options.authPerMinute, (request) => `auth-email:${emailOf(request.body) ?? ''}`);
    app.addHook('preHandler', async (request, reply) => {
      if (request.method !== 'POST' || !AUTH_PATHS.test(request.url)) return;
      if (await perIp(request, reply)) return reply;
      if (emailOf(request.body) && (await perEmail(request, reply))) return reply;
    });
  }

  if (options.tokenPerMinute === 0) return;
  const perToken = limiter('token', options.tokenPerMinute, (request) => tokenKey(request.headers.authorization ?? ''));
  app.addHook('onRequest', async (request, reply) => {
    if (!request.headers.authorization || !request.url.startsWith('/api/')) return;
    if (await perToken(request, reply)) return reply;
  });
}
