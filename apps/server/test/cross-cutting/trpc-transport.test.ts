import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  databaseSnapshot,
  expectErrorBody,
  expectNoStack,
  expectTrpcError,
  issueAt,
  queryRows,
  UNACCEPTABLE_TOKENS,
  unacceptableAuthorizations,
} from '../support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from '../support/harness';

/**
 * The native endpoint (/api/trpc, what the SDK speaks) serves the same procedures under the same
 * rules as REST: validation 400 with the issues in `error.data`, 401, 403, 404 for non-members,
 * 409 with the same reasons, never a stack. Requests use tRPC's HTTP format: a query is
 * `GET /api/trpc/<path>?input=<JSON>`, a mutation `POST /api/trpc/<path>` with the input as body.
 */

const UNKNOWN_ID = '01935d2c-0000-7000-8000-000000000000';

let t: TestApp;

const queryUrl = (path: string, input?: unknown) =>
  `/api/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`;
const query = (path: string, input?: unknown, token?: string) => t.request('GET', queryUrl(path, input), { token });
const mutate = (path: string, input: unknown, token?: string) => t.request('POST', `/api/trpc/${path}`, { token, body: input });

/** A successful call's `result.data`, after checking the envelope. */
function dataOf(response: { status: number; body: any }): any {
  expect({ status: response.status, keys: Object.keys(response.body ?? {}) }).toEqual({ status: 200, keys: ['result'] });
  return response.body.result.data;
}

