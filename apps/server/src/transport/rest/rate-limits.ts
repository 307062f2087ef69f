import { createHash } from 'node:crypto';
import { EmailSchema } from '@tasklane/schemas';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { bearerTokenOf } from '../../resources/credentials/tokens';
import { DomainError } from '../../platform/errors';
import { errorBody, sendError } from './rest-errors';

const WINDOW_SECONDS = 60;

type LimitName = 'auth_ip' | 'auth_email' | 'token';

export interface RateLimitOptions {
  /** Login, register, password reset and sign-on exchange calls per minute, per client IP and per email; 0 turns this limit off. */
  authPerMinute: number;
  /** API calls per minute per bearer token; 0 turns this limit off. */
  tokenPerMinute: number;
  /** The native tRPC route (`/api/trpc/:path`), whose batches are counted call by call. */
  trpcRoute: string;
  /** Counters in Redis (shared by every instance) instead of this process's memory. */
  redisUrl?: string;
  /** Told of every refusal, by the limit that refused. */
  onRefused?: (limit: LimitName) => void;
}

export interface RateLimits {
  /**
   * Counts one call of a procedure that checks a password, an email or a single-use code, against
   * the client's address and the email (when the input names a valid one); throws the 429 once
   * either is spent, before the procedure does any work.
   */
  countAttempt(request: FastifyRequest, reply: FastifyReply, input: unknown): Promise<void>;
}

interface Limit {
  name: LimitName;
  max: number;
  limiter: RateLimiterAbstract;
}

/** Tokens are counted under a digest, so neither Redis nor a memory dump ever holds one. */
const TOKEN_KEYS_LIMIT = 10_000;
const tokenKeys = new Map<string, string>();

/**
 * The per-token counter's key: a digest of the token itself, however the header spells its scheme
 * (`Bearer`, `bearer`), so that one token is one counter. Remembered per token (bounded, oldest
 * forgotten first, like the verified-token cache): hashing it on every request was 2 % of a
 * single-row read.
 */
function tokenKey(authorization: string): string {
  const token = bearerTokenOf(authorization) ?? authorization;
  let key = tokenKeys.get(token);
  if (key === undefined) {
    key = `token:${createHash('sha256').update(token).digest('base64url')}`;
    if (tokenKeys.size >= TOKEN_KEYS_LIMIT) tokenKeys.delete(tokenKeys.keys().next().value as string);
    tokenKeys.set(token, key);
  }
  return key;
}

/** The email an attempt's input names, as the schemas normalise it; none for an invalid one, which is refused before any check. */
function emailOf(input: unknown): string | undefined {
  const email = (input as { email?: unknown } | null | undefined)?.email;
  const parsed = EmailSchema.safeParse(email);
  return parsed.success ? parsed.data : undefined;
}

const secondsOf = (milliseconds: number) => Math.max(1, Math.ceil(milliseconds / 1000));

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): the limit, what is left
 * of it and the seconds until it resets. A request counted by several limits announces the one
 * closest to running out.
 */
function announce(reply: FastifyReply, max: number, outcome: RateLimiterRes): void {
  const shown = reply.getHeader('ratelimit-remaining');
  if (shown !== undefined && Number(shown) <= outcome.remainingPoints) return;
  reply.header('ratelimit-limit', String(max));
  reply.header('ratelimit-remaining', String(outcome.remainingPoints));
  reply.header('ratelimit-reset', String(secondsOf(outcome.msBeforeNext)));
}

/**
 * Counts `points` against the key and announces the limit. Returns the seconds to wait when the
 * limit is spent; undefined when the call may go on, also when Redis cannot be reached (a Redis
 * outage must not take the API down with it; the outage is logged by the client's error handler).
 */
async function spend(limit: Limit, key: string, points: number, reply: FastifyReply): Promise<number | undefined> {
  let outcome: RateLimiterRes;
  let refused = false;
  try {
    outcome = await limit.limiter.consume(key, points);
  } catch (caught) {
    if (!(caught instanceof RateLimiterRes)) return undefined;
    outcome = caught;
    refused = true;
  }
  announce(reply, limit.max, outcome);
  if (!refused) return undefined;
  const seconds = secondsOf(outcome.msBeforeNext);
  reply.header('retry-after', String(seconds));
  return seconds;
}

/** Redis for shared counters: commands fail at once while it is unreachable (no offline queue), so requests pass then. */
async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  // Loaded only with REDIS_URL: ioredis is memory a single instance would hold for nothing.
  const { Redis: RedisClient } = await import('ioredis');
  const redis = new RedisClient(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 });
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

/** The calls a request makes: each procedure a tRPC batch names in its path (`a,b,c`, split as tRPC splits it), otherwise one. */
const callsOf = (request: FastifyRequest, trpcRoute: string): number =>
  request.routeOptions.url === trpcRoute ? String((request.params as { path?: unknown }).path ?? '').split(',').length : 1;

/**
 * Calls that check a password, an email or a single-use code (login, register, password reset, the
 * sign-on exchange) are limited per client IP and per email, so neither a single client nor a
 * distributed guess at one account gets more than `authPerMinute` a minute. They are counted in
 * the procedure (`countAttempt`), so every way of reaching one counts: any spelling of the REST
 * path, native tRPC, each call of a batch. Every other API request carrying a token is limited per
 * token, against runaway scripts, a tRPC batch by its number of calls. A limit of 0 is off.
 */
export async function registerRateLimits(app: FastifyInstance, options: RateLimitOptions): Promise<RateLimits> {
  const redis = options.redisUrl ? await connectRedis(app, options.redisUrl) : undefined;
  const limit = (name: LimitName, max: number): Limit => {
    const settings = { points: max, duration: WINDOW_SECONDS, keyPrefix: `tasklane-rate-limit:${name}` };
    return { name, max, limiter: redis ? new RateLimiterRedis({ ...settings, storeClient: redis, rejectIfRedisNotReady: true }) : new RateLimiterMemory(settings) };
  };
  const tooMany = (name: LimitName, seconds: number) => {
    options.onRefused?.(name);
    return new DomainError('TOO_MANY_REQUESTS', `Too many attempts: retry in ${seconds} s`, 'RATE_LIMITED');
  };

  if (options.tokenPerMinute > 0) {
    const perToken = limit('token', options.tokenPerMinute);
    app.addHook('onRequest', async (request, reply) => {
      const { authorization } = request.headers;
      if (!authorization || !request.url.startsWith('/api/')) return;
      const seconds = await spend(perToken, tokenKey(authorization), callsOf(request, options.trpcRoute), reply);
      if (seconds === undefined) return;
      options.onRefused?.('token');
      return sendError(request, reply, 429, errorBody(429, `Too many requests: retry in ${seconds} s`, 'RATE_LIMITED'));
    });
  }

  if (options.authPerMinute === 0) return { countAttempt: async () => {} };
  const perIp = limit('auth_ip', options.authPerMinute);
  const perEmail = limit('auth_email', options.authPerMinute);
  return {
    async countAttempt(request, reply, input) {
      const ipWait = await spend(perIp, request.ip, 1, reply);
      if (ipWait !== undefined) throw tooMany('auth_ip', ipWait);
      const email = emailOf(input);
      const emailWait = email === undefined ? undefined : await spend(perEmail, email, 1, reply);
      if (emailWait !== undefined) throw tooMany('auth_email', emailWait);
    },
  };
}
