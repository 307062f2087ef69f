import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectErrorBody } from './support/checks';
import { castProject, createProject, createTask, registerUser, startTestApp, type TestApp, type TestResponse, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';
import { startReceiver } from './support/webhook-receiver';

interface State {
  id: string;
  projectId: string;
  key: string;
  name: string;
  category: string;
  color: string;
  position: number;
  createdAt: string;
  updatedAt: string;
}

const DEFAULTS = [
  { key: 'TODO', name: 'To do', category: 'unstarted', color: '#6b7280', position: 0 },
  { key: 'IN_PROGRESS', name: 'In progress', category: 'started', color: '#2563eb', position: 1 },
  { key: 'IN_REVIEW', name: 'In review', category: 'started', color: '#9333ea', position: 2 },
  { key: 'DONE', name: 'Done', category: 'completed', color: '#16a34a', position: 3 },
  { key: 'CANCELLED', name: 'Cancelled', category: 'cancelled', color: '#dc2626', position: 4 },
];

/** A 400 whose issues name `field`, with `reason` when given. */
function expectFieldRefused(response: TestResponse, field: string, reason?: string): void {
  expectErrorBody(response, 400, { ...(reason ? { reason } : {}), issues: expect.arrayContaining([expect.objectContaining({ path: expect.arrayContaining([field]) })]) });
}

describe('workflow states', () => {
  let t: TestApp;
  let owner: TestUser;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    admin = await registerUser(t, 'Admin');
    editor = await registerUser(t, 'Editor');
    viewer = await registerUser(t, 'Viewer');
    outsider = await registerUser(t, 'Outsider');
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    projectId = (await castProject(t, { owner, ADMIN: admin, EDITOR: editor, VIEWER: viewer }, 'Flow')).projectId;
  });

  const states = (path = '') => `/api/v1/projects/${projectId}/states${path}`;
  const list = async (user = viewer): Promise<State[]> => {
    const response = await t.request('GET', states(), { token: user.token });
    expect(response.status).toBe(200);
    return response.body;
  };
  const create = (body: Record<string, unknown>, user = admin) => t.request('POST', states(), { token: user.token, body });
  const patch = (stateId: string, body: Record<string, unknown>, user = admin) => t.request('PATCH', states(`/${stateId}`), { token: user.token, body });
  const remove = (stateId: string, query = '', user = admin) => t.request('DELETE', states(`/${stateId}${query}`), { token: user.token });
  const stateId = async (key: string) => (await list()).find((state) => state.key === key)!.id;
  const counts = async () => (await t.request('GET', `/api/v1/projects/${projectId}`, { token: viewer.token })).body.taskCounts;
  const tasksWith = async (query: string) =>
    ((await t.request('GET', `/api/v1/tasks/project/${projectId}?${query}`, { token: viewer.token })).body as { title: string }[]).map((task) => task.title).sort();

  it('gives a new project the five default states, in board order, to every member', async () => {
    const read = await list();
    expect(read).toMatchObject(DEFAULTS.map((state) => ({ ...state, projectId })));
    expect(await counts()).toEqual({ TODO: 0, IN_PROGRESS: 0, IN_REVIEW: 0, DONE: 0, CANCELLED: 0 });
    expect(Object.keys(await counts())).toEqual(DEFAULTS.map((state) => state.key));
  });

  it('creates a state at the end of the board, with a key derived from its name or given, and the category colour by default', async () => {
    const qa = await create({ name: 'In QA ', category: 'started' });
    expect(qa.status).toBe(201);
    expect(qa.body).toMatchObject({ key: 'IN_QA', name: 'In QA', category: 'started', color: '#2563eb', position: 5 });
    expect(qa.headers.etag).toBeDefined();
    expect((await create({ name: 'Blocked — waiting on café', category: 'backlog', color: '#ABCDEF' }, owner)).body).toMatchObject({
      key: 'BLOCKED_WAITING_ON_CAFE',
      color: '#abcdef',
      position: 6,
    });
    expect((await create({ name: 'Icebox', category: 'backlog', key: 'ICE_2' })).body).toMatchObject({ key: 'ICE_2', name: 'Icebox' });
    expect((await create({ name: 'A very long name for a state, longer than thirty', category: 'started' })).body.key).toBe('A_VERY_LONG_NAME_FOR_A_STATE_L');
    expect((await list()).map((state) => state.key)).toEqual([...DEFAULTS.map((state) => state.key), 'IN_QA', 'BLOCKED_WAITING_ON_CAFE', 'ICE_2', 'A_VERY_LONG_NAME_FOR_A_STATE_L']);
    expect((await list()).map((state) => state.position)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('refuses a key the project already has (409 STATE_EXISTS), bad keys, colours and categories (400 naming the field)', async () => {
    expectErrorBody(await create({ name: 'Done', category: 'completed' }), 409, { reason: 'STATE_EXISTS' });
    expectErrorBody(await create({ name: 'Finished', key: 'DONE', category: 'completed' }), 409, { reason: 'STATE_EXISTS' });
    expectFieldRefused(await create({ name: 'x', key: 'lower', category: 'started' }), 'key');
    expectFieldRefused(await create({ name: 'x', key: 'A__B', category: 'started' }), 'key');
    expectFieldRefused(await create({ name: 'x', key: 'A'.repeat(31), category: 'started' }), 'key');
    expectFieldRefused(await create({ name: '🚀', category: 'started' }), 'key');
    expectFieldRefused(await create({ name: 'x', category: 'doing' }), 'category');
    expectFieldRefused(await create({ name: 'x', category: 'started', color: 'red' }), 'color');
    // Another project may have the same key.
    const other = (await createProject(t, owner, 'Other')).id;
    expect((await t.request('POST', `/api/v1/projects/${other}/states`, { token: owner.token, body: { name: 'In QA', category: 'started' } })).status).toBe(201);
    expect((await create({ name: 'In QA', category: 'started' })).status).toBe(201);
  });

  it('renames, recolours and reorders (the others shift), never changing the key', async () => {
    const review = await stateId('IN_REVIEW');
    const renamed = await patch(review, { name: 'Code review', color: '#F59E0B' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ key: 'IN_REVIEW', name: 'Code review', color: '#f59e0b', position: 2 });
    expectFieldRefused(await patch(review, { key: 'REVIEW' }), 'key');

    expect((await patch(review, { position: 0 })).body.position).toBe(0);
    expect((await list()).map((state) => `${state.position}:${state.key}`)).toEqual(['0:IN_REVIEW', '1:TODO', '2:IN_PROGRESS', '3:DONE', '4:CANCELLED']);
    expect((await patch(await stateId('TODO'), { position: 40 })).body.position).toBe(4);
    expect((await list()).map((state) => state.key)).toEqual(['IN_REVIEW', 'IN_PROGRESS', 'DONE', 'CANCELLED', 'TODO']);
    expect((await patch(await stateId('TODO'), { position: 1 })).body.position).toBe(1);
    expect((await list()).map((state) => state.key)).toEqual(['IN_REVIEW', 'TODO', 'IN_PROGRESS', 'DONE', 'CANCELLED']);
    expect(Object.keys(await counts())).toEqual(['IN_REVIEW', 'TODO', 'IN_PROGRESS', 'DONE', 'CANCELLED']);
    expect((await patch('0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b', { name: 'Nobody' })).status).toBe(404);
    const one = await t.request('GET', states(`/${review}`), { token: viewer.token });
    expect(one.body).toMatchObject({ key: 'IN_REVIEW', name: 'Code review', position: 0 });
    expect(one.headers.etag).toBeDefined();
    expect((await t.request('GET', states('/0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b'), { token: viewer.token })).status).toBe(404);
  });

  it('deletes a state, moving its tasks in the same transaction; counts follow; without moveTo a state holding tasks is 409 STATE_IN_USE', async () => {
    const a = await createTask(t, editor, projectId, { title: 'a', status: 'IN_REVIEW' });
    await createTask(t, editor, projectId, { title: 'b', status: 'IN_REVIEW' });
    await createTask(t, editor, projectId, { title: 'c', status: 'TODO' });
    const review = await stateId('IN_REVIEW');

    expectErrorBody(await remove(review), 409, { reason: 'STATE_IN_USE' });
    expectFieldRefused(await remove(review, '?moveTo=NOWHERE'), 'moveTo', 'UNKNOWN_STATE');
    expectFieldRefused(await remove(review, '?moveTo=IN_REVIEW'), 'moveTo', 'UNKNOWN_STATE');
    expect(await counts()).toMatchObject({ IN_REVIEW: 2, DONE: 0 });

    expect((await remove(review, '?moveTo=DONE')).body).toEqual({ message: 'State deleted' });
    expect((await list()).map((state) => `${state.position}:${state.key}`)).toEqual(['0:TODO', '1:IN_PROGRESS', '2:DONE', '3:CANCELLED']);
    expect(await counts()).toEqual({ TODO: 1, IN_PROGRESS: 0, DONE: 2, CANCELLED: 0 });
    expect(await tasksWith('status=DONE')).toEqual(['a', 'b']);
    const moved = (await t.request('GET', `/api/v1/tasks/${a.id}`, { token: viewer.token })).body;
    expect(moved).toMatchObject({ status: 'DONE', completedAt: expect.any(String) });
    const history = (await t.request('GET', `/api/v1/tasks/${a.id}/activity`, { token: viewer.token })).body;
    expect(history[0]).toMatchObject({ type: 'task.updated', actorId: admin.id, changes: { status: { old: 'IN_REVIEW', new: 'DONE' } } });

    // An empty state goes without moveTo; the status is no longer accepted.
    const empty = (await create({ name: 'Empty', category: 'started' })).body as State;
    expect((await remove(empty.id)).status).toBe(200);
    expectFieldRefused(await t.request('POST', '/api/v1/tasks', { token: editor.token, body: { title: 'x', projectId, status: 'IN_REVIEW' } }), 'status', 'UNKNOWN_STATE');
  });

  it('keeps at least one unstarted and one completed state (409 STATE_REQUIRED), on delete and on a change of category', async () => {
    const todo = await stateId('TODO');
    const done = await stateId('DONE');
    expectErrorBody(await remove(todo), 409, { reason: 'STATE_REQUIRED' });
    expectErrorBody(await remove(done), 409, { reason: 'STATE_REQUIRED' });
    expectErrorBody(await patch(todo, { category: 'started' }), 409, { reason: 'STATE_REQUIRED' });
    expectErrorBody(await patch(done, { category: 'cancelled' }), 409, { reason: 'STATE_REQUIRED' });
    expect((await patch(done, { category: 'completed', name: 'Done!' })).status).toBe(200);
    // With a second one, the first may go.
    await create({ name: 'Shipped', category: 'completed' });
    expect((await remove(done)).status).toBe(200);
    expectErrorBody(await remove(await stateId('SHIPPED')), 409, { reason: 'STATE_REQUIRED' });
    // The cancelled and started ones are not required.
    expect((await remove(await stateId('CANCELLED'))).status).toBe(200);
    expect((await remove(await stateId('IN_PROGRESS'))).status).toBe(200);
    expect((await remove(await stateId('IN_REVIEW'))).status).toBe(200);
    expect((await list()).map((state) => `${state.position}:${state.key}`)).toEqual(['0:TODO', '1:SHIPPED']);
  });

  it('takes a task status only from the project\'s states (400 naming status), on create and PATCH; the default is the first unstarted state', async () => {
    expect((await createTask(t, editor, projectId, { title: 'default' })).status).toBe('TODO');
    await create({ name: 'Triage', category: 'unstarted' });
    await patch(await stateId('TRIAGE'), { position: 0 });
    expect((await createTask(t, editor, projectId, { title: 'triaged' })).status).toBe('TRIAGE');
    const task = await createTask(t, editor, projectId, { title: 'x', status: 'IN_PROGRESS' });

    for (const status of ['NOPE', 'done', 'In progress', '', 'A'.repeat(31)]) {
      // A well-formed key the project lacks is the server's UNKNOWN_STATE; a malformed one the schema's refusal.
      const reason = status === 'NOPE' ? 'UNKNOWN_STATE' : undefined;
      expectFieldRefused(await t.request('POST', '/api/v1/tasks', { token: editor.token, body: { title: 'x', projectId, status } }), 'status', reason);
      expectFieldRefused(await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: editor.token, body: { status } }), 'status', reason);
    }
    // A key of another project's states is no key of this one's.
    const other = (await createProject(t, owner, 'Other')).id;
    await t.request('POST', `/api/v1/projects/${other}/states`, { token: owner.token, body: { name: 'Elsewhere', category: 'started' } });
    expectFieldRefused(await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: editor.token, body: { status: 'ELSEWHERE' } }), 'status', 'UNKNOWN_STATE');
    expect((await t.request('GET', `/api/v1/tasks/${task.id}`, { token: editor.token })).body.status).toBe('IN_PROGRESS');
  });

  it('sets completedAt on entering a completed state, keeps it between completed states, clears it on leaving', async () => {
    await create({ name: 'Shipped', category: 'completed' });
    const task = await createTask(t, editor, projectId, { title: 'x' });
    const set = async (status: string) => (await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: editor.token, body: { status } })).body;
    expect((await set('IN_PROGRESS')).completedAt).toBeNull();
    const done = await set('DONE');
    expect(done.completedAt).toEqual(expect.any(String));
    expect((await set('SHIPPED')).completedAt).toBe(done.completedAt);
    expect((await set('CANCELLED')).completedAt).toBeNull();
    expect((await set('SHIPPED')).completedAt).toEqual(expect.any(String));
    expect((await set('TODO')).completedAt).toBeNull();
    const born = await createTask(t, editor, projectId, { title: 'born done', status: 'SHIPPED' });
    expect((await t.request('GET', `/api/v1/tasks/${born.id}`, { token: editor.token })).body.completedAt).toEqual(expect.any(String));
  });

  it('filters task lists by status keys and by statusCategory; an unknown key matches nothing', async () => {
    await create({ name: 'Shipped', category: 'completed' });
    for (const [title, status] of [['todo', 'TODO'], ['doing', 'IN_PROGRESS'], ['review', 'IN_REVIEW'], ['done', 'DONE'], ['shipped', 'SHIPPED'], ['dropped', 'CANCELLED']]) {
      await createTask(t, editor, projectId, { title, status });
    }
    expect(await tasksWith('status=TODO,SHIPPED')).toEqual(['shipped', 'todo']);
    expect(await tasksWith('status=NOWHERE')).toEqual([]);
    expect(await tasksWith('statusCategory=completed')).toEqual(['done', 'shipped']);
    expect(await tasksWith('statusCategory=started,cancelled')).toEqual(['doing', 'dropped', 'review']);
    expect(await tasksWith('statusCategory=completed&status=DONE,TODO')).toEqual(['done']);
    expect(await tasksWith('statusCategory=backlog')).toEqual([]);
    // Across projects too (the caller's other projects have tasks of their own).
    const mine = (await t.request('GET', '/api/v1/tasks?statusCategory=completed&limit=500', { token: editor.token })).body as { title: string; projectId: string }[];
    expect(mine.filter((task) => task.projectId === projectId).map((task) => task.title).sort()).toEqual(['done', 'shipped']);
    expectFieldRefused(await t.request('GET', `/api/v1/tasks/project/${projectId}?statusCategory=finished`, { token: viewer.token }), 'statusCategory');
    expectFieldRefused(await t.request('GET', `/api/v1/tasks/project/${projectId}?status=todo`, { token: viewer.token }), 'status');
    expect(await counts()).toEqual({ TODO: 1, IN_PROGRESS: 1, IN_REVIEW: 1, DONE: 1, CANCELLED: 1, SHIPPED: 1 });
  });

  it('lets every member read the states, only ADMIN and the owner change them (403 for EDITOR and VIEWER, 404 for non-members)', async () => {
    expect((await list(editor)).length).toBe(5);
    expect((await t.request('GET', states(), { token: outsider.token })).status).toBe(404);
    const todo = await stateId('TODO');
    for (const user of [editor, viewer]) {
      expectErrorBody(await create({ name: 'Nope', category: 'started' }, user), 403);
      expectErrorBody(await patch(todo, { name: 'Nope' }, user), 403);
      expectErrorBody(await remove(todo, '', user), 403);
    }
    expectErrorBody(await create({ name: 'Nope', category: 'started' }, outsider), 404);
    expectErrorBody(await patch(todo, { name: 'Nope' }, outsider), 404);
    expectErrorBody(await remove(todo, '', outsider), 404);
    expect((await create({ name: 'Owner made', category: 'started' }, owner)).status).toBe(201);
  });

  it('honours If-Match on PATCH and DELETE (412 when stale)', async () => {
    const created = await create({ name: 'Versioned', category: 'started' });
    const etag = created.headers.etag as string;
    const changed = await t.request('PATCH', states(`/${created.body.id}`), { token: admin.token, body: { name: 'V2' }, headers: { 'if-match': etag } });
    expect(changed.status).toBe(200);
    expect((await t.request('PATCH', states(`/${created.body.id}`), { token: admin.token, body: { name: 'V3' }, headers: { 'if-match': etag } })).status).toBe(412);
    expect((await t.request('DELETE', states(`/${created.body.id}`), { token: admin.token, headers: { 'if-match': etag } })).status).toBe(412);
    expect((await t.request('DELETE', states(`/${created.body.id}`), { token: admin.token, headers: { 'if-match': changed.headers.etag as string } })).status).toBe(200);
  });

  it('records state.created, state.updated (with the changes) and state.deleted in the project history', async () => {
    const created = (await create({ name: 'Recorded', category: 'started' })).body as State;
    await patch(created.id, { name: 'Recorded!', position: 0 });
    await remove(created.id);
    const activity = (await t.request('GET', `/api/v1/projects/${projectId}/activity`, { token: viewer.token })).body as { type: string }[];
    const events = activity.filter((event) => event.type.startsWith('state.')).reverse();
    expect(events).toMatchObject([
      { type: 'state.created', actorId: admin.id, taskId: null, resource: { id: created.id, key: 'RECORDED', position: 5 }, changes: null },
      { type: 'state.updated', resource: { name: 'Recorded!', position: 0 }, changes: { name: { old: 'Recorded', new: 'Recorded!' }, position: { old: 5, new: 0 } } },
      { type: 'state.deleted', resource: { id: created.id, key: 'RECORDED' }, changes: null },
    ]);
  });
});

