import { randomUUID } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { expect } from 'vitest';
import { testConfig, type TestApp, type TestResponse } from './harness';

/** Rows of a raw SQL query, whichever driver (PGlite answers `{ rows }`, postgres.js an array). */
export async function queryRows<T = Record<string, unknown>>(t: TestApp, sql: string): Promise<T[]> {
  const result = await t.database.db.execute(sql as never);
  return ((result as { rows?: T[] }).rows ?? (result as unknown as T[])) as T[];
}

/**
 * Row count and an order-free digest (sum of row hashes, no sort) of every table (found in the catalog, so tables added later
 * are covered): equal snapshots before and after a refused request prove it wrote nothing, not
 * even an update in place. (Test databases are small.) Left out: `last_used_at`, which any
 * authenticated request may stamp on its session or token, refused or not.
 */
export async function databaseSnapshot(t: TestApp): Promise<Record<string, string>> {
  const tables = await queryRows<{ name: string }>(
    t,
    "select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like '%drizzle%' order by 1",
  );
  // A deleted project's webhooks wait (project_id null) for the delivery worker to remove them on its
  // own poll, which may fall between two snapshots of an unrelated request.
  const rowsOf = (name: string) => (name === 'webhooks' ? `(select * from "webhooks" where project_id is not null)` : `"${name}"`);
  // Likewise the worker's progress on a queued delivery (its attempts, lease, state and answer) is its
  // own, on its own poll: a request that queues or drops a delivery still changes the rest of the row.
  const ignored = (name: string) =>
    name === 'webhook_deliveries'
      ? ['last_used_at', 'state', 'attempts', 'next_attempt_at', 'leased_until', 'last_status', 'last_error', 'delivered_at', 'updated_at']
      : ['last_used_at'];
  const columns = tables.map(
    ({ name }) =>
      `(select count(*) || ' rows, digest ' || coalesce(sum(hashtextextended((to_jsonb(x) - array[${ignored(name).map((column) => `'${column}'`).join(', ')}])::text, 0)::numeric), 0) from ${rowsOf(name)} x) as "${name}"`,
  );
  const [row] = await queryRows<Record<string, string>>(t, `select ${columns.join(', ')}`);
  return row!;
}

const HOUR = 3600;
const now = () => Math.floor(Date.now() / 1000);

/** A token signed like the server's (HS256; sub, iat, jti, exp) with the secret and expiry a test chooses. */
export function signTestToken(
  userId: string,
  { secret = testConfig().jwtSecret, expiresAt = now() + HOUR }: { secret?: string; expiresAt?: number } = {},
): Promise<string> {
  return new SignJWT({ tv: 0 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt(expiresAt - HOUR)
    .setJti(randomUUID())
    .setExpirationTime(expiresAt)
    .sign(new TextEncoder().encode(secret));
}

export const UNACCEPTABLE_TOKENS = [
  'no token',
  'malformed token',
  'another scheme',
  'expired token',
  'token signed with another secret',
  'unsigned token (alg none)',
  'token of an unknown user',
] as const;
export type UnacceptableToken = (typeof UNACCEPTABLE_TOKENS)[number];

/** Authorization headers that must all be refused with 401, made for a user who otherwise exists. */
export async function unacceptableAuthorizations(userId: string): Promise<Record<UnacceptableToken, string | undefined>> {
  return {
    'no token': undefined,
    'malformed token': 'Bearer not-a-jwt',
    'another scheme': 'Basic dXNlcjpwYXNzd29yZA==',
    'expired token': `Bearer ${await signTestToken(userId, { expiresAt: now() - 60 })}`,
    'token signed with another secret': `Bearer ${await signTestToken(userId, { secret: 'another-secret-that-is-long-enough-for-hs256' })}`,
    'unsigned token (alg none)': `Bearer ${new UnsecuredJWT({ tv: 0 }).setSubject(userId).setJti(randomUUID()).setIssuedAt().setExpirationTime('1h').encode()}`,
    'token of an unknown user': `Bearer ${await signTestToken(randomUUID())}`,
  };
}

export const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  416: 'RANGE_NOT_SATISFIABLE',
  429: 'TOO_MANY_REQUESTS',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
  503: 'SERVICE_UNAVAILABLE',
};

export interface ExpectedError {
  /** Exact text, or a matcher such as `expect.stringContaining(…)`; any non-empty text when left out. */
  message?: unknown;
  reason?: string;
  issues?: unknown;
}

/**
 * The documented REST error: the status, `code` matching it, and exactly the keys
 * `message`, `code` and (only when expected) `reason` and `issues` — no `data`, no stack.
 */
export function expectErrorBody(response: TestResponse, status: number, expected: ExpectedError = {}): void {
  const { status: actualStatus, body } = response;
  expect({ status: actualStatus, body }).toMatchObject({ status });
  expect(body).toStrictEqual({
    message: expected.message ?? expect.stringMatching(/\S/),
    code: CODE_BY_STATUS[status],
    ...(expected.reason ? { reason: expected.reason } : {}),
    ...(expected.issues ? { issues: expected.issues } : {}),
  });
  expectNoStack(body);
  if (status === 401) expect(response.headers['www-authenticate']).toBe('Bearer');
}

/** One issue naming a field: its path and, optionally, the zod issue code. */
export const issueAt = (path: (string | number)[], code?: string) => ({
  path,
  message: expect.any(String),
  ...(code ? { code } : { code: expect.any(String) }),
});

/** No stack trace anywhere in a body, however deep (the `stack` key or V8's "    at …" lines). */
export function expectNoStack(body: unknown): void {
  const text = JSON.stringify(body) ?? '';
  expect(text).not.toMatch(/"stack"|\\n\s+at /);
}

/**
 * The native tRPC error, as the tRPC client reads it: `{ error: { message, code: <JSON-RPC number>,
 * data: { code, httpStatus, reason?, issues? } } }` and nothing else — no stack, no path, no input.
 */
export function expectTrpcError(response: TestResponse, status: number, expected: ExpectedError = {}): void {
  const { status: actualStatus, body } = response;
  expect({ status: actualStatus, body }).toMatchObject({ status });
  const code = CODE_BY_STATUS[status] as TRPC_ERROR_CODE_KEY;
  expect(body).toStrictEqual({
    error: {
      message: expected.message ?? expect.stringMatching(/\S/),
      code: TRPC_ERROR_CODES_BY_KEY[code],
      data: {
        code,
        httpStatus: status,
        ...(expected.reason ? { reason: expected.reason } : {}),
        ...(expected.issues ? { issues: expected.issues } : {}),
      },
    },
  });
  expectNoStack(body);
  if (status === 401) expect(response.headers['www-authenticate']).toBe('Bearer');
}

/** Each page of a REST list, from `url` along its `Link: rel="next"` headers (at most 100 pages). */
export async function followPages<T = any>(t: TestApp, url: string, token: string): Promise<T[][]> {
  const pages: T[][] = [];
  let next: string | undefined = url;
  while (next && pages.length < 100) {
    const response: TestResponse = await t.request('GET', next, { token });
    if (response.status !== 200) throw new Error(`GET ${next}: ${response.status} ${JSON.stringify(response.body)}`);
    pages.push(response.body as T[]);
    next = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link ?? ''))?.[1];
  }
  return pages;
}
