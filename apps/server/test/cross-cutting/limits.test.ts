import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTasklaneClient, TasklaneError } from '../../../../packages/sdk/src/index';
import { buildApp } from '../../src/app';
import type { Config } from '../../src/config';
import { openTestDatabase, registerUser, startTestApp, testConfig, type TestApp } from '../support/harness';
import { expectErrorBody } from '../support/checks';
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
