import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';

interface Task {
  id: string;
  title: string;
  dueDate: string | null;
  startDate: string | null;
  recurredFromId: string | null;
  [key: string]: unknown;
}

describe('start dates (issue 37)', () => {
  let t: TestApp;
  let owner: TestUser;
  let viewer: TestUser;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Ada Lovelace');
    viewer = await registerUser(t, 'Grace Hopper');
    projectId = (await createProject(t, owner, 'Timeline')).id;
    await invite(t, owner, projectId, viewer, 'VIEWER');
  });
  afterAll(() => t.close());

  async function create(body: Record<string, unknown>): Promise<Task> {
    const response = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: 'Plan', projectId, ...body } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as Task;
  }

  const patch = (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.request('PATCH', `/api/v1/tasks/${id}`, { token: owner.token, body, headers });

  const startAfterDue = { code: 'BAD_REQUEST', reason: 'START_AFTER_DUE', issues: [{ path: ['startDate'] }] };

  it('a created task has its start date, normalised to UTC, on every read; none is null', async () => {
    const task = await create({ startDate: '2026-12-01T10:00:00+01:00', dueDate: '2026-12-05T17:00:00Z' });
    expect(task.startDate).toBe('2026-12-01T09:00:00.000Z');
    const read = await t.request('GET', `/api/v1/tasks/${task.id}`, { token: viewer.token });
    expect(read.body.startDate).toBe('2026-12-01T09:00:00.000Z');
    const listed = await t.request('GET', `/api/v1/tasks/project/${projectId}?limit=500`, { token: viewer.token });
    expect(listed.body.find((row: Task) => row.id === task.id).startDate).toBe('2026-12-01T09:00:00.000Z');
    expect((await create({})).startDate).toBeNull();
    // A start without a due date, and one equal to it (a one-day task), are fine.
    expect((await create({ startDate: '2026-12-01T09:00:00Z' })).startDate).toBe('2026-12-01T09:00:00.000Z');
    expect((await create({ startDate: '2026-12-01T09:00:00Z', dueDate: '2026-12-01T09:00:00Z' })).dueDate).toBe('2026-12-01T09:00:00.000Z');
  });

  it('PATCH sets, moves and clears it (If-Match honoured), and the history shows each change', async () => {
    const task = await create({ dueDate: '2026-12-10T17:00:00.000Z' });
    const etag = (await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).headers.etag as string;
    const set = await patch(task.id, { startDate: '2026-12-03T09:00:00.000Z' }, { 'if-match': etag });
    expect(set.status).toBe(200);
    expect(set.body.startDate).toBe('2026-12-03T09:00:00.000Z');
    // The version it replaced is stale now.
    expect((await patch(task.id, { startDate: '2026-12-04T09:00:00.000Z' }, { 'if-match': etag })).status).toBe(412);
    const cleared = await patch(task.id, { startDate: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.startDate).toBeNull();
    expect((await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).body.startDate).toBeNull();
    const history = await t.request('GET', `/api/v1/tasks/${task.id}/activity`, { token: viewer.token });
    expect(history.status).toBe(200);
    expect(history.body.map((entry: { type: string; changes?: unknown }) => [entry.type, entry.changes ?? null])).toEqual([
      ['task.updated', { startDate: { old: '2026-12-03T09:00:00.000Z', new: null } }],
      ['task.updated', { startDate: { old: null, new: '2026-12-03T09:00:00.000Z' } }],
      ['task.created', null],
    ]);
  });

  it('a start after the due date is a 400 START_AFTER_DUE naming startDate, judged on the task as the write leaves it', async () => {
    const refused = await t.request('POST', '/api/v1/tasks', {
      token: owner.token,
      body: { title: 'Backwards', projectId, startDate: '2026-12-06T00:00:00Z', dueDate: '2026-12-05T00:00:00Z' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject(startAfterDue);

    const task = await create({ startDate: '2026-12-03T09:00:00Z', dueDate: '2026-12-10T17:00:00Z' });
    // Only the start, after the stored due date.
    const late = await patch(task.id, { startDate: '2026-12-11T00:00:00Z' });
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject(startAfterDue);
    // Only the due date, before the stored start.
    const early = await patch(task.id, { dueDate: '2026-12-02T00:00:00Z' });
    expect(early.status).toBe(400);
    expect(early.body).toMatchObject(startAfterDue);
    // Both in one PATCH, consistent with each other: fine, though each alone would be refused.
    const both = await patch(task.id, { startDate: '2026-11-20T00:00:00Z', dueDate: '2026-11-25T00:00:00Z' });
    expect(both.status).toBe(200);
    // Clearing the due date lets any start stand.
    expect((await patch(task.id, { dueDate: null })).status).toBe(200);
    expect((await patch(task.id, { startDate: '2027-01-01T00:00:00Z' })).status).toBe(200);
    // Nothing refused was written.
    const stored = (await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).body as Task;
    expect(stored).toMatchObject({ startDate: '2027-01-01T00:00:00.000Z', dueDate: null });

    // Malformed dates are the schema's 400 naming the field.
    const malformed = await patch(task.id, { startDate: 'tomorrow' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.issues[0].path).toEqual(['startDate']);
    const badFilter = await t.request('GET', `/api/v1/tasks/project/${projectId}?startAfter=soon`, { token: owner.token });
    expect(badFilter.status).toBe(400);
  });

  it('startBefore and startAfter filter both lists as dueBefore and dueAfter do, and combine with them (a timeline window)', async () => {
    const project = (await createProject(t, owner, 'Window')).id;
    const make = async (title: string, startDate: string | null, dueDate: string | null) => {
      const response = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title, projectId: project, startDate, dueDate } });
      expect(response.status).toBe(201);
    };
    await make('before', '2026-10-01T00:00:00Z', '2026-10-05T00:00:00Z');
    await make('across', '2026-10-20T00:00:00Z', '2026-11-10T00:00:00Z');
    await make('inside', '2026-11-03T00:00:00Z', '2026-11-04T00:00:00Z');
    await make('after', '2026-12-10T00:00:00Z', '2026-12-20T00:00:00Z');
    await make('start only', '2026-11-05T00:00:00Z', null);
    await make('unscheduled', null, null);
    const titles = async (query: string, path = `/api/v1/tasks/project/${project}`) => {
      const response = await t.request('GET', `${path}?${query}&sort=title`, { token: owner.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return (response.body as Task[]).filter((task) => task.projectId === project).map((task) => task.title);
    };
    expect(await titles('startAfter=2026-11-01T00:00:00Z')).toEqual(['after', 'inside', 'start only']);
    expect(await titles('startBefore=2026-11-01T00:00:00Z')).toEqual(['across', 'before']);
    expect(await titles('startAfter=2026-11-01T00:00:00Z&startBefore=2026-12-01T00:00:00Z')).toEqual(['inside', 'start only']);
    // Strictly before and after, as the due date filters.
    expect(await titles('startAfter=2026-11-03T00:00:00Z&startBefore=2026-11-05T00:00:00Z')).toEqual([]);
    // The tasks whose bar overlaps November: started before its end, due after its start.
    expect(await titles('startBefore=2026-12-01T00:00:00Z&dueAfter=2026-11-01T00:00:00Z')).toEqual(['across', 'inside']);
    // GET /tasks (across the caller's projects) takes them too.
    expect(await titles('startBefore=2026-12-01T00:00:00Z&dueAfter=2026-11-01T00:00:00Z', '/api/v1/tasks')).toEqual(['across', 'inside']);
    // Paged: the filter holds on the next page.
    const first = await t.request('GET', `/api/v1/tasks/project/${project}?startAfter=2026-09-01T00:00:00Z&sort=dueDate&limit=2`, { token: owner.token });
    expect(first.body.map((task: Task) => task.title)).toEqual(['before', 'inside']);
    const cursor = /cursor=([^&>]+)/.exec(first.headers.link as string)?.[1];
    expect(cursor).toBeDefined();
    const second = await t.request('GET', `/api/v1/tasks/project/${project}?startAfter=2026-09-01T00:00:00Z&sort=dueDate&limit=2&cursor=${cursor}`, { token: owner.token });
    expect(second.body.map((task: Task) => task.title)).toEqual(['across', 'after']);
  });

  it("a recurring task's next occurrence keeps its start-to-due span", async () => {
    const task = await create({ recurrence: 'FREQ=WEEKLY', startDate: '2026-12-01T09:00:00Z', dueDate: '2026-12-03T17:00:00Z' });
    expect((await patch(task.id, { status: 'DONE' })).status).toBe(200);
    const listed = await t.request('GET', `/api/v1/tasks/project/${projectId}?limit=500`, { token: owner.token });
    const next = (listed.body as Task[]).filter((row) => row.recurredFromId === task.id);
    expect(next).toHaveLength(1);
    expect(next[0]).toMatchObject({ startDate: '2026-12-08T09:00:00.000Z', dueDate: '2026-12-10T17:00:00.000Z' });
    // Without a start, the occurrence has none.
    const plain = await create({ recurrence: 'FREQ=DAILY', dueDate: '2026-12-03T17:00:00Z' });
    await patch(plain.id, { status: 'DONE' });
    const after = await t.request('GET', `/api/v1/tasks/project/${projectId}?limit=500`, { token: owner.token });
    expect((after.body as Task[]).find((row) => row.recurredFromId === plain.id)).toMatchObject({ startDate: null, dueDate: '2026-12-04T17:00:00.000Z' });
  });

  it('a viewer cannot set it, and a non-member gets 404', async () => {
    const task = await create({});
    expect((await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: viewer.token, body: { startDate: '2026-12-01T00:00:00Z' } })).status).toBe(403);
    const outsider = await registerUser(t, 'Outsider');
    expect((await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: outsider.token, body: { startDate: '2026-12-01T00:00:00Z' } })).status).toBe(404);
  });
});
