import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTasklaneClient, TasklaneError } from '../../../packages/sdk/src';
import { expectErrorBody, issueAt, queryRows } from './support/checks';
import { capturedLog, createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { meStatus, startSecondInstance } from './support/second-instance';
import { openStream } from './support/sse-client';
import { injectFetch } from './support/transport';

type Scope = 'read' | 'write' | 'admin';

async function createToken(t: TestApp, owner: TestUser, body: { name?: string; scopes: Scope[]; projectIds?: string[]; expiresAt?: string }) {
  const response = await t.request('POST', '/api/v1/auth/tokens', { token: owner.token, body: { name: 'Script', ...body } });
  if (response.status !== 201) throw new Error(`create token failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; token: string; name: string; scopes: Scope[]; projectIds: string[] | null };
}

describe('personal access tokens', () => {
  let t: TestApp;
  const log = capturedLog();

  beforeAll(async () => {
    t = await startTestApp({ logLevel: 'trace' }, { logStream: log.stream });
  });
  afterAll(() => t.close());

  it('is shown once on creation, tl_pat_-prefixed; the list never shows it', async () => {
    const owner = await registerUser(t);
    const created = await t.request('POST', '/api/v1/auth/tokens', {
      token: owner.token,
      body: { name: ' CI deploy ', scopes: ['write'], expiresAt: '2099-01-01T00:00:00+02:00' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'CI deploy',
      scopes: ['write'],
      projectIds: null,
      createdAt: expect.stringMatching(/Z$/),
      lastUsedAt: null,
      expiresAt: '2098-12-31T22:00:00.000Z',
      token: expect.stringMatching(/^tl_pat_[A-Za-z0-9_-]{43}$/),
    });
    const listed = await t.request('GET', '/api/v1/auth/tokens', { token: owner.token });
    expect(listed.status).toBe(200);
    const { token: _secret, ...shown } = created.body;
    expect(listed.body).toEqual([shown]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);
  });

  it('works as Authorization: Bearer on REST and native tRPC, and its last use is recorded', async () => {
    const owner = await registerUser(t, 'Scripted');
    const { id, token } = await createToken(t, owner, { scopes: ['read'] });
    const me = await t.request('GET', '/api/v1/auth/me', { token });
    expect(me.status).toBe(200);
    expect(me.body.name).toBe('Scripted');
    const trpc = await t.request('GET', '/api/trpc/auth.me', { token });
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.id).toBe(owner.id);
    await expect
      .poll(async () => (await t.request('GET', '/api/v1/auth/tokens', { token: owner.token })).body.find((row: { id: string }) => row.id === id).lastUsedAt, { timeout: 10_000 })
      .toEqual(expect.stringMatching(/Z$/));
  });

  it('works with the SDK', async () => {
    const owner = await registerUser(t);
    const project = await createProject(t, owner, 'Through the SDK');
    const { token } = await createToken(t, owner, { scopes: ['write'] });
    const sdk = createTasklaneClient({ baseUrl: 'http://tasklane.test', token, fetch: injectFetch(t.app) });
    const task = await sdk.tasks.create({ projectId: project.id, title: 'Made by a script' });
    expect(task.title).toBe('Made by a script');
    const error = await sdk.projects.update({ id: project.id, name: 'Renamed' }).catch((caught: unknown) => TasklaneError.from(caught));
    expect(error).toMatchObject({ code: 'FORBIDDEN', reason: 'INSUFFICIENT_SCOPE' });
  });

  it('is stored only as a digest: the token appears nowhere in the database or the logs', async () => {
    const owner = await registerUser(t);
    const { token } = await createToken(t, owner, { scopes: ['admin'] });
    expect((await t.request('GET', '/api/v1/projects', { token })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/projects?access_token=${token}`)).status).toBe(401);
    const tables = await queryRows<{ name: string }>(t, "select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'");
    for (const { name } of tables) {
      const [row] = await queryRows<{ dump: string | null }>(t, `select string_agg(to_jsonb(x)::text, ' ') as dump from "${name}" x`);
      expect(row!.dump ?? '', `table ${name}`).not.toContain(token);
      expect(row!.dump ?? '', `table ${name}`).not.toContain(token.slice('tl_pat_'.length));
    }
    const logged = log.text();
    expect(logged).toContain('"reqId"');
    expect(logged).not.toContain(token.slice('tl_pat_'.length));
  });

  it('is refused (401) once revoked, and a revoked id is then a 404', async () => {
    const owner = await registerUser(t);
    const { id, token } = await createToken(t, owner, { scopes: ['read'] });
    expect(await meStatus(t.app, token)).toBe(200);
    const revoked = await t.request('DELETE', `/api/v1/auth/tokens/${id}`, { token: owner.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ message: 'Token revoked' });
    expectErrorBody(await t.request('GET', '/api/v1/auth/me', { token }), 401, { message: 'Missing, invalid or expired token' });
    expectErrorBody(await t.request('DELETE', `/api/v1/auth/tokens/${id}`, { token: owner.token }), 404, { message: 'Token not found' });
    expect((await t.request('GET', '/api/v1/auth/tokens', { token: owner.token })).body).toEqual([]);
  });

  it("cannot be revoked, nor seen, by another user", async () => {
    const owner = await registerUser(t);
    const stranger = await registerUser(t);
    const { id, token } = await createToken(t, owner, { scopes: ['read'] });
    expectErrorBody(await t.request('DELETE', `/api/v1/auth/tokens/${id}`, { token: stranger.token }), 404, { message: 'Token not found' });
    expect((await t.request('GET', '/api/v1/auth/tokens', { token: stranger.token })).body).toEqual([]);
    expect(await meStatus(t.app, token)).toBe(200);
  });

  it('expires at expiresAt', async () => {
    const owner = await registerUser(t);
    const { token } = await createToken(t, owner, { scopes: ['read'], expiresAt: new Date(Date.now() + 1500).toISOString() });
    expect(await meStatus(t.app, token)).toBe(200);
    await expect.poll(() => meStatus(t.app, token), { timeout: 15_000, interval: 250 }).toBe(401);
  });

  it('refuses bad input: no scopes, an unknown scope, a past expiry, an unknown field', async () => {
    const owner = await registerUser(t);
    const create = (body: unknown) => t.request('POST', '/api/v1/auth/tokens', { token: owner.token, body });
    expectErrorBody(await create({ name: 'x', scopes: [] }), 400, { issues: [issueAt(['scopes'])] });
    expectErrorBody(await create({ name: 'x', scopes: ['root'] }), 400, { issues: [issueAt(['scopes', 0])] });
    expectErrorBody(await create({ name: 'x', scopes: ['read'], expiresAt: '2001-01-01T00:00:00Z' }), 400, { issues: [issueAt(['expiresAt'])] });
    expectErrorBody(await create({ name: '', scopes: ['read'] }), 400, { issues: [issueAt(['name'])] });
    expectErrorBody(await create({ name: 'x', scopes: ['read'], secret: 'mine' }), 400, { issues: [issueAt(['secret'], 'unrecognized_keys')] });
    expect((await t.request('GET', '/api/v1/auth/tokens', { token: owner.token })).body).toEqual([]);
  });

  it('refuses an expiry whose UTC year is past 9999 with a 400 naming expiresAt, on REST and tRPC', async () => {
    const owner = await registerUser(t);
    for (const expiresAt of ['9999-12-31T23:59:59-01:00', '9999-12-31T23:00:00-23:59']) {
      const body = { name: 'far', scopes: ['read'], expiresAt };
      expectErrorBody(await t.request('POST', '/api/v1/auth/tokens', { token: owner.token, body }), 400, { issues: [issueAt(['expiresAt'])] });
      const trpc = await t.request('POST', '/api/trpc/auth.tokens.create', { token: owner.token, body });
      expect(trpc.status).toBe(400);
      expect(trpc.body.error.data.issues).toEqual([expect.objectContaining({ path: ['expiresAt'] })]);
    }
    // The last instant PostgreSQL stores, written with an offset, is still a valid expiry.
    expect((await t.request('POST', '/api/v1/auth/tokens', { token: owner.token, body: { name: 'late', scopes: ['read'], expiresAt: '9999-12-31T22:59:59-01:00' } })).status).toBe(201);
    expect((await t.request('GET', '/api/v1/auth/tokens', { token: owner.token })).body.map((token: { name: string }) => token.name)).toEqual(['late']);
  });

  it('cannot manage the account: tokens, sessions, password, logout need a login token', async () => {
    const owner = await registerUser(t);
    const { id, token } = await createToken(t, owner, { scopes: ['admin'] });
    const calls: [string, string, unknown?][] = [
      ['POST', '/api/v1/auth/tokens', { name: 'Another', scopes: ['admin'] }],
      ['GET', '/api/v1/auth/tokens'],
      ['DELETE', `/api/v1/auth/tokens/${id}`],
      ['GET', '/api/v1/auth/sessions'],
      ['POST', '/api/v1/auth/sessions/sign-out-others', {}],
      ['PATCH', '/api/v1/auth/me', { name: 'Hijacked' }],
      ['POST', '/api/v1/auth/logout', {}],
    ];
    for (const [method, url, body] of calls) {
      expectErrorBody(await t.request(method, url, { token, ...(body ? { body } : {}) }), 403, { reason: 'SESSION_REQUIRED' });
    }
    expect((await t.request('GET', '/api/v1/auth/tokens', { token: owner.token })).body).toHaveLength(1);
    expect(await meStatus(t.app, owner.token)).toBe(200);
  });

  it('never does more than its owner may right now: a demoted owner’s admin token loses the rights too', async () => {
    const admin = await registerUser(t, 'Admin');
    const member = await registerUser(t, 'Member');
    const project = await createProject(t, admin);
    const membership = await invite(t, admin, project.id, member, 'EDITOR');
    const { token } = await createToken(t, member, { scopes: ['admin'] });
    expect((await t.request('POST', '/api/v1/tasks', { token, body: { projectId: project.id, title: 'While an editor' } })).status).toBe(201);
    expectErrorBody(await t.request('PATCH', `/api/v1/projects/${project.id}`, { token, body: { name: 'Beyond an editor' } }), 403, {
      message: 'Your role (EDITOR) may not change the project',
    });
    await t.request('PATCH', `/api/v1/projects/${project.id}/members/${membership.id}/role`, { token: admin.token, body: { role: 'VIEWER' } });
    expectErrorBody(await t.request('POST', '/api/v1/tasks', { token, body: { projectId: project.id, title: 'As a viewer' } }), 403);
    await t.request('DELETE', `/api/v1/projects/${project.id}/members/${membership.id}`, { token: admin.token });
    expectErrorBody(await t.request('GET', `/api/v1/projects/${project.id}`, { token }), 404);
  });
});

