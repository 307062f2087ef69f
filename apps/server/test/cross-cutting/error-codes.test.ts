import { readFileSync, readdirSync } from 'node:fs';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_APP_ROOT } from '../../src/transport/rest/web-app';
import { CODE_BY_STATUS } from '../support/checks';
import { createProject, invite, registerUser, startTestApp, type TestApp, type TestResponse, type TestUser } from '../support/harness';

/** docs/api.md's error table: status → its one `code` and the documented `reason`s. */
function documentedErrors(): Map<number, { code: string; reasons: string[] }> {
  const text = readFileSync(new URL('../../../../docs/api.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('## Errors'));
  const table = new Map<number, { code: string; reasons: string[] }>();
  for (const match of section.matchAll(/^\| (\d{3}) \| `([A-Z_]+)` \|[^\n]*\| *([^|\n]*)\|$/gm)) {
    table.set(Number(match[1]), { code: match[2]!, reasons: [...match[3]!.matchAll(/`([A-Z_]+)`/g)].map((reason) => reason[1]!) });
  }
  return table;
}

/** A raw request on a socket, for what Node's HTTP parser refuses before Fastify (headers too large). */
function rawRequest(port: number, request: string): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d+) /.exec(received)?.[1]);
      resolve({ status, body: JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)), headers: {} });
    });
    socket.on('error', reject);
    socket.write(request);
  });
}

/**
 * Every status the server can answer with an error, each triggered through HTTP, answers the one
 * `code` docs/api.md's table gives it, in the documented body; and the table has no status the
 * server cannot be made to give here.
 */
describe('one error code per status, as docs/api.md documents', () => {
  const documented = documentedErrors();
  let t: TestApp;
  /** A server whose limits and identity provider make 429 and 503 reachable. */
  let strict: TestApp;
  let owner: TestUser;
  let viewer: TestUser;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp();
    strict = await startTestApp({
      authRateLimit: 1,
      oidc: { issuer: 'http://127.0.0.1:1', clientId: 'client', clientSecret: 'secret', name: 'Nowhere', autoCreate: false },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    [owner, viewer] = await Promise.all([registerUser(t, 'Owner'), registerUser(t, 'Viewer')]);
    projectId = (await createProject(t, owner)).id;
    await invite(t, owner, projectId, viewer, 'VIEWER');
  });
  afterAll(async () => {
    await t.close();
    await strict.close();
  });

  const json = { 'content-type': 'application/json' };
  const triggers: Record<number, () => Promise<TestResponse>> = {
    400: () => t.request('POST', '/api/v1/projects', { token: owner.token, rawBody: '{"name":', headers: json }),
    401: () => t.request('GET', '/api/v1/auth/me'),
    403: () => t.request('PATCH', `/api/v1/projects/${projectId}`, { token: viewer.token, body: { name: 'Mine now' } }),
    404: () => t.request('GET', '/api/v1/no-such-route'),
    405: () => t.request('GET', '/api/trpc/projects.create', { token: owner.token }),
    409: () => t.request('POST', '/api/v1/auth/register', { body: { name: 'Again', email: owner.email, password: 'password-123' } }),
    412: () => t.request('PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { name: 'P' }, headers: { 'if-match': '"0"' } }),
    413: () => t.request('POST', '/api/v1/projects', { token: owner.token, rawBody: JSON.stringify({ name: 'x'.repeat(1_100_000) }), headers: json }),
    415: () => t.request('POST', '/api/v1/projects', { token: owner.token, rawBody: '{"name":"P"}', headers: { 'content-type': 'text/plain' } }),
    416: () => {
      const asset = readdirSync(`${WEB_APP_ROOT}assets`)[0]!;
      return t.request('GET', `/assets/${asset}`, { headers: { range: 'bytes=999999999-' } });
    },
    429: async () => {
      const login = () => strict.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'password-123' } });
      let response = await login();
      for (let attempt = 0; attempt < 5 && response.status !== 429; attempt += 1) response = await login();
      return response;
    },
    431: () =>
      rawRequest((t.app.server.address() as AddressInfo).port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(32 * 1024)}\r\n\r\n`),
    503: () => strict.request('GET', '/api/v1/auth/oidc/login'),
  };

  it('the table lists the statuses this test can trigger, and no other', () => {
    expect([...documented.keys()].sort()).toEqual(Object.keys(triggers).map(Number).sort());
  });

  it("the tests' own status → code table agrees with the documented one", () => {
    for (const [status, { code }] of documented) expect({ status, code: CODE_BY_STATUS[status] }).toEqual({ status, code });
  });

  for (const [status, trigger] of Object.entries(triggers)) {
    it(`${status} answers the documented code in the documented body`, async () => {
      const expected = documented.get(Number(status));
      expect(expected, `status ${status} is missing from docs/api.md`).toBeDefined();
      const response = await trigger();
      expect(response.status).toBe(Number(status));
      // Native tRPC answers in its envelope, with the same code in `data.code`.
      const body = response.body?.error?.data
        ? { message: response.body.error.message, code: response.body.error.data.code, ...(response.body.error.data.reason ? { reason: response.body.error.data.reason } : {}) }
        : response.body;
      expect(Object.keys(body).every((key) => ['message', 'code', 'reason', 'issues'].includes(key)), JSON.stringify(body)).toBe(true);
      expect(body.message).toMatch(/\S/);
      expect(body.code).toBe(expected!.code);
      if (body.reason !== undefined) expect(expected!.reasons).toContain(body.reason);
    });
  }
});