describe('the native tRPC endpoint', () => {
  let owner: TestUser;
  let viewer: TestUser;
  let editor: TestUser;
  let admin: TestUser;
  let outsider: TestUser;
  let projectId: string;
  let taskId: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    viewer = await registerUser(t, 'Viewer');
    editor = await registerUser(t, 'Editor');
    admin = await registerUser(t, 'Admin');
    outsider = await registerUser(t, 'Outsider');
    projectId = (await createProject(t, owner, 'Native')).id;
    await invite(t, owner, projectId, viewer, 'VIEWER');
    await invite(t, owner, projectId, editor, 'EDITOR');
    await invite(t, owner, projectId, admin, 'ADMIN');
    taskId = (await createTask(t, owner, projectId, { title: 'Shared' })).id;
  });
  afterAll(() => t.close());

  it('walks the whole flow', async () => {
    const registered = dataOf(await mutate('auth.register', { name: 'Ada', email: 'ada@example.com', password: 'analytical' }));
    expect(registered).toMatchObject({ token_type: 'Bearer', user: { name: 'Ada', email: 'ada@example.com' } });
    const login = dataOf(await mutate('auth.login', { email: 'ADA@example.com', password: 'analytical' }));
    const token: string = login.access_token;
    expect(dataOf(await query('auth.me', undefined, token))).toEqual({ ...registered.user, locale: null });

    const project = dataOf(await mutate('projects.create', { name: 'Engine' }, token));
    expect(project).toMatchObject({ name: 'Engine', description: '', ownerId: registered.user.id });
    expect(dataOf(await query('projects.get', { id: project.id }, token)).id).toBe(project.id);
    expect(dataOf(await mutate('projects.update', { id: project.id, description: 'Difference' }, token)).description).toBe('Difference');
    const listed = dataOf(await query('projects.list', undefined, token));
    expect(listed).toEqual({ items: [expect.objectContaining({ id: project.id })], nextCursor: null });

    const member = dataOf(await mutate('members.invite', { id: project.id, email: editor.email }, token));
    expect(member).toMatchObject({ userId: editor.id, projectId: project.id, role: 'VIEWER' });
    expect(dataOf(await mutate('members.changeRole', { id: project.id, memberId: member.id, role: 'EDITOR' }, token)).role).toBe('EDITOR');

    const task = dataOf(await mutate('tasks.create', { title: 'Punch cards', projectId: project.id, assigneeId: editor.id }, editor.token));
    expect(task).toMatchObject({ title: 'Punch cards', status: 'TODO', priority: 'MEDIUM', assigneeId: editor.id, createdById: editor.id });
    await mutate('tasks.create', { title: 'Second', projectId: project.id }, token);
    const firstPage = dataOf(await query('tasks.listForProject', { projectId: project.id, limit: 1 }, token));
    expect(firstPage.items.map((item: { title: string }) => item.title)).toEqual(['Punch cards']);
    const secondPage = dataOf(await query('tasks.listForProject', { projectId: project.id, limit: 1, cursor: firstPage.nextCursor }, token));
    expect(secondPage).toEqual({ items: [expect.objectContaining({ title: 'Second' })], nextCursor: null });
    expect(dataOf(await query('tasks.listMine', { assigneeId: 'me' }, editor.token)).items.map((item: { id: string }) => item.id)).toContain(task.id);
    expect(dataOf(await query('tasks.get', { id: task.id }, token)).id).toBe(task.id);
    expect(dataOf(await mutate('tasks.update', { id: task.id, status: 'DONE' }, token))).toMatchObject({ status: 'DONE', completedAt: expect.any(String) });

    const comment = dataOf(await mutate('comments.create', { id: task.id, text: 'Loops!' }, editor.token));
    expect(comment).toMatchObject({ text: 'Loops!', authorId: editor.id, taskId: task.id });

    expect(dataOf(await mutate('tasks.delete', { id: task.id }, token))).toEqual({ message: 'Task deleted' });
    expect(dataOf(await mutate('projects.delete', { id: project.id }, token))).toEqual({ message: 'Project deleted' });
    expectTrpcError(await query('projects.get', { id: project.id }, token), 404, { message: 'Project not found' });
  });

  /** [procedure, kind, input] → expected status per caller, as in DESIGN.md's permission table. */
  const CALLERS = ['outsider', 'viewer', 'editor', 'admin'] as const;
  const PERMISSIONS: [string, 'query' | 'mutation', () => unknown, [number, number, number, number]][] = [
    //                                                                                         outsider viewer editor admin
    ['projects.get', 'query', () => ({ id: projectId }),                                       [404, 200, 200, 200]],
    ['projects.update', 'mutation', () => ({ id: projectId, description: 'x' }),               [404, 403, 403, 200]],
    ['projects.delete', 'mutation', () => ({ id: projectId }),                                 [404, 403, 403, 403]],
    ['members.invite', 'mutation', async () => ({ id: projectId, email: (await registerUser(t)).email }), [404, 403, 403, 200]],
    ['tasks.listForProject', 'query', () => ({ projectId }),                               [404, 200, 200, 200]],
    ['tasks.create', 'mutation', () => ({ title: 'T', projectId }),                            [404, 403, 200, 200]],
    ['tasks.get', 'query', () => ({ id: taskId }),                                             [404, 200, 200, 200]],
    ['tasks.update', 'mutation', () => ({ id: taskId, priority: 'HIGH' }),                     [404, 403, 200, 200]],
    ['comments.create', 'mutation', () => ({ id: taskId, text: 'Hi' }),                        [404, 403, 200, 200]],
  ];

  for (const [path, kind, input, expected] of PERMISSIONS) {
    CALLERS.forEach((caller, index) => {
      const status = expected[index]!;
      it(`${path} as ${caller} → ${status}`, async () => {
        const token = { outsider, viewer, editor, admin }[caller].token;
        const payload = await input();
        const before = await databaseSnapshot(t);
        const response = kind === 'query' ? await query(path, payload, token) : await mutate(path, payload, token);
        if (status === 200) {
          dataOf(response);
          return;
        }
        if (status === 403) expectTrpcError(response, 403, { message: expect.stringMatching(/^Your role \(\w+\) may not /) });
        else expectTrpcError(response, 404);
        expect(await databaseSnapshot(t)).toEqual(before);
      });
    });
  }

  describe('tokens that do not hold', () => {
    let authorizations: Awaited<ReturnType<typeof unacceptableAuthorizations>>;
    beforeAll(async () => {
      authorizations = await unacceptableAuthorizations(owner.id);
    });

    for (const kind of UNACCEPTABLE_TOKENS) {
      it(`${kind}: 401 with WWW-Authenticate: Bearer, on a query and on a mutation`, async () => {
        const authorization = authorizations[kind];
        const headers: Record<string, string> = authorization ? { authorization } : {};
        const message = 'Missing, invalid or expired token';
        expectTrpcError(await t.request('GET', queryUrl('auth.me'), { headers }), 401, { message });
        const before = await databaseSnapshot(t);
        expectTrpcError(await t.request('POST', '/api/trpc/tasks.create', { headers, body: { title: 'T', projectId } }), 401, { message });
        expect(await databaseSnapshot(t)).toEqual(before);
      });
    }
  });

  const tooLongPassword = 'é'.repeat(37);
  /** Refusals with their reason or the fields named, each sent to both transports. */
  const REFUSALS: { name: string; status: number; reason?: string; issues?: string[]; trpc: () => [string, unknown]; rest: () => [string, string, unknown]; token?: () => string }[] = [
    { name: 'an empty project name', status: 400, issues: ['name'], trpc: () => ['projects.create', { name: '' }], rest: () => ['POST', '/api/v1/projects', { name: '' }] },
    { name: 'an unknown field', status: 400, issues: ['surprise'], trpc: () => ['tasks.create', { title: 'T', projectId, surprise: 1 }], rest: () => ['POST', '/api/v1/tasks', { title: 'T', projectId, surprise: 1 }] },
    { name: 'a malformed status', status: 400, issues: ['status'], trpc: () => ['tasks.update', { id: taskId, status: 'open' }], rest: () => ['PATCH', `/api/v1/tasks/${taskId}`, { status: 'open' }] },
    { name: 'a password over 72 bytes', status: 400, issues: ['password'], trpc: () => ['auth.register', { name: 'L', email: 'long@example.com', password: tooLongPassword }], rest: () => ['POST', '/api/v1/auth/register', { name: 'L', email: 'long@example.com', password: tooLongPassword }] },
    { name: 'a registered email', status: 409, reason: 'EMAIL_TAKEN', trpc: () => ['auth.register', { name: 'A', email: owner.email, password: 'secret-1' }], rest: () => ['POST', '/api/v1/auth/register', { name: 'A', email: owner.email, password: 'secret-1' }] },
    { name: 'a wrong password', status: 401, reason: 'INVALID_CREDENTIALS', trpc: () => ['auth.login', { email: owner.email, password: 'wrong-one' }], rest: () => ['POST', '/api/v1/auth/login', { email: owner.email, password: 'wrong-one' }] },
    { name: 'an unknown invitation link', status: 404, reason: 'INVITATION_INVALID', trpc: () => ['members.acceptInvitation', { token: 'A'.repeat(43) }], rest: () => ['POST', `/api/v1/invitations/${'A'.repeat(43)}/accept`, undefined] },
    { name: 'inviting the owner', status: 409, reason: 'ALREADY_MEMBER', trpc: () => ['members.invite', { id: projectId, email: owner.email }], rest: () => ['POST', `/api/v1/projects/${projectId}/members/invite`, { email: owner.email }] },
    { name: 'an assignee who is not a member', status: 400, reason: 'ASSIGNEE_NOT_MEMBER', trpc: () => ['tasks.update', { id: taskId, assigneeId: outsider.id }], rest: () => ['PATCH', `/api/v1/tasks/${taskId}`, { assigneeId: outsider.id }] },
    { name: 'a malformed task id', status: 404, trpc: () => ['comments.create', { id: 'nope', text: 'hi' }], rest: () => ['POST', '/api/v1/tasks/nope/comments', { text: 'hi' }] },
    { name: 'an unknown project id', status: 404, trpc: () => ['tasks.create', { title: 'T', projectId: UNKNOWN_ID }], rest: () => ['POST', '/api/v1/tasks', { title: 'T', projectId: UNKNOWN_ID }] },
  ];

  for (const refusal of REFUSALS) {
    it(`${refusal.name}: ${refusal.status}${refusal.reason ? ` ${refusal.reason}` : ''}, the same answer as REST, nothing written`, async () => {
      const expected = {
        ...(refusal.reason ? { reason: refusal.reason } : {}),
        ...(refusal.issues ? { issues: refusal.issues.map((field) => issueAt([field])) } : {}),
      };
      const before = await databaseSnapshot(t);
      const [path, input] = refusal.trpc();
      const native = await mutate(path, input, owner.token);
      expectTrpcError(native, refusal.status, expected);
      const [method, url, body] = refusal.rest();
      const rest = await t.request(method, url, { token: owner.token, body });
      expectErrorBody(rest, refusal.status, expected);
      const { message, data } = native.body.error;
      expect(rest.body).toEqual({ message, code: data.code, ...(data.reason ? { reason: data.reason } : {}), ...(data.issues ? { issues: data.issues } : {}) });
      expect(await databaseSnapshot(t)).toEqual(before);
    });
  }

  it("changing the owner's role: 409 OWNER_IMMUTABLE", async () => {
    const [row] = await queryRows<{ id: string }>(t, `select id from memberships where project_id = '${projectId}' and user_id = '${owner.id}'`);
    const before = await databaseSnapshot(t);
    expectTrpcError(await mutate('members.changeRole', { id: projectId, memberId: row!.id, role: 'VIEWER' }, admin.token), 409, { reason: 'OWNER_IMMUTABLE' });
    expect(await databaseSnapshot(t)).toEqual(before);
  });

  it('query input is validated too: wrong types, bad limits and cursors are 400s', async () => {
    // tRPC callers send typed values: a number for limit, an array for a status list.
    expectTrpcError(await query('projects.list', { limit: '1' }, owner.token), 400, { issues: [issueAt(['limit'], 'invalid_type')] });
    expectTrpcError(await query('projects.list', { limit: 501 }, owner.token), 400, { issues: [issueAt(['limit'])] });
    expectTrpcError(await query('tasks.listMine', { status: 'TODO' }, owner.token), 400, { issues: [issueAt(['status'], 'invalid_type')] });
    expectTrpcError(await query('tasks.listMine', { status: ['TODO', 'nope'] }, owner.token), 400, { issues: [issueAt(['status', 1])] });
    expect((await query('tasks.listMine', { status: ['TODO', 'DONE'], limit: 2 }, owner.token)).status).toBe(200);
    expectTrpcError(await query('projects.list', { cursor: 'bogus' }, owner.token), 400, { reason: 'INVALID_CURSOR' });
    expectTrpcError(await query('projects.get', { id: 42 }, owner.token), 400, { issues: [issueAt(['id'], 'invalid_type')] });
  });

  it('malformed JSON, a non-JSON body and the wrong method get clean errors', async () => {
    const before = await databaseSnapshot(t);
    const malformed = await t.request('POST', '/api/trpc/projects.create', { token: owner.token, rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expectTrpcError(malformed, 400, { message: 'Malformed JSON body', reason: 'MALFORMED_JSON' });
    const plain = await t.request('POST', '/api/trpc/projects.create', { token: owner.token, rawBody: '{"name":"x"}', headers: { 'content-type': 'text/plain' } });
    expectTrpcError(plain, 415, { message: 'Unsupported content type: send application/json' });
    expectTrpcError(await t.request('GET', queryUrl('projects.create', { name: 'x' }), { token: owner.token }), 405);
    expectTrpcError(await query('projects.nothing', undefined, owner.token), 404);
    expect(await databaseSnapshot(t)).toEqual(before);
  });

  it('a batch of many calls, whose path is over 100 characters, is served (the web app batches six)', async () => {
    const paths = ['tasks.get', 'projects.get', 'tasks.get', 'projects.get', 'tasks.get', 'projects.get', 'tasks.get', 'projects.get', 'tasks.get', 'auth.me'];
    const inputs = Object.fromEntries(paths.map((path, index) => [index, path === 'auth.me' ? undefined : { id: path === 'tasks.get' ? taskId : projectId }]));
    const response = await t.request('GET', `/api/trpc/${paths.join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(inputs))}`, { token: owner.token });
    expect(paths.join(',').length).toBeGreaterThan(100);
    expect(response.status).toBe(200);
    const results = response.body as { result: { data: { id: string } } }[];
    expect(results.map((entry) => entry.result.data.id)).toEqual(paths.map((path) => (path === 'tasks.get' ? taskId : path === 'projects.get' ? projectId : owner.id)));
  });

  it('a batch answers each call on its own (207 when they differ), errors in the same shape', async () => {
    const url = `/api/trpc/auth.me,projects.get,tasks.get?batch=1&input=${encodeURIComponent(JSON.stringify({ 1: { id: projectId }, 2: { id: 'nope' } }))}`;
    const response = await t.request('GET', url, { token: outsider.token });
    expect(response.status).toBe(207);
    const [me, project, task] = response.body;
    expect(me.result.data.id).toBe(outsider.id);
    expect(project).toStrictEqual({ error: { message: 'Project not found', code: -32004, data: { code: 'NOT_FOUND', httpStatus: 404 } } });
    expect(task).toStrictEqual({ error: { message: 'Task not found', code: -32004, data: { code: 'NOT_FOUND', httpStatus: 404 } } });
    expectNoStack(response.body);
  });

  it('a single call answers exactly as the same call inside a batch of two (one server shortcut, one tRPC handler)', async () => {
    // A single query or mutation is answered by the server's shortcut; a batch of two by tRPC's own handler.
    const calls: { path: string; input: unknown; token: string | undefined; method: 'GET' | 'POST' }[] = [
      { path: 'tasks.get', input: { id: taskId }, token: owner.token, method: 'GET' },
      { path: 'tasks.get', input: { id: UNKNOWN_ID }, token: owner.token, method: 'GET' },
      { path: 'tasks.get', input: { id: taskId }, token: outsider.token, method: 'GET' },
      { path: 'tasks.get', input: { id: 42 }, token: owner.token, method: 'GET' },
      { path: 'tasks.get', input: { id: taskId }, token: undefined, method: 'GET' },
      { path: 'tasks.get', input: { id: taskId }, token: 'not-a-token', method: 'GET' },
      { path: 'auth.me', input: undefined, token: owner.token, method: 'GET' },
      { path: 'tasks.update', input: { id: taskId, title: 'x'.repeat(5000) }, token: owner.token, method: 'POST' },
      { path: 'tasks.update', input: { id: taskId, title: 'Renamed' }, token: viewer.token, method: 'POST' },
      { path: 'projects.create', input: { name: 'Alone' }, token: owner.token, method: 'POST' },
    ];
    const volatile = (body: any) => JSON.parse(JSON.stringify(body), (key, value) => (['id', 'key', 'createdAt', 'updatedAt', 'requestId'].includes(key) ? '<volatile>' : value));
    for (const call of calls) {
      const other = call.method === 'GET' ? 'auth.me' : 'projects.create';
      const otherInput = call.method === 'GET' ? undefined : { name: 'Beside' };
      const inputs = { 0: call.input, 1: otherInput };
      const batchPath = `/api/trpc/${call.path},${other}?batch=1`;
      const batched =
        call.method === 'GET'
          ? await t.request('GET', `${batchPath}&input=${encodeURIComponent(JSON.stringify(inputs))}`, { token: call.token })
          : await t.request('POST', batchPath, { token: call.token, body: inputs });
      const alone =
        call.method === 'GET'
          ? await t.request('GET', `/api/trpc/${call.path}?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: call.input }))}`, { token: call.token })
          : await t.request('POST', `/api/trpc/${call.path}?batch=1`, { token: call.token, body: { 0: call.input } });
      const unbatched = call.method === 'GET' ? await query(call.path, call.input, call.token) : await mutate(call.path, call.input, call.token);
      const label = `${call.method} ${call.path} ${JSON.stringify(call.input)?.slice(0, 60)}`;
      expect(volatile(alone.body), label).toEqual([volatile(batched.body[0])]);
      expect(volatile(unbatched.body), label).toEqual(volatile(batched.body[0]));
      const status = 'error' in batched.body[0] ? batched.body[0].error.data.httpStatus : 200;
      expect([alone.status, unbatched.status], label).toEqual([status, status]);
      for (const response of [alone, unbatched]) {
        expect(response.headers['content-type'], label).toMatch(/^application\/json/);
        expect(response.headers.vary, label).toBe('trpc-accept, accept');
        expect(response.headers['www-authenticate'], label).toBe(status === 401 ? 'Bearer' : undefined);
      }
    }
  });
});