describe('workflow states: webhooks', () => {
  let t: TestApp;
  let owner: TestUser;
  let secret = '';
  const receiver = startReceiver(() => secret);

  beforeAll(async () => {
    t = await startTestApp({ dispatch: { enabled: true, pollMs: 200, settleMs: 2000 } });
    owner = await registerUser(t, 'Owner');
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
  });
  afterEach(() => {
    receiver.received.length = 0;
  });

  it('delivers state changes, and the task updates of a delete with a move, to a project webhook', async () => {
    const projectId = (await createProject(t, owner, 'Hooked')).id;
    const hook = await t.request('POST', `/api/v1/projects/${projectId}/webhooks`, {
      token: owner.token,
      body: { url: receiver.url, events: ['state.created', 'state.updated', 'state.deleted', 'task.updated'] },
    });
    secret = hook.body.secret;
    const task = await createTask(t, owner, projectId, { title: 'Hooked', status: 'IN_REVIEW' });
    const created = await t.request('POST', `/api/v1/projects/${projectId}/states`, { token: owner.token, body: { name: 'Hooked state', category: 'started', color: '#123456' } });
    await t.request('PATCH', `/api/v1/projects/${projectId}/states/${created.body.id}`, { token: owner.token, body: { color: '#654321' } });
    const review = ((await t.request('GET', `/api/v1/projects/${projectId}/states`, { token: owner.token })).body as State[]).find((state) => state.key === 'IN_REVIEW')!;
    await t.request('DELETE', `/api/v1/projects/${projectId}/states/${review.id}?moveTo=HOOKED_STATE`, { token: owner.token });

    await expect.poll(() => receiver.received.length).toBe(4);
    expect(receiver.received.every((delivery) => delivery.signatureValid)).toBe(true);
    // Delivered concurrently (in order per task only): read in the order of the events.
    const bodies = receiver.received.map((delivery) => delivery.body).sort((a, b) => Number(a.id) - Number(b.id));
    expect(bodies).toMatchObject([
      { type: 'state.created', resource: { key: 'HOOKED_STATE', color: '#123456' } },
      { type: 'state.updated', resource: { key: 'HOOKED_STATE', color: '#654321' }, changes: { color: { old: '#123456', new: '#654321' } } },
      { type: 'task.updated', taskId: task.id, resource: { status: 'HOOKED_STATE' }, changes: { status: { old: 'IN_REVIEW', new: 'HOOKED_STATE' } } },
      { type: 'state.deleted', resource: { key: 'IN_REVIEW' } },
    ]);
  });
});

describePermissions(['GET /projects/{id}/states', 'POST /projects/{id}/states', 'GET /projects/{id}/states/{stateId}', 'PATCH /projects/{id}/states/{stateId}', 'DELETE /projects/{id}/states/{stateId}']);
