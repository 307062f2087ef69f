import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/platform/config';
import { queryRows } from '../support/checks';
import { registerUser, startTestApp, testConfig, type TestApp } from '../support/harness';
import { freePort } from '../support/ports';
import { call, startServerProcess } from '../support/server-process';

/**
 * The whole flow with the server's own logger at its most talkative level, errors included:
 * no password, token, password hash or JWT secret may appear anywhere in the log output.
 */
describe('secrets never reach the logs', () => {
  let t: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    t = await startTestApp({ logLevel: 'trace' }, { logStream });
  });
  afterAll(() => t.close());

  it('logs requests but none of the secrets they carried', async () => {
    const password = 'correct-horse-battery-9b7e';
    const newPassword = 'new-staple-password-3c1d';
    const email = `logs-${Date.now()}@example.com`;
    const registered = await t.request('POST', '/api/v1/auth/register', { body: { name: 'Logged', email, password } });
    expect(registered.status).toBe(201);
    const token: string = registered.body.access_token;
    const login = await t.request('POST', '/api/v1/auth/login', { body: { email, password } });
    expect(login.status).toBe(200);
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email, password: newPassword } })).status).toBe(401);
    expect((await t.request('POST', '/api/trpc/auth.login', { body: { email, password } })).status).toBe(200);
    const project = await t.request('POST', '/api/v1/projects', { token, body: { name: 'Logged project' } });
    expect(project.status).toBe(201);
    await t.request('GET', `/api/v1/projects/${project.body.id}`, { token });
    await t.request('GET', '/api/trpc/auth.me', { token });
    await t.request('GET', '/api/v1/auth/me', { token: `${token}x` });
    await t.request('POST', '/api/v1/auth/register', { rawBody: `{"password":"${password}",`, headers: { 'content-type': 'application/json' } });
    await t.request('POST', '/api/v1/auth/register', { body: { name: 'x', email, password: newPassword, extra: password } });

    const [row] = await queryRows<{ password_hash: string }>(t, `select password_hash from users where email = '${email}'`);
    const output = lines.join('');
    expect(output.length).toBeGreaterThan(1000);
    expect(output).toContain('"reqId"');
    const secrets = {
      password,
      newPassword,
      token,
      'token signature': token.split('.')[2]!,
      'login token': login.body.access_token as string,
      'password hash': row!.password_hash,
      'hash salt': row!.password_hash.slice(7, 29),
      'JWT secret': testConfig().jwtSecret,
    };
    for (const [what, secret] of Object.entries(secrets)) expect(output.includes(secret), `${what} found in the log`).toBe(false);
  });

  it('answers an expiry PostgreSQL cannot store with a 400, and logs a failed statement without its parameters', async () => {
    const user = await registerUser(t);
    const farFuture = { name: 'far', scopes: ['read'], expiresAt: '9999-12-31T23:59:59-01:00' };
    expect((await t.request('POST', '/api/v1/auth/tokens', { token: user.token, body: farFuture })).status).toBe(400);
    expect((await t.request('POST', '/api/trpc/auth.tokens.create', { token: user.token, body: farFuture })).status).toBe(400);

    // A statement the database refuses (a constraint added for this test): a 500, logged.
    const name = `refused-${randomBytes(6).toString('hex')}`;
    await queryRows(t, `alter table personal_access_tokens add constraint logs_test_refusal check (name <> '${name}')`);
    try {
      expect((await t.request('POST', '/api/v1/auth/tokens', { token: user.token, body: { name, scopes: ['read'] } })).status).toBe(500);
    } finally {
      await queryRows(t, 'alter table personal_access_tokens drop constraint logs_test_refusal');
    }
    const output = lines.join('');
    expect(output).toContain('Failed query: insert into \\"personal_access_tokens\\"');
    expect(output).not.toContain('params');
    // The name is one of the statement's parameters, beside the new token's digest.
    expect(output, 'a parameter of the statement is in the log').not.toContain(name);
  });

  it('redacts the token of unsubscribe links in the request log', async () => {
    const token = `eyJunsubscribe${randomBytes(8).toString('hex')}`;
    await t.request('GET', `/api/v1/notification-settings/unsubscribe?token=${token}`);
    await t.request('POST', `/api/v1/notification-settings/unsubscribe?token=${token}`, {
      rawBody: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const output = lines.join('');
    expect(output).toContain('"url":"/api/v1/notification-settings/unsubscribe?token=%5Bredacted%5D"');
    expect(output).not.toContain(token);
  });
});

/** The lines the server logs while `run` makes its requests, in the given format. */
async function linesLogged(logFormat: Config['logFormat'], run: (t: TestApp) => Promise<unknown>): Promise<string[]> {
  const logStream = new PassThrough();
  let output = '';
  logStream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const t = await startTestApp({ logLevel: 'info', logFormat }, { logStream });
  try {
    await run(t);
  } finally {
    await t.close();
  }
  return output.split('\n').filter(Boolean);
}

describe('the log format', () => {
  const requests = (t: TestApp) => Promise.all([t.request('GET', '/healthz'), t.request('GET', '/api/v1/no-such-route?access_token=secret-in-the-url')]);

  it('LOG_FORMAT=pretty: one readable line per request, with its method, path, status and time', async () => {
    const lines = await linesLogged('pretty', requests);
    expect(lines.filter((line) => line.includes('/healthz'))).toEqual([expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: GET \/healthz 200 \d+ ms$/)]);
    expect(lines.filter((line) => line.includes('/no-such-route'))).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: GET \/api\/v1\/no-such-route\?access_token=%5Bredacted%5D 404 \d+ ms$/),
    ]);
    expect(lines.join('\n')).not.toContain('secret-in-the-url');
    expect(lines.some((line) => line.startsWith('{'))).toBe(false);
  });

  it('LOG_FORMAT=json: one JSON line per request, holding the request, the response and the time', async () => {
    const lines = (await linesLogged('json', requests)).map((line) => JSON.parse(line) as { req?: { url: string }; res?: { statusCode: number }; responseTime?: number; reqId?: string });
    const health = lines.filter((line) => line.req?.url === '/healthz');
    expect(health).toEqual([expect.objectContaining({ res: { statusCode: 200 }, responseTime: expect.any(Number), reqId: expect.any(String) })]);
    expect(lines.filter((line) => line.req?.url.startsWith('/api/v1/no-such-route'))).toHaveLength(1);
  });

  describe('the built server', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tasklane-log-format-'));
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    it('logs JSON when its output is not a terminal, and its start ends with the line saying where to open the app', async () => {
      const port = await freePort();
      const server = await startServerProcess({ DATA_DIR: join(dataDir, 'data'), LOG_LEVEL: 'info' }, port);
      try {
        await call(server.baseUrl, 'GET', '/healthz');
        const lines = server.output().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { msg: string; req?: unknown });
        const ready = lines.findIndex((line) => line.msg === `Tasklane 0.1.0 is ready: open http://127.0.0.1:${port}/ in a browser`);
        expect(ready).toBeGreaterThanOrEqual(0);
        expect(lines.slice(0, ready).filter((line) => line.req)).toEqual([]);
        expect(lines.slice(ready + 1).every((line) => line.req)).toBe(true);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    }, 120_000);
  });
});
