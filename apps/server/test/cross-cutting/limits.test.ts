import { randomBytes } from 'node:crypto';
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTasklaneClient, TasklaneError } from '../../../../packages/sdk/src';
import { buildApp } from '../../src/app/app';
import type { Config } from '../../src/platform/config';
import { openTestDatabase, registerUser, startTestApp, testConfig, type TestApp } from '../support/harness';
import { expectErrorBody, queryRows } from '../support/checks';
import { injectFetch, isTrpcErrorBody, randomClientIp } from '../support/transport';

const REDIS_URL = 'redis://127.0.0.1:6379';
const uniqueEmail = () => `limit-${randomBytes(6).toString('hex')}@example.com`;

/** A login attempt from a given client address (REST or native tRPC). */
async function login(app: FastifyInstance, ip: string, email: string, transport: 'rest' | 'trpc' = 'rest') {
  const response = await app.inject({
    method: 'POST',
    url: transport === 'rest' ? '/api/v1/auth/login' : '/api/trpc/auth.login',
    remoteAddress: ip,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ email, password: 'wrong-password' }),
  });
  return { status: response.statusCode, body: response.json(), headers: response.headers, retryAfter: response.headers['retry-after'] };
}

describe('rate limits in one instance', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ authRateLimit: 3, tokenRateLimit: 5 });
  });
  afterAll(() => t.close());

  it('limits login per client IP with 429, the error body and Retry-After', async () => {
    const ip = randomClientIp();
    for (let attempt = 0; attempt < 3; attempt += 1) expect((await login(t.app, ip, uniqueEmail())).status).toBe(401);
    const refused = await login(t.app, ip, uniqueEmail());
    expectErrorBody(refused, 429, { reason: 'RATE_LIMITED' });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    // another client is not affected
    expect((await login(t.app, randomClientIp(), uniqueEmail())).status).toBe(401);
  });

  it('limits attempts on one email from many addresses, on REST and tRPC together', async () => {
    const email = uniqueEmail();
    expect((await login(t.app, randomClientIp(), email)).status).toBe(401);
    expect((await login(t.app, randomClientIp(), email, 'trpc')).status).toBe(401);
    expect((await login(t.app, randomClientIp(), email.toUpperCase())).status).toBe(401);
    const refused = await login(t.app, randomClientIp(), ` ${email} `, 'trpc');
    expect(refused.status).toBe(429);
    expect(isTrpcErrorBody(refused.body, 429)).toBe(true);
    expect(refused.retryAfter).toBeDefined();
  });

  it('limits register too', async () => {
    const ip = randomClientIp();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/register',
        remoteAddress: ip,
        payload: { name: 'Flood', email: uniqueEmail(), password: 'password-123' },
      });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([201, 201, 201, 429]);
  });

  it('limits each token, and the SDK sees a typed TOO_MANY_REQUESTS error', async () => {
    // registering spends attempts of this address's auth budget; use one address per user
    const user = await registerUser(t);
    const other = await registerUser(t);
    for (let call = 0; call < 5; call += 1) expect((await t.request('GET', '/api/v1/projects', { token: user.token })).status).toBe(200);
    const refused = await t.request('GET', '/api/v1/projects', { token: user.token });
    expectErrorBody(refused, 429, { reason: 'RATE_LIMITED' });
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await t.request('GET', '/api/v1/projects', { token: other.token })).status).toBe(200);

    // One attempt: the SDK would otherwise retry the 429 after its Retry-After.
    const sdk = createTasklaneClient({ baseUrl: 'http://tasklane.test', token: user.token, fetch: injectFetch(t.app), maxAttempts: 1 });
    const error = await sdk.projects.list({}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TasklaneError);
    expect(error).toMatchObject({ code: 'TOO_MANY_REQUESTS', httpStatus: 429, reason: 'RATE_LIMITED' });
  });
});