describe('a personal access token limited to some projects', () => {
  let t: TestApp;
  let baseUrl: string;
  let owner: TestUser;
  let inside: string;
  let outside: string;
  let insideTask: string;
  let outsideTask: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    owner = await registerUser(t);
    inside = (await createProject(t, owner, 'Inside')).id;
    outside = (await createProject(t, owner, 'Outside')).id;
    insideTask = (await createTask(t, owner, inside, { title: 'Inside task' })).id;
    outsideTask = (await createTask(t, owner, outside, { title: 'Outside task' })).id;
    token = (await createToken(t, owner, { scopes: ['admin'], projectIds: [inside.toUpperCase()] })).token;
  });
  afterAll(() => t.close());

  it('lists only its projects and their tasks', async () => {
    const projects = await t.request('GET', '/api/v1/projects', { token });
    expect(projects.body.map((project: { id: string }) => project.id)).toEqual([inside]);
    const mine = await t.request('GET', '/api/v1/tasks', { token });
    expect(mine.body.map((task: { id: string }) => task.id)).toEqual([insideTask]);
    const all = await t.request('GET', '/api/v1/tasks', { token: owner.token });
    expect(all.body).toHaveLength(2);
  });

  it('answers 404 for everything of another project, as for a non-member, and writes nothing there', async () => {
    const refused: [string, string, unknown?][] = [
      ['GET', `/api/v1/projects/${outside}`],
      ['PATCH', `/api/v1/projects/${outside}`, { name: 'Reached' }],
      ['GET', `/api/v1/tasks/project/${outside}`],
      ['POST', '/api/v1/tasks', { projectId: outside, title: 'Reached' }],
      ['GET', `/api/v1/tasks/${outsideTask}`],
      ['PATCH', `/api/v1/tasks/${outsideTask}`, { title: 'Reached' }],
      ['POST', `/api/v1/tasks/${outsideTask}/comments`, { text: 'Reached' }],
      ['GET', `/api/v1/projects/${outside}/members`],
      ['GET', `/api/v1/projects/${outside}/activity`],
      ['GET', `/api/v1/projects/${outside}/webhooks`],
    ];
    for (const [method, url, body] of refused) {
      const response = await t.request(method, url, { token, ...(body ? { body } : {}) });
      expect(response.status, `${method} ${url}`).toBe(404);
    }
    expect((await t.request('GET', `/api/v1/tasks/${outsideTask}`, { token: owner.token })).body.title).toBe('Outside task');
    expect((await t.request('GET', `/api/v1/projects/${inside}`, { token })).status).toBe(200);
    expect((await t.request('PATCH', `/api/v1/tasks/${insideTask}`, { token, body: { status: 'DONE' } })).status).toBe(200);
  });

  it('may not create projects (they would lie outside its limit)', async () => {
    expectErrorBody(await t.request('POST', '/api/v1/projects', { token, body: { name: 'New' } }), 403, { reason: 'TOKEN_LIMITED_TO_PROJECTS' });
  });

  it('streams the events of its projects only', async () => {
    const streamed = await openStream(`${baseUrl}/api/v1/projects/${inside}/events`, { authorization: `Bearer ${token}` });
    expect(streamed.status).toBe(200);
    await createTask(t, owner, inside, { title: 'Live' });
    const [event] = await streamed.waitForEvents(1);
    expect(event!.event).toBe('task.created');
    streamed.close();
    const refused = await openStream(`${baseUrl}/api/v1/projects/${outside}/events?access_token=${token}`);
    expect(refused.status).toBe(404);
  });

  it('can only be created for projects its owner can see', async () => {
    const stranger = await registerUser(t);
    const response = await t.request('POST', '/api/v1/auth/tokens', { token: stranger.token, body: { name: 'x', scopes: ['read'], projectIds: [inside] } });
    expectErrorBody(response, 404, { message: 'Project not found' });
  });
});

describe('personal access tokens across instances and rate limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ tokenRateLimit: 5 });
  });
  afterAll(() => t.close());

  it('a revocation reaches another instance that had proven (and cached) the token', async () => {
    const second = await startSecondInstance(t);
    try {
      const owner = await registerUser(t);
      const { id, token } = await createToken(t, owner, { scopes: ['read'] });
      expect(await meStatus(second.app, token)).toBe(200);
      expect(await meStatus(second.app, token)).toBe(200);
      expect((await t.request('DELETE', `/api/v1/auth/tokens/${id}`, { token: owner.token })).status).toBe(200);
      await expect.poll(() => meStatus(second.app, token), { timeout: 10_000 }).toBe(401);
    } finally {
      await second.close();
    }
  });

  it('counts each token against its own per-token limit', async () => {
    const owner = await registerUser(t);
    const { token } = await createToken(t, owner, { scopes: ['read'] });
    const statuses: number[] = [];
    for (let request = 0; request < 6; request += 1) statuses.push((await t.request('GET', '/api/v1/auth/me', { token })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const other = await createToken(t, owner, { scopes: ['read'] });
    expect((await t.request('GET', '/api/v1/auth/me', { token: other.token })).status).toBe(200);
  });
});
