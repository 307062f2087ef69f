import { randomUUID } from 'node:crypto';
import { decodeJwt, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, expectTrpcError } from '../support/checks';
import { registerUser, startTestApp, testConfig, type TestApp, type TestUser } from '../support/harness';

const now = () => Math.floor(Date.now() / 1000);

/** Signs any claims and header with the test server's own secret: the signature always verifies. */
function sign(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }): Promise<string> {
  return new SignJWT(claims as JWTPayload).setProtectedHeader(header as { alg: string }).sign(new TextEncoder().encode(testConfig().jwtSecret));
}

/**
 * Tokens signed with the server's secret whose claims are not exactly what the server issues:
 * each is refused with the documented 401 on both transports, never accepted and never a 5xx.
 */
describe('tokens that verify but carry malformed claims', () => {
  let t: TestApp;
  let user: TestUser;
  /** The claims of the user's real login token, which each case alters one way. */
  let issued: Record<string, unknown>;

  beforeAll(async () => {
    t = await startTestApp();
    user = await registerUser(t);
    issued = decodeJwt(user.token) as Record<string, unknown>;
  });
  afterAll(() => t.close());

  const without = (name: string) => () => Object.fromEntries(Object.entries(issued).filter(([key]) => key !== name));
  const withClaim = (name: string, value: unknown) => () => ({ ...issued, [name]: value });

  const cases: [string, () => Record<string, unknown>, Record<string, unknown>?][] = [
    ['a subject that is not an id', withClaim('sub', 'admin')],
    ['a subject that is an id in capitals', () => ({ ...issued, sub: String(issued.sub).toUpperCase() })],
    ['a subject that is a number', withClaim('sub', 42)],
    ['no subject', without('sub')],
    ['no version claim', without('tv')],
    ['a version claim that is a string', withClaim('tv', '0')],
    ['a negative version claim', withClaim('tv', -1)],
    ['a fractional version claim', withClaim('tv', 0.5)],
    ['a version claim beyond any stored version', withClaim('tv', 2 ** 40)],
    ['an issue time in the future', withClaim('iat', now() + 3600)],
    ['no issue time', without('iat')],
    ['an issue time that is a string', withClaim('iat', String(now()))],
    ['no expiry', without('exp')],
    ['no token id', without('jti')],
    ['a token id that is not an id', withClaim('jti', 'x')],
    ['a session id that is not an id', () => ({ ...issued, sid: 'not-a-session', jti: 'not-a-session' })],
    ['a session id other than the token id', withClaim('sid', randomUUID())],
    ['a session id that is a number', withClaim('sid', 7)],
    ['an extra claim', withClaim('admin', true)],
    ['an expiry no later than the issue time', () => ({ ...issued, iat: now() + 30, exp: now() + 30 })],
    ['a wrong typ header', () => issued, { alg: 'HS256', typ: 'at+jwt' }],
    ['no typ header', () => issued, { alg: 'HS256' }],
    ['an extra header', () => issued, { alg: 'HS256', typ: 'JWT', kid: 'other' }],
  ];

  it('the same claims, signed the same way, are accepted (so each refusal below is the claims)', async () => {
    const token = await sign(issued);
    expect((await t.request('GET', '/api/v1/auth/me', { token })).status).toBe(200);
    expect((await t.request('GET', '/api/trpc/auth.me', { token })).status).toBe(200);
  });

  for (const [name, claims, header] of cases) {
    it(`${name}: 401 on REST and tRPC`, async () => {
      const token = await sign(JSON.parse(JSON.stringify(claims())), header);
      expectErrorBody(await t.request('GET', '/api/v1/auth/me', { token }), 401);
      expectErrorBody(await t.request('POST', '/api/v1/projects', { token, body: { name: 'Never' } }), 401);
      expectTrpcError(await t.request('GET', '/api/trpc/auth.me', { token }), 401);
      expectTrpcError(await t.request('POST', '/api/trpc/projects.create', { token, body: { name: 'Never' } }), 401);
    });
  }
});