interface Sent {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

/** A request sent over a socket exactly as written: neither client nor test harness normalises the path (`/./`, `%2E`). */
function send(app: FastifyInstance, method: string, path: string, options: { ip: string; body?: unknown; token?: string; authorization?: string }): Promise<Sent> {
  const port = (app.server.address() as AddressInfo).port;
  const authorization = options.authorization ?? (options.token ? `Bearer ${options.token}` : undefined);
  const headers = { 'content-type': 'application/json', 'x-forwarded-for': options.ip, ...(authorization ? { authorization } : {}) };
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: text ? JSON.parse(text) : undefined }));
    });
    sent.on('error', reject);
    sent.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

/** A tRPC batch body: each call's input under its index. */
const batchOf = (inputs: unknown[]) => Object.fromEntries(inputs.map((input, index) => [String(index), input]));
/** The status of each call of a tRPC batch's answer. */
const callStatuses = (body: { error?: { data: { httpStatus: number } } }[]) => body.map((item) => item.error?.data.httpStatus ?? 200);
const count = (statuses: number[], status: number) => statuses.filter((each) => each === status).length;

/** The RateLimit header fields of a response, as numbers. */
const rateLimitFields = (headers: IncomingHttpHeaders | Record<string, unknown>) => ({
  limit: Number(headers['ratelimit-limit']),
  remaining: Number(headers['ratelimit-remaining']),
  reset: Number(headers['ratelimit-reset']),
});

