import { initTRPC } from '@trpc/server';
import type { ClientInfo } from '../../resources/auth/service';
import { DATABASE_RETRY, isDatabaseUnavailable, isUnstorableValue } from '../../platform/db-errors';
import type { Services } from '../../resources/services';
import { DomainError } from '../../platform/errors';
import type { ResponseMeta } from '../../platform/response-meta';
import { callRefusal, runWithGrant, SESSION_GRANT, type TokenNeed } from '../../resources/policy/policy';
import { domainErrorOf, formatError, toTRPCError } from './errors';
import { recordingEvents } from '../../events/record';

/** Opaque in the router's public type so no server-only type reaches the SDK's declarations. */
export interface ServicesHandle {
  readonly __services: unique symbol;
}

export interface Context {
  transport: 'rest' | 'trpc';
  requestId: string;
  authorization: string | undefined;
  /** The `If-Match` request header, for conditional PATCH and DELETE. */
  ifMatch: string | undefined;
  /** The `Idempotency-Key` request header, for safely retried creates. */
  idempotencyKey: string | undefined;
  /** Path and query of the request, for building `Link` headers. */
  url: string;
  /** The client as the server saw it (address per TRUST_PROXY), recorded with a new session. */
  client: ClientInfo;
  /** The Cookie header: single sign-on keeps its flow in a cookie. */
  cookie: string | undefined;
  /** The Accept header: a browser (text/html) is redirected where an API client gets JSON. */
  accept: string | undefined;
  /** What a procedure wants on the REST response (status, ETag, Link), read by responseMeta. */
  response: ResponseMeta;
  /** Drops the request's connection at once: a live subscription ends so for a client too slow to read. */
  dropConnection: () => void;
  /** Counts one call of a password, email or single-use code check against the rate limits (http/rate-limits.ts); throws the 429 past them. */
  countAttempt: (input: unknown) => Promise<void>;
  /**
   * What a personal access token needs for a procedure (token-scopes.ts). Given by the app because
   * the scopes table is typed by the router, which is built from this module.
   */
  tokenNeedOf: (procedure: string) => TokenNeed;
  services: ServicesHandle;
  /** Waits (bounded) until the derived work of these committed events is done: a write's caller then reads it (events/dispatcher.ts). */
  settleEvents: (eventIds: readonly number[]) => Promise<void>;
  /**
   * Runs a read's statements on a read replica that has replayed the request's `Tasklane-Lsn`, when
   * one is configured and fresh enough; else (and without replicas) on the primary.
   */
  readFromReplica: <T>(read: () => Promise<T>) => Promise<T>;
  /** Runs a procedure noting whether it wrote, so a GET that wrote answers a position too (with replicas only). */
  trackWrites: <T>(call: () => Promise<T>) => Promise<T>;
}

/**
 * trpc-to-openapi's meta, declared here with plain types: its own type names zod and
 * trpc-to-openapi, and the router's type (and so the SDK's declarations) would carry them.
 */
export type ProcedureMeta = {
  openapi?: {
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
    path: `/${string}`;
    summary?: string;
    description?: string;
    tags?: string[];
    protect?: boolean;
    operationId?: string;
    successDescription?: string;
  };
  /** The success status on REST (201 for creates); the OpenAPI document is corrected from it. */
  successStatus?: number;
  /**
   * A create's `Location` on REST: the created resource's path under /api/v1, each `{field}`
   * filled from the answer (`/tasks/{taskId}/comments/{id}`).
   */
  location?: `/${string}`;
  /** A redirect (with Location and a `{ location }` body) the route answers besides its success, for the OpenAPI document. */
  redirect?: { status: 302 | 303; description: string };
  /** Error statuses this route can answer besides 400/401/404/500, for the OpenAPI document. */
  errors?: number[];
  /** Response headers the route sets, for the OpenAPI document. */
  headers?: ('ETag' | 'Link' | 'Location' | 'Idempotent-Replayed')[];
  /** Request headers the route honours, for the OpenAPI document. */
  requestHeaders?: ('If-Match' | 'Idempotency-Key')[];
  /**
   * A paged list (paged-list.ts): the procedure answers `{ items, nextCursor }`, which REST sends as
   * the bare array with a `Link: rel="next"` header, and documents so (transport/rest/paged-lists.ts).
   */
  paged?: true;
  /**
   * The answer is also offered as CSV: with `Accept: text/csv` the REST route sends the text the
   * procedure put in `ctx.response.body` (time-report), and the OpenAPI document lists both media types.
   */
  csv?: true;
};

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  // Live subscriptions (SSE) send a ping like the REST stream's heartbeat, so proxies keep them open.
  .create({ errorFormatter: formatError, sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 30_000 } } });

