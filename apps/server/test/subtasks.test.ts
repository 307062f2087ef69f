import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { castProject, type Cast, createProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { startReceiver } from './support/webhook-receiver';

// Subtasks: parentId on create and PATCH (a task of the same project, never the task's own
// ancestor), subtaskCount and subtasksDone on every read, the parentId filter, and a parent's
// deletion detaching its subtasks, each change in the history and the webhooks.

let t: TestApp;
let cast: Cast;
let outsider: TestUser;
let projectId: string;

beforeAll(async () => {
  t = await startTestApp({ webhooks: { allowPrivate: true, pollMs: 100, timeoutMs: 2000, retryBaseMs: 100, retryMaxDelayMs: 400, retryWindowMs: 60_000, logRetentionMs: 86_400_000 } });
  cast = { owner: await registerUser(t, 'Owner'), ADMIN: await registerUser(t, 'Admin'), EDITOR: await registerUser(t, 'Editor'), VIEWER: await registerUser(t, 'Viewer') };
  outsider = await registerUser(t, 'Outsider');
});
afterAll(() => t.close());
beforeEach(async () => {
  projectId = (await castProject(t, cast, 'Nested')).projectId;
});

const patch = (id: string, body: Record<string, unknown>, user = cast.EDITOR) => t.request('PATCH', `/api/v1/tasks/${id}`, { token: user.token, body });
const read = async (id: string) => (await t.request('GET', `/api/v1/tasks/${id}`, { token: cast.VIEWER.token })).body;
const list = async (query: string) =>
  (await t.request('GET', `/api/v1/tasks/project/${projectId}?${query}`, { token: cast.VIEWER.token })).body.map((task: { title: string }) => task.title);
const expectParentRefused = (response: { status: number; body: { issues?: { path: string[] }[]; reason?: string } }, reason: string) => {
  expect(response.status).toBe(400);
  expect(response.body.reason).toBe(reason);
  expect(response.body.issues?.[0]?.path).toEqual(['parentId']);
};

describe('subtasks', () => {
  it('are created under a parent of the same project, and every read of the parent counts them', async () => {
    const parent = await createTask(t, cast.EDITOR, projectId, { title: 'Parent' });
    expect(parent).toMatchObject({ parentId: null, subtaskCount: 0, subtasksDone: 0 });
    const child = await createTask(t, cast.EDITOR, projectId, { title: 'Child', parentId: parent.id });
    expect(child).toMatchObject({ parentId: parent.id, subtaskCount: 0 });
    await createTask(t, cast.EDITOR, projectId, { title: 'Done child', parentId: parent.id.toUpperCase(), status: 'DONE' });
    expect(await read(parent.id)).toMatchObject({ subtaskCount: 2, subtasksDone: 1 });
    const page = await t.request('GET', `/api/v1/tasks/project/${projectId}`, { token: cast.VIEWER.token });
    expect(page.body.find((task: { id: string }) => task.id === parent.id)).toMatchObject({ subtaskCount: 2, subtasksDone: 1 });

    // Ticking one off and reopening one move subtasksDone.
    expect((await patch(child.id, { status: 'DONE' })).status).toBe(200);
    expect(await read(parent.id)).toMatchObject({ subtaskCount: 2, subtasksDone: 2 });
    expect((await patch(child.id, { status: 'IN_PROGRESS' })).status).toBe(200);
    expect(await read(parent.id)).toMatchObject({ subtaskCount: 2, subtasksDone: 1 });
  });

  it('refuse a parent of another project, an unknown or malformed one, the same 400 naming parentId', async () => {
    const otherProject = (await createProject(t, outsider, 'Elsewhere')).id;
    const foreign = await createTask(t, outsider, otherProject);
    const mine = (await createProject(t, cast.EDITOR, 'Mine too')).id;
    const visibleForeign = await createTask(t, cast.EDITOR, mine);
    const task = await createTask(t, cast.EDITOR, projectId);
    for (const parentId of [foreign.id, visibleForeign.id, '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b', 'not-an-id']) {
      expectParentRefused(await t.request('POST', '/api/v1/tasks', { token: cast.EDITOR.token, body: { title: 'Stray', projectId, parentId } }), 'PARENT_NOT_IN_PROJECT');
      expectParentRefused(await patch(task.id, { parentId }), 'PARENT_NOT_IN_PROJECT');
    }
    expect((await read(task.id)).parentId).toBeNull();
  });

  it('refuse making a task its own ancestor (400 PARENT_CYCLE), however deep the chain', async () => {
    const top = await createTask(t, cast.EDITOR, projectId, { title: 'Top' });
    const middle = await createTask(t, cast.EDITOR, projectId, { title: 'Middle', parentId: top.id });
    const bottom = await createTask(t, cast.EDITOR, projectId, { title: 'Bottom', parentId: middle.id });
    expectParentRefused(await patch(top.id, { parentId: top.id }), 'PARENT_CYCLE');
    expectParentRefused(await patch(top.id, { parentId: middle.id }), 'PARENT_CYCLE');
    expectParentRefused(await patch(top.id, { parentId: bottom.id }), 'PARENT_CYCLE');
    expect((await read(top.id)).parentId).toBeNull();
    // Moving within the tree is fine: the bottom task under the top one, then back.
    expect((await patch(bottom.id, { parentId: top.id })).body.parentId).toBe(top.id);
    expect((await read(top.id)).subtaskCount).toBe(2);
  });

  it('never build a cycle from two concurrent moves', async () => {
    const a = await createTask(t, cast.EDITOR, projectId, { title: 'A' });
    const b = await createTask(t, cast.EDITOR, projectId, { title: 'B' });
    const [first, second] = await Promise.all([patch(a.id, { parentId: b.id }), patch(b.id, { parentId: a.id })]);
    expect([first.status, second.status].sort()).toEqual([200, 400]);
    expect([first, second].find((response) => response.status === 400)!.body.reason).toBe('PARENT_CYCLE');
  });

  it('detach with parentId null', async () => {
    const parent = await createTask(t, cast.EDITOR, projectId);
    const child = await createTask(t, cast.EDITOR, projectId, { parentId: parent.id });
    const detached = await patch(child.id, { parentId: null });
    expect(detached.status).toBe(200);
    expect(detached.body.parentId).toBeNull();
    expect((await read(parent.id)).subtaskCount).toBe(0);
  });

  it('are listed by parentId: the subtasks of one task, or only top-level tasks with none', async () => {
    const parent = await createTask(t, cast.EDITOR, projectId, { title: 'P' });
    await createTask(t, cast.EDITOR, projectId, { title: 'P.1', parentId: parent.id });
    await createTask(t, cast.EDITOR, projectId, { title: 'P.2', parentId: parent.id });
    await createTask(t, cast.EDITOR, projectId, { title: 'Q' });
    expect(await list(`parentId=${parent.id}`)).toEqual(['P.1', 'P.2']);
    expect(await list(`parentId=${parent.id.toUpperCase()}&sort=-title`)).toEqual(['P.2', 'P.1']);
    expect(await list('parentId=none')).toEqual(['P', 'Q']);
    const bad = await t.request('GET', `/api/v1/tasks/project/${projectId}?parentId=nobody`, { token: cast.VIEWER.token });
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0].path).toEqual(['parentId']);
  });

  it('follow the permissions of task writes: VIEWERs cannot set a parent, non-members get 404', async () => {
    const parent = await createTask(t, cast.EDITOR, projectId);
    const task = await createTask(t, cast.EDITOR, projectId);
    expect((await patch(task.id, { parentId: parent.id }, cast.VIEWER)).status).toBe(403);
    expect((await patch(task.id, { parentId: parent.id }, outsider)).status).toBe(404);
    expect((await t.request('POST', '/api/v1/tasks', { token: outsider.token, body: { title: 'X', projectId, parentId: parent.id } })).status).toBe(404);
    // A refused write's parent check comes after its access check: a VIEWER naming a foreign parent gets 403.
    expect((await patch(task.id, { parentId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b' }, cast.VIEWER)).status).toBe(403);
    for (const role of ['EDITOR', 'ADMIN', 'owner'] as const) expect((await patch(task.id, { parentId: parent.id }, cast[role])).status).toBe(200);
  });

  it('survive their parent’s deletion, detached, each detachment recorded', async () => {
    const parent = await createTask(t, cast.EDITOR, projectId, { title: 'Going' });
    const children = [await createTask(t, cast.EDITOR, projectId, { parentId: parent.id }), await createTask(t, cast.EDITOR, projectId, { parentId: parent.id })];
    expect((await t.request('DELETE', `/api/v1/tasks/${parent.id}`, { token: cast.EDITOR.token })).status).toBe(200);
    for (const child of children) {
      const after = await t.request('GET', `/api/v1/tasks/${child.id}`, { token: cast.VIEWER.token });
      expect(after.status).toBe(200);
      expect(after.body.parentId).toBeNull();
      const history = await t.request('GET', `/api/v1/tasks/${child.id}/activity`, { token: cast.VIEWER.token });
      expect(history.body[0]).toMatchObject({ type: 'task.updated', actorId: cast.EDITOR.id, changes: { parentId: { old: parent.id, new: null } } });
    }
  });
});

describe('a parent change in history and webhooks', () => {
  let receiver: ReturnType<typeof startReceiver>;
  let secret = '';
  beforeEach(async () => {
    receiver = startReceiver(() => secret);
    await receiver.start();
  });
  afterEach(() => receiver.stop());

  it('shows old and new parentId, like any other field', async () => {
    const hook = await t.request('POST', `/api/v1/projects/${projectId}/webhooks`, { token: cast.owner.token, body: { url: receiver.url, events: ['task.updated'] } });
    secret = hook.body.secret;
    const first = await createTask(t, cast.EDITOR, projectId, { title: 'First parent' });
    const second = await createTask(t, cast.EDITOR, projectId, { title: 'Second parent' });
    const child = await createTask(t, cast.EDITOR, projectId, { title: 'Moving', parentId: first.id });
    expect((await patch(child.id, { parentId: second.id })).status).toBe(200);

    const history = await t.request('GET', `/api/v1/tasks/${child.id}/activity`, { token: cast.VIEWER.token });
    expect(history.body[0]).toMatchObject({ type: 'task.updated', changes: { parentId: { old: first.id, new: second.id } }, resource: { parentId: second.id } });
    await expect.poll(() => receiver.received.length).toBeGreaterThanOrEqual(1);
    expect(receiver.received[0]!.signatureValid).toBe(true);
    expect(receiver.received[0]!.body).toMatchObject({ type: 'task.updated', taskId: child.id, changes: { parentId: { old: first.id, new: second.id } } });
  });
});