describe('attempt limits count the procedure that runs, however it is reached', () => {
  const LIMIT = 3;
  let t: TestApp;
  beforeAll(async () => {
    // Behind a proxy, so each test speaks from addresses of its own (X-Forwarded-For).
    t = await startTestApp({ authRateLimit: LIMIT, tokenRateLimit: 5, trustProxy: true });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  /** A registered user with a password, registered from an address of its own; registering spends one of the email's attempts. */
  async function account() {
    const email = uniqueEmail();
    const registered = await send(t.app, 'POST', '/api/v1/auth/register', { ip: randomClientIp(), body: { name: 'Guessed', email, password: 'the-right-one' } });
    expect(registered.status).toBe(201);
    return { email, password: 'the-right-one' };
  }

  const LOGIN_VARIANTS: [string, string, (credentials: object) => unknown][] = [
    ['REST', '/api/v1/auth/login', (credentials) => credentials],
    ['REST, trailing slash', '/api/v1/auth/login/', (credentials) => credentials],
    ['REST, upper case', '/api/v1/auth/LOGIN', (credentials) => credentials],
    ['REST, dot segment', '/api/v1/auth/./login', (credentials) => credentials],
    ['tRPC', '/api/trpc/auth.login', (credentials) => credentials],
    ['tRPC, percent-encoded dot', '/api/trpc/auth%2Elogin', (credentials) => credentials],
    ['tRPC batch of one', '/api/trpc/auth.login?batch=1', (credentials) => batchOf([credentials])],
  ];

  it('each spelling of the login path logs in while the limit lasts', async () => {
    for (const [what, path, bodyOf] of LOGIN_VARIANTS) {
      const response = await send(t.app, 'POST', path, { ip: randomClientIp(), body: bodyOf(await account()) });
      expect({ what, status: response.status }).toEqual({ what, status: 200 });
    }
  });

  it('refuses every spelling of the login path, and register and password reset, once the address has spent its attempts', async () => {
    const ip = randomClientIp();
    for (let attempt = 0; attempt < LIMIT; attempt += 1) {
      expect((await send(t.app, 'POST', '/api/v1/auth/login', { ip, body: { email: uniqueEmail(), password: 'wrong-password' } })).status).toBe(401);
    }
    const user = await account();
    for (const [what, path, bodyOf] of LOGIN_VARIANTS) {
      const response = await send(t.app, 'POST', path, { ip, body: bodyOf(user) });
      expect({ what, status: response.status }).toEqual({ what, status: 429 });
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
    const others: [string, unknown][] = [
      ['/api/v1/auth/register/', { name: 'Late', email: uniqueEmail(), password: 'password-123' }],
      ['/api/v1/auth/REGISTER', { name: 'Late', email: uniqueEmail(), password: 'password-123' }],
      ['/api/v1/auth/password-reset/', { email: user.email }],
      ['/api/v1/auth/password-reset/./confirm', { token: 'x.y', password: 'password-123' }],
      ['/api/trpc/auth.register,auth.requestPasswordReset?batch=1', batchOf([{ name: 'Late', email: uniqueEmail(), password: 'password-123' }, { email: user.email }])],
    ];
    for (const [path, body] of others) {
      const response = await send(t.app, 'POST', path, { ip, body });
      expect({ path, status: response.status }).toEqual({ path, status: 429 });
    }
  });

  it('counts each call of a batch: a batch of logins gets exactly the attempts left, then none', async () => {
    const user = await account();
    const left = LIMIT - 1;
    const ip = randomClientIp();
    const batch = await send(t.app, 'POST', `/api/trpc/${Array(5).fill('auth.login').join(',')}?batch=1`, { ip, body: batchOf(Array(5).fill(user)) });
    const statuses = callStatuses(batch.body);
    expect(statuses).toHaveLength(5);
    expect({ logged: count(statuses, 200), refused: count(statuses, 429) }).toEqual({ logged: left, refused: 5 - left });
    for (const item of batch.body.filter((entry: { error?: unknown }) => entry.error)) expect(item.error.data.reason).toBe('RATE_LIMITED');
    expect((await send(t.app, 'POST', '/api/trpc/auth.login,auth.login?batch=1', { ip, body: batchOf([user, user]) })).status).toBe(429);
  });

  it('a batch of many password guesses at one account runs no more password checks than the limit allows', async () => {
    const user = await account();
    const left = LIMIT - 1;
    const verifies = async () => {
      const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
      return Number(/^tasklane_password_hashing_total\{operation="verify"\} (\d+)$/m.exec(metrics.body)?.[1]);
    };
    const before = await verifies();
    const guesses = Array.from({ length: 60 }, (_, index) => ({ email: user.email, password: `guess-${index}` }));
    const batch = await send(t.app, 'POST', `/api/trpc/${Array(60).fill('auth.login').join(',')}?batch=1`, { ip: randomClientIp(), body: batchOf(guesses) });
    const statuses = callStatuses(batch.body);
    expect({ wrong: count(statuses, 401), refused: count(statuses, 429) }).toEqual({ wrong: left, refused: 60 - left });
    // The refused calls never reached the password check: only the attempts left ran a bcrypt comparison.
    expect((await verifies()) - before).toBe(left);
    // The account's own budget is spent too: a fresh address gets nowhere with it.
    expect((await send(t.app, 'POST', '/api/v1/auth/login', { ip: randomClientIp(), body: user })).status).toBe(429);
  });

  it('announces the limit in RateLimit-Limit, -Remaining and -Reset, on every answer and on the 429', async () => {
    const ip = randomClientIp();
    const seen = [];
    for (let attempt = 0; attempt <= LIMIT; attempt += 1) {
      const response = await send(t.app, 'POST', '/api/v1/auth/login', { ip, body: { email: uniqueEmail(), password: 'wrong-password' } });
      seen.push({ status: response.status, ...rateLimitFields(response.headers) });
    }
    expect(seen.map(({ status, limit, remaining }) => ({ status, limit, remaining }))).toEqual([
      { status: 401, limit: LIMIT, remaining: 2 },
      { status: 401, limit: LIMIT, remaining: 1 },
      { status: 401, limit: LIMIT, remaining: 0 },
      { status: 429, limit: LIMIT, remaining: 0 },
    ]);
    for (const { reset } of seen) expect(reset).toBeGreaterThanOrEqual(1);
    for (const { reset } of seen) expect(reset).toBeLessThanOrEqual(60);
    // The same fields on native tRPC.
    const trpc = await send(t.app, 'POST', '/api/trpc/auth.login', { ip: randomClientIp(), body: { email: uniqueEmail(), password: 'wrong-password' } });
    expect(rateLimitFields(trpc.headers)).toMatchObject({ limit: LIMIT, remaining: LIMIT - 1 });
  });

  it('lists the RateLimit fields in the OpenAPI document on every response of a rate-limited operation, the 429 included', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const fields = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
    const limited: [string, string][] = [['/auth/login', 'post'], ['/auth/register', 'post'], ['/auth/password-reset', 'post'], ['/projects', 'get'], ['/projects/{id}/events', 'get']];
    for (const [path, method] of limited) {
      const responses: Record<string, { headers?: object }> = document.paths[path][method].responses;
      expect(Object.keys(responses)).toContain('429');
      for (const [status, response] of Object.entries(responses)) {
        expect({ path, status, headers: Object.keys(response.headers ?? {}) }).toEqual({ path, status, headers: expect.arrayContaining(fields) });
      }
    }
    // An operation that takes no token and checks no password is not limited.
    expect(Object.keys(document.paths['/auth/providers'].get.responses['200'].headers ?? {})).not.toContain('RateLimit-Limit');
  });

  it('counts one token however the header spells its scheme: Bearer, bearer, BEARER', async () => {
    const user = await registerUser(t);
    const ip = randomClientIp();
    const spellings = ['Bearer', 'bearer', 'Bearer', 'bearer', 'BEARER'];
    const remaining = [];
    for (const scheme of spellings) {
      const response = await send(t.app, 'GET', '/api/v1/projects', { ip, authorization: `${scheme} ${user.token}` });
      expect(response.status).toBe(200);
      remaining.push(rateLimitFields(response.headers).remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const refused = await send(t.app, 'GET', '/api/v1/projects', { ip, authorization: `bEaReR ${user.token}` });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'TOO_MANY_REQUESTS', reason: 'RATE_LIMITED' });
    expect(rateLimitFields(refused.headers)).toMatchObject({ limit: 5, remaining: 0 });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('counts each call of a tRPC batch against the token: a batch past what is left is refused whole', async () => {
    const user = await registerUser(t);
    const ip = randomClientIp();
    const creates = (n: number) => send(t.app, 'POST', `/api/trpc/${Array(n).fill('projects.create').join(',')}?batch=1`, { ip, token: user.token, body: batchOf(Array.from({ length: n }, (_, index) => ({ name: `Batch ${index}` }))) });
    const first = await creates(3);
    expect(callStatuses(first.body)).toEqual([200, 200, 200]);
    expect(rateLimitFields(first.headers)).toMatchObject({ limit: 5, remaining: 2 });
    const second = await creates(3);
    expect(second.status).toBe(429);
    expect(isTrpcErrorBody(second.body, 429)).toBe(true);
    expect(second.body.error.data.reason).toBe('RATE_LIMITED');
    const projects = await queryRows<{ count: number | string }>(t, `select count(*) as count from projects where owner_id = '${user.id}'`);
    expect(Number(projects[0]!.count)).toBe(3);
    expect((await send(t.app, 'GET', '/api/v1/projects', { ip, token: user.token })).status).toBe(429);
  });
});

describe('rate limits shared through Redis by two instances', () => {
  const apps: FastifyInstance[] = [];
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const opened = await openTestDatabase();
    drop = opened.drop;
    const config: Config = testConfig({ authRateLimit: 4, redisUrl: REDIS_URL });
    for (let index = 0; index < 2; index += 1) {
      const app = await buildApp(config, { database: opened.database, logger: false });
      await app.ready();
      apps.push(app);
    }
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await drop();
  });

  it('counts attempts on both instances against one limit', async () => {
    const [first, second] = apps as [FastifyInstance, FastifyInstance];
    const ip = randomClientIp();
    const statuses = [];
    for (const app of [first, second, first, second, first, second]) statuses.push((await login(app, ip, uniqueEmail())).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it('without Redis each instance counts on its own', async () => {
    const opened = await openTestDatabase();
    const config = testConfig({ authRateLimit: 2 });
    const local = [await buildApp(config, { database: opened.database, logger: false }), await buildApp(config, { database: opened.database, logger: false })];
    try {
      const ip = randomClientIp();
      const statuses = [];
      for (const app of [local[0], local[1], local[0], local[1]]) statuses.push((await login(app!, ip, uniqueEmail())).status);
      expect(statuses).toEqual([401, 401, 401, 401]);
      expect((await login(local[0]!, ip, uniqueEmail())).status).toBe(429);
    } finally {
      await Promise.all(local.map((app) => app.close()));
      await opened.drop();
    }
  });
});

describe('body, nesting and header limits; security headers; CORS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ corsOrigins: ['https://app.example.com'] });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  it('refuses a body over 1 MiB with 413 on both transports', async () => {
    const huge = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024) });
    const rest = await t.request('POST', '/api/v1/auth/login', { rawBody: huge, headers: { 'content-type': 'application/json' } });
    expectErrorBody(rest, 413);
    const trpc = await t.request('POST', '/api/trpc/auth.login', { rawBody: huge, headers: { 'content-type': 'application/json' } });
    expect(trpc.status).toBe(413);
    expect(isTrpcErrorBody(trpc.body, 413)).toBe(true);
  });

  it('refuses JSON nested deeper than the limit with 400 JSON_TOO_DEEP, and accepts ordinary nesting', async () => {
    const user = await registerUser(t);
    const deep = `{"name":${'['.repeat(40)}1${']'.repeat(40)}}`;
    const rest = await t.request('POST', '/api/v1/projects', { token: user.token, rawBody: deep, headers: { 'content-type': 'application/json' } });
    expectErrorBody(rest, 400, { reason: 'JSON_TOO_DEEP' });
    const trpc = await t.request('POST', '/api/trpc/projects.create', { token: user.token, rawBody: deep, headers: { 'content-type': 'application/json' } });
    expect(trpc.status).toBe(400);
    expect(isTrpcErrorBody(trpc.body, 400)).toBe(true);
    expect(trpc.body.error.data.reason).toBe('JSON_TOO_DEEP');
    // brackets inside strings do not count as nesting
    const bracketsInText = await t.request('POST', '/api/v1/projects', { token: user.token, body: { name: '['.repeat(100) } });
    expect(bracketsInText.status).toBe(201);
  });

  it('answers headers over the size limit with 431 and our error body', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect((t.app.server.address() as AddressInfo).port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
      socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(32 * 1024)}\r\n\r\n`);
    });
    const status = Number(/^HTTP\/1\.1 (\d+) /.exec(raw)?.[1]);
    expectErrorBody({ status, body: JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)), headers: {} }, 431);
  });

  it('sends security headers, with a CSP that Swagger UI fits (no inline scripts)', async () => {
    const api = await t.request('GET', '/healthz');
    expect(api.headers['x-content-type-options']).toBe('nosniff');
    expect(api.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(String(api.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(String(api.headers['content-security-policy'])).not.toContain('upgrade-insecure-requests');
    const docs = await t.request('GET', '/docs/');
    expect(docs.status).toBe(200);
    expect(String(docs.headers['content-security-policy'])).toContain("default-src 'self'");
    const scripts = [...String(docs.body).matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, content] of scripts) {
      expect(content!.trim()).toBe('');
      const source = /src="([^"]+)"/.exec(attributes!)?.[1];
      expect(source).toBeDefined();
      // every script is served from our own origin, which `script-src 'self'` allows
      expect((await t.request('GET', new URL(source!, 'http://x/docs/').pathname)).status).toBe(200);
    }
  });

  it('allows CORS only for configured origins', async () => {
    const preflight = (origin: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url: '/api/v1/projects',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
    const allowed = await preflight('https://app.example.com');
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(String(allowed.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    // The SDK's event reader (fetch, not EventSource) resumes a stream from another origin with Last-Event-ID.
    const stream = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/projects/x/events',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,last-event-id' },
    });
    expect(String(stream.headers['access-control-allow-headers']).toLowerCase().split(',').map((name) => name.trim())).toContain('last-event-id');
    const foreign = await preflight('https://evil.example.net');
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const simple = await t.request('GET', '/healthz', { headers: { origin: 'https://evil.example.net' } });
    expect(simple.headers['access-control-allow-origin']).toBeUndefined();
  });
});
