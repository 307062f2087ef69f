import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from '../harness';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const TASK_KEYS = ['assigneeId', 'completedAt', 'createdAt', 'createdById', 'description', 'dueDate', 'id', 'priority', 'projectId', 'status', 'title', 'updatedAt'];

describe('the interface flow, endpoint by endpoint', () => {
  let t: TestApp;
  let owner: TestUser;
  let colleague: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    colleague = await registerUser(t, 'Grace Hopper');
  });
  afterAll(() => t.close());

  it('registers a user: 201 with a token and the user, email normalised, no password', async () => {
    const response = await t.request('POST', '/api/v1/auth/register', {
      body: { name: '  Ada Lovelace ', email: ' Ada@Example.COM ', password: 'analytical' },
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(['access_token', 'expires_in', 'token_type', 'user']);
    expect(response.body.token_type).toBe('Bearer');
    expect(response.body.expires_in).toBe(3600);
    expect(response.body.access_token.split('.')).toHaveLength(3);
    expect(response.body.user).toEqual({ id: expect.stringMatching(UUID), name: 'Ada Lovelace', email: 'ada@example.com' });
    expect(response.headers['x-request-id']).toBeTruthy();
    owner = { ...response.body.user, password: 'analytical', token: response.body.access_token };
  });

  it('logs in: 200 with a working token; wrong password and unknown email get the same 401', async () => {
    const ok = await t.request('POST', '/api/v1/auth/login', { body: { email: 'ADA@example.com', password: 'analytical' } });
    expect(ok.status).toBe(200);
    expect(ok.body.user).toEqual({ id: owner.id, name: 'Ada Lovelace', email: 'ada@example.com' });
    const me = await t.request('GET', '/api/v1/auth/me', { token: ok.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ id: owner.id, name: 'Ada Lovelace', email: 'ada@example.com' });

    const wrongPassword = await t.request('POST', '/api/v1/auth/login', { body: { email: 'ada@example.com', password: 'nope-nope' } });
    const unknownEmail = await t.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'nope-nope' } });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.body).toEqual(unknownEmail.body);
    expect(wrongPassword.body).toEqual({ message: 'Invalid email or password', code: 'UNAUTHORIZED', reason: 'INVALID_CREDENTIALS' });
  });

  let projectId: string;

  it('creates a project (201); the creator is owner', async () => {
    const response = await t.request('POST', '/api/v1/projects', { token: owner.token, body: { name: 'Engine', description: 'Difference engine' } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Engine',
      description: 'Difference engine',
      ownerId: owner.id,
      role: 'ADMIN',
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
    });
    projectId = response.body.id;
  });

  it('lists the projects the caller is a member of, and gets one', async () => {
    const other = await createProject(t, colleague, 'Not yours');
    const list = await t.request('GET', '/api/v1/projects', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.map((project: { id: string }) => project.id)).toEqual([projectId]);
    expect(list.body.some((project: { id: string }) => project.id === other.id)).toBe(false);

    const one = await t.request('GET', `/api/v1/projects/${projectId}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: projectId, name: 'Engine', description: 'Difference engine', ownerId: owner.id });
  });

  it('updates a project', async () => {
    const response = await t.request('PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { name: 'Analytical Engine' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: projectId, name: 'Analytical Engine', description: 'Difference engine' });
    expect(Date.parse(response.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(response.body.createdAt));
  });

  let memberId: string;

  it('invites a user by email as VIEWER by default (201), with name and email', async () => {
    const response = await t.request('POST', `/api/v1/projects/${projectId}/members/invite`, {
      token: owner.token,
      body: { email: colleague.email.toUpperCase() },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      userId: colleague.id,
      projectId,
      role: 'VIEWER',
      name: 'Grace Hopper',
      email: colleague.email,
    });
    memberId = response.body.id;
  });

  it("changes a member's role", async () => {
    const response = await t.request('PATCH', `/api/v1/projects/${projectId}/members/${memberId}/role`, {
      token: owner.token,
      body: { role: 'EDITOR' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: memberId, userId: colleague.id, projectId, role: 'EDITOR' });
  });

  let taskId: string;

  it('creates a task with defaults: TODO, MEDIUM, nulls where unset (201)', async () => {
    const response = await t.request('POST', '/api/v1/tasks', { token: colleague.token, body: { title: 'Punch cards', projectId } });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(TASK_KEYS);
    expect(response.body).toMatchObject({
      title: 'Punch cards',
      description: '',
      status: 'TODO',
      priority: 'MEDIUM',
      dueDate: null,
      assigneeId: null,
      projectId,
      createdById: colleague.id,
      completedAt: null,
    });
    taskId = response.body.id;
  });

  it('creates a task with every field; due date normalised to UTC', async () => {
    const response = await t.request('POST', '/api/v1/tasks', {
      token: owner.token,
      body: {
        title: 'Bernoulli numbers',
        projectId,
        description: 'Note G',
        status: 'IN_PROGRESS',
        priority: 'URGENT',
        dueDate: '2026-12-01T18:00:00+01:00',
        assigneeId: colleague.id,
      },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      description: 'Note G',
      status: 'IN_PROGRESS',
      priority: 'URGENT',
      dueDate: '2026-12-01T17:00:00.000Z',
      assigneeId: colleague.id,
    });
  });

  it('answers a task created with upper-case ids with the ids as every later read spells them', async () => {
    const response = await t.request('POST', '/api/v1/tasks', {
      token: owner.token,
      body: { title: 'Upper-case ids', projectId: projectId.toUpperCase(), assigneeId: colleague.id.toUpperCase() },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ projectId, assigneeId: colleague.id });
    const read = await t.request('GET', `/api/v1/tasks/${response.body.id}`, { token: owner.token });
    expect(read.body).toEqual(response.body);
    await t.request('DELETE', `/api/v1/tasks/${response.body.id}`, { token: owner.token });
  });

  it('reads back due dates at the edges of the accepted years the same through every read', async () => {
    // Years below 100 are where a lenient date parser goes wrong (it reads "0005-03-01" as 2001).
    for (const dueDate of ['0001-01-01T00:00:00.000Z', '0005-03-01T12:30:00.500Z', '0099-12-31T23:59:59.999Z', '9999-12-31T23:59:59.990Z']) {
      const created = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: `Due ${dueDate}`, projectId, dueDate } });
      expect(created.status).toBe(201);
      expect(created.body.dueDate).toBe(dueDate);
      const read = await t.request('GET', `/api/v1/tasks/${created.body.id}`, { token: owner.token });
      expect(read.body).toEqual(created.body);
      const listed = await t.request('GET', `/api/v1/tasks/project/${projectId}?sort=dueDate&limit=100`, { token: owner.token });
      expect(listed.body.find((task: { id: string }) => task.id === created.body.id)).toEqual(created.body);
      const patched = await t.request('PATCH', `/api/v1/tasks/${created.body.id}`, { token: owner.token, body: { priority: 'HIGH' } });
      expect(patched.body).toMatchObject({ dueDate, createdAt: created.body.createdAt });
      await t.request('DELETE', `/api/v1/tasks/${created.body.id}`, { token: owner.token });
    }
  });

  it('lists the tasks of a project, oldest first', async () => {
    const response = await t.request('GET', `/api/v1/tasks/project/${projectId}`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body.map((task: { title: string }) => task.title)).toEqual(['Punch cards', 'Bernoulli numbers']);
    for (const task of response.body) expect(Object.keys(task).sort()).toEqual(TASK_KEYS);
  });

  it('gets one task', async () => {
    const response = await t.request('GET', `/api/v1/tasks/${taskId}`, { token: colleague.token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: taskId, title: 'Punch cards' });
  });

  it('updates a task with only status; completedAt follows DONE', async () => {
    const done = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: colleague.token, body: { status: 'DONE' } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: taskId, title: 'Punch cards', status: 'DONE', priority: 'MEDIUM' });
    expect(done.body.completedAt).toMatch(ISO_MS);

    const reopened = await t.request('PATCH', `/api/v1/tasks/${taskId}`, {
      token: colleague.token,
      body: { status: 'IN_REVIEW', assigneeId: owner.id, dueDate: '2027-01-02T03:04:05.678Z', title: 'Punched cards' },
    });
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({ status: 'IN_REVIEW', completedAt: null, assigneeId: owner.id, dueDate: '2027-01-02T03:04:05.678Z', title: 'Punched cards' });

    const cleared = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: colleague.token, body: { assigneeId: null, dueDate: null } });
    expect(cleared.body).toMatchObject({ assigneeId: null, dueDate: null });
  });

  it('comments on a task (201); authorId is the caller', async () => {
    const response = await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: colleague.token, body: { text: 'Loops!' } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      text: 'Loops!',
      authorId: colleague.id,
      authorName: colleague.name,
      taskId,
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
    });
  });

  it('deletes a task', async () => {
    const response = await t.request('DELETE', `/api/v1/tasks/${taskId}`, { token: colleague.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Task deleted' });
    expect((await t.request('GET', `/api/v1/tasks/${taskId}`, { token: colleague.token })).status).toBe(404);
  });

  it('deletes a project with its tasks, comments and memberships', async () => {
    const task = await createTask(t, owner, projectId, { title: 'Doomed' });
    await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'bye' } });
    const response = await t.request('DELETE', `/api/v1/projects/${projectId}`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Project deleted' });
    expect((await t.request('GET', `/api/v1/projects/${projectId}`, { token: owner.token })).status).toBe(404);
    expect((await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).status).toBe(404);
    const left = await t.database.db.execute(`select
        (select count(*) from tasks where project_id = '${projectId}')::int as tasks,
        (select count(*) from comments where task_id = '${task.id}')::int as comments,
        (select count(*) from memberships where project_id = '${projectId}')::int as memberships` as never);
    const row = ((left as { rows?: unknown[] }).rows ?? (left as unknown as unknown[]))[0];
    expect(row).toEqual({ tasks: 0, comments: 0, memberships: 0 });
  });

  it('serves the OpenAPI document and Swagger UI', async () => {
    const document = await t.request('GET', '/api/v1/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe('3.1.0');
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining(['/auth/login', '/auth/register', '/projects', '/projects/{id}', '/projects/{id}/members/invite', '/projects/{id}/members/{memberId}/role', '/tasks', '/tasks/project/{projectId}', '/tasks/{id}', '/tasks/{id}/comments']),
    );
    expect(document.body.paths['/tasks'].post.responses['201']).toBeDefined();
    const ui = await t.request('GET', '/docs/');
    expect(ui.status).toBe(200);
    expect(String(ui.body)).toContain('swagger');
  });

  it('answers health and readiness', async () => {
    expect((await t.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await t.request('GET', '/readyz')).body).toEqual({ status: 'ready' });
  });

  it('keeps invite helpers honest', async () => {
    const p = await createProject(t, owner, 'Helpers');
    const m = await invite(t, owner, p.id, colleague, 'ADMIN');
    expect(m.role).toBe('ADMIN');
  });
});