export const router = t.router;
export const mergeRouters = t.mergeRouters;

/**
 * Every procedure's refusals become tRPC's here. An unreachable database is the service's outage,
 * not a bug of the request: 503, quickly, never a 500.
 */
export const publicProcedure = t.procedure.use(async ({ ctx, next }) => {
  // `ctx.services` is the Services object already, opaque only in the type: `next()` keeps the
  // context as it is (tRPC copies the whole context for a `next({ ctx })`) and the cast gives the
  // procedures below the type they would have got from `next({ ctx: { services } })`.
  const result = (await ctx.trackWrites(() => next())) as Awaited<ReturnType<typeof next<{ services: Services }>>>;
  if (result.ok) return result;
  if (isDatabaseUnavailable(result.error)) {
    throw toTRPCError(new DomainError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly', 'DATABASE_UNAVAILABLE', DATABASE_RETRY));
  }
  if (isUnstorableValue(result.error)) {
    throw toTRPCError(new DomainError('BAD_REQUEST', 'A value cannot be stored: PostgreSQL refused it', 'UNSTORABLE_VALUE'));
  }
  const refusal = domainErrorOf(result.error);
  if (refusal) throw toTRPCError(refusal);
  return result;
});

/**
 * Procedures that check a password, an email or a single-use code. Each call is counted against
 * the attempt limits before it runs, however it was reached (any spelling of the REST path, native
 * tRPC, each call of a batch), so a call past the limit is refused before any password is hashed
 * or compared.
 */
export const attemptProcedure = publicProcedure.use(async ({ ctx, getRawInput, next }) => {
  await ctx.countAttempt(await getRawInput());
  return next();
});

const unauthorized = () => new DomainError('UNAUTHORIZED', 'Missing, invalid or expired token');

/**
 * Every procedure but the public ones: resolves the bearer token (a login token or a personal access
 * token) to the caller's id, and checks in the database that the token still holds. A write runs
 * only after that check. A read has no effect, so it runs beside the check instead of after it —
 * one database round trip of latency instead of two — and its result is released only once the
 * token has proved current. What the token's grant allows (policy.ts) is asked here for the
 * procedure, and the procedure runs under the grant, which limits the projects it reaches.
 *
 * A write that succeeded answers only once the work derived from the events it committed
 * (notifications, webhook deliveries: events/dispatcher.ts) is done, or after a bounded wait: its
 * caller reads that work right after, as when it was written in the same transaction.
 */
export const protectedProcedure = publicProcedure.use(async ({ ctx, type, path, next }) => {
  const claims = await ctx.services.auth.identify(ctx.authorization);
  if (!claims) throw unauthorized();
  const grant = claims.grant ?? SESSION_GRANT;
  const refusal = callRefusal(grant, path, ctx.tokenNeedOf(path));
  const current = ctx.services.auth.isCurrent(claims);
  const proceed = () => runWithGrant(grant, () => next({ ctx: { userId: claims.userId, token: claims } }));
  if (type !== 'query' || refusal) {
    if (!(await current)) throw unauthorized();
    if (refusal) throw refusal;
    if (type !== 'mutation') return proceed();
    const { result, eventIds } = await recordingEvents(proceed);
    if (result.ok) await ctx.settleEvents(eventIds);
    return result;
  }
  // The token's check stays on the primary (a revoked token is refused at once); the read may not.
  const [isCurrent, result] = await Promise.all([current, ctx.readFromReplica(proceed)]);
  if (!isCurrent) throw unauthorized();
  return result;
});
