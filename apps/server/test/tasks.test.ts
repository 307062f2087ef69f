import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { temporaryDataDir, upload } from './support/attachments';
import { describePermissions } from './support/permissions';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const TASK_KEYS = ['assigneeId', 'attachmentCount', 'blocked', 'commentCount', 'completedAt', 'createdAt', 'createdById', 'description', 'dueDate', 'estimate', 'fields', 'id', 'key', 'labelIds', 'nextDueDate', 'number', 'parentId', 'position', 'priority', 'projectId', 'recurredFromId', 'recurrence', 'startDate', 'status', 'subtaskCount', 'subtasksDone', 'timeSpentMinutes', 'title', 'updatedAt'];

describe('tasks: create, list, get, update, delete', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** A project of the test's own: its owner, and a colleague who is an EDITOR there. */
  async function engine() {
    const owner = await registerUser(t, 'Ada Lovelace');
    const colleague = await registerUser(t, 'Grace Hopper');
    const projectId = (await createProject(t, owner, 'Engine')).id;
    await invite(t, owner, projectId, colleague, 'EDITOR');
    return { owner, colleague, projectId };
  }

  it('creates a task with defaults: TODO, MEDIUM, nulls where unset (201)', async () => {
    const { colleague, projectId } = await engine();
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
  });
  it('creates a task with every field; due date normalised to UTC', async () => {
    const { owner, colleague, projectId } = await engine();
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
    const { owner, colleague, projectId } = await engine();
    const response = await t.request('POST', '/api/v1/tasks', {
      token: owner.token,
      body: { title: 'Upper-case ids', projectId: projectId.toUpperCase(), assigneeId: colleague.id.toUpperCase() },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ projectId, assigneeId: colleague.id });
    const read = await t.request('GET', `/api/v1/tasks/${response.body.id}`, { token: owner.token });
    expect(read.body).toEqual(response.body);
    // The project's page, named in capitals in the path, and the cross-project list agree with it.
    const page = await t.request('GET', `/api/v1/tasks/project/${projectId.toUpperCase()}?limit=100`, { token: owner.token });
    expect(page.body.find((task: { id: string }) => task.id === response.body.id)).toEqual(response.body);
    const across = await t.request('GET', '/api/v1/tasks?limit=100', { token: owner.token });
    expect(across.body.find((task: { id: string }) => task.id === response.body.id)).toEqual(response.body);
    await t.request('DELETE', `/api/v1/tasks/${response.body.id}`, { token: owner.token });
  });
  it('reads back due dates at the edges of the accepted years the same through every read', async () => {
    const { owner, projectId } = await engine();
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
    const { owner, colleague, projectId } = await engine();
    await t.request('POST', '/api/v1/tasks', { token: colleague.token, body: { title: 'Punch cards', projectId } });
    await createTask(t, owner, projectId, { title: 'Bernoulli numbers' });
    const response = await t.request('GET', `/api/v1/tasks/project/${projectId}`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body.map((task: { title: string }) => task.title)).toEqual(['Punch cards', 'Bernoulli numbers']);
    for (const task of response.body) expect(Object.keys(task).sort()).toEqual(TASK_KEYS);
  });
  it('gets one task', async () => {
    const { colleague, projectId } = await engine();
    const taskId = (await createTask(t, colleague, projectId, { title: 'Punch cards' })).id;
    const response = await t.request('GET', `/api/v1/tasks/${taskId}`, { token: colleague.token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: taskId, title: 'Punch cards' });
  });
  it('updates a task with only status; completedAt follows DONE', async () => {
    const { owner, colleague, projectId } = await engine();
    const taskId = (await createTask(t, colleague, projectId, { title: 'Punch cards' })).id;
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
  it('deletes a task', async () => {
    const { colleague, projectId } = await engine();
    const taskId = (await createTask(t, colleague, projectId, { title: 'Punch cards' })).id;
    const response = await t.request('DELETE', `/api/v1/tasks/${taskId}`, { token: colleague.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Task deleted' });
    expect((await t.request('GET', `/api/v1/tasks/${taskId}`, { token: colleague.token })).status).toBe(404);
  });
});

// The `q` search answers from each task as it is now, in a project's list and across projects.
describe('tasks: attachmentCount', () => {
  let t: TestApp;
  let dataDir: { dir: string; remove: () => void };
  let owner: TestUser;

  beforeAll(async () => {
    dataDir = temporaryDataDir();
    t = await startTestApp({ dataDir: dataDir.dir });
    owner = await registerUser(t, 'Owner');
  });
  afterAll(async () => {
    await t.close();
    dataDir.remove();
  });

  it('counts the files attached to the task on every read: get, lists, tRPC, after an upload and a delete', async () => {
    const projectId = (await createProject(t, owner)).id;
    const created = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: 'With files', projectId } });
    expect(created.body.attachmentCount).toBe(0);
    const task = created.body as { id: string };
    const other = await createTask(t, owner, projectId, { title: 'Without' });
    const ids: string[] = [];
    // the same bytes twice are two attachments (stored once)
    for (const [name, content] of [['a.txt', 'one'], ['b.txt', 'two'], ['c.txt', 'one']] as const) {
      const response = await upload(t, owner.token, task.id, name, content);
      expect(response.status).toBe(201);
      ids.push(response.body.id);
    }
    const counts = async () => {
      const single = (await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).body.attachmentCount;
      const listed = ((await t.request('GET', `/api/v1/tasks/project/${projectId}`, { token: owner.token })).body as { id: string; attachmentCount: number }[]).map((x) => [x.id, x.attachmentCount]);
      const across = ((await t.request('GET', '/api/v1/tasks', { token: owner.token })).body as { id: string; attachmentCount: number }[]).find((x) => x.id === task.id)?.attachmentCount;
      const trpc = (await t.request('GET', `/api/trpc/tasks.get?input=${encodeURIComponent(JSON.stringify({ id: task.id }))}`, { token: owner.token })).body.result.data.attachmentCount;
      return { single, listed, across, trpc };
    };
    expect(await counts()).toEqual({ single: 3, listed: [[task.id, 3], [other.id, 0]], across: 3, trpc: 3 });
    expect((await t.request('DELETE', `/api/v1/attachments/${ids[0]}`, { token: owner.token })).status).toBe(200);
    expect((await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { title: 'Still with files' } })).body.attachmentCount).toBe(2);
    expect(await counts()).toEqual({ single: 2, listed: [[task.id, 2], [other.id, 0]], across: 2, trpc: 2 });
  });
});

describe('the q search follows every change of a task', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** A searcher of the test's own, with a project, and how it searches and changes its tasks. */
  async function searcher() {
    const owner = await registerUser(t, 'Searcher');
    const projectId = (await createProject(t, owner, 'Search')).id;
    const found = async (q: string) => {
      const response = await t.request('GET', `/api/v1/tasks/project/${projectId}?limit=100&q=${encodeURIComponent(q)}`, { token: owner.token });
      expect(response.status).toBe(200);
      return (response.body as { id: string }[]).map((task) => task.id).sort();
    };
    const patch = (taskId: string, body: Record<string, unknown>) => t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: owner.token, body });
    return { owner, projectId, found, patch };
  }

  it('finds a task by the title and description it has now, not those it had', async () => {
    const { owner, projectId, found, patch } = await searcher();
    const task = await createTask(t, owner, projectId, { title: 'Walrus migration', description: 'Count the narwhals' });
    const other = await createTask(t, owner, projectId, { title: 'Unrelated', description: 'Nothing to see' });
    expect(await found('walrus')).toEqual([task.id]);
    expect(await found('NARWHAL')).toEqual([task.id]);

    expect((await patch(task.id, { title: 'Penguin census' })).status).toBe(200);
    expect(await found('walrus')).toEqual([]);
    expect(await found('penguin')).toEqual([task.id]);
    expect(await found('narwhal')).toEqual([task.id]);

    expect((await patch(task.id, { description: 'Count the puffins' })).status).toBe(200);
    expect(await found('narwhal')).toEqual([]);
    expect(await found('puffin')).toEqual([task.id]);

    expect((await patch(task.id, { status: 'IN_PROGRESS' })).status).toBe(200);
    expect(await found('penguin census')).toEqual([task.id]);
    expect(await found('nothing to see')).toEqual([other.id]);
  });

  it('the cross-project list (GET /tasks) searches the same way, with % and _ taken literally', async () => {
    const { owner, projectId } = await searcher();
    const second = (await createProject(t, owner, 'Second search')).id;
    const here = await createTask(t, owner, projectId, { title: 'Gannet 100% done', assigneeId: owner.id });
    const there = await createTask(t, owner, second, { description: 'a gannet_colony count', assigneeId: owner.id });
    const across = async (q: string) => {
      const response = await t.request('GET', `/api/v1/tasks?assigneeId=me&limit=100&q=${encodeURIComponent(q)}`, { token: owner.token });
      expect(response.status).toBe(200);
      return (response.body as { id: string }[]).map((task) => task.id).sort();
    };
    expect(await across('GANNET')).toEqual([here.id, there.id].sort());
    expect(await across('100%')).toEqual([here.id]);
    expect(await across('gannet_')).toEqual([there.id]);
    expect(await across('gannet%colony')).toEqual([]);
  });

  it('a change refused for a stale If-Match leaves the search as it was', async () => {
    const { owner, projectId, found, patch } = await searcher();
    const task = await createTask(t, owner, projectId, { title: 'Albatross' });
    const stale = (await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).headers.etag as string;
    expect((await patch(task.id, { title: 'Albatross wandering' })).status).toBe(200);
    const refused = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { title: 'Cormorant' }, headers: { 'if-match': stale } });
    expect(refused.status).toBe(412);
    expect(await found('albatross wandering')).toEqual([task.id]);
    expect(await found('cormorant')).toEqual([]);
  });

  it('racing title changes of one task leave it found by the title it ends with', async () => {
    const { owner, projectId, found, patch } = await searcher();
    const task = await createTask(t, owner, projectId, { title: 'Race start' });
    const titles = Array.from({ length: 8 }, (_, n) => `Racing tern ${n}`);
    const results = await Promise.all(titles.map((title) => patch(task.id, { title })));
    expect(results.map((result) => result.status)).toEqual(titles.map(() => 200));
    const final = (await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).body as { title: string };
    expect(titles).toContain(final.title);
    expect(await found(final.title)).toEqual([task.id]);
    expect(await found('race start')).toEqual([]);
  });

  it('a deleted task, and the tasks of a deleted project, are no longer found', async () => {
    const { owner, projectId, found } = await searcher();
    const task = await createTask(t, owner, projectId, { title: 'Ephemeral heron' });
    expect(await found('heron')).toEqual([task.id]);
    expect((await t.request('DELETE', `/api/v1/tasks/${task.id}`, { token: owner.token })).status).toBe(200);
    expect(await found('heron')).toEqual([]);

    const gone = (await createProject(t, owner, 'Gone')).id;
    await createTask(t, owner, gone, { title: 'Heron one', assigneeId: owner.id });
    const across = await t.request('GET', `/api/v1/tasks?assigneeId=me&limit=100&q=heron`, { token: owner.token });
    expect((across.body as unknown[]).length).toBe(1);
    expect((await t.request('DELETE', `/api/v1/projects/${gone}`, { token: owner.token })).status).toBe(200);
    const after = await t.request('GET', `/api/v1/tasks?assigneeId=me&limit=100&q=heron`, { token: owner.token });
    expect(after.body).toEqual([]);
  });
});

describe('ETag and If-Match: no silent lost updates', () => {
  let t: TestApp;
  let owner: TestUser;
  let editor: TestUser;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp();
    [owner, editor] = await Promise.all([registerUser(t, 'Owner'), registerUser(t, 'Editor')]);
    projectId = (await createProject(t, owner)).id;
    await invite(t, owner, projectId, editor, 'EDITOR');
  });
  afterAll(() => t.close());

  const getTask = (id: string) => t.request('GET', `/api/v1/tasks/${id}`, { token: owner.token });
  const patchTask = (user: TestUser, id: string, body: unknown, ifMatch?: string) =>
    t.request('PATCH', `/api/v1/tasks/${id}`, { token: user.token, body, ...(ifMatch ? { headers: { 'if-match': ifMatch } } : {}) });

  it('serves an ETag on GET, POST and PATCH of single resources; it changes with every write', async () => {
    const created = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: 'A', projectId } });
    const read = await getTask(created.body.id);
    expect(read.headers.etag).toMatch(/^"[0-9a-z]+"$/);
    expect(created.headers.etag).toBe(read.headers.etag);
    const etags = new Set([read.headers.etag]);
    // Writes within one millisecond still give distinct versions.
    for (let index = 0; index < 5; index += 1) etags.add((await patchTask(owner, created.body.id, { title: `A${index}` })).headers.etag);
    expect(etags.size).toBe(6);
    expect((await getTask(created.body.id)).headers.etag).toBe([...etags].at(-1));

    const project = await t.request('GET', `/api/v1/projects/${projectId}`, { token: owner.token });
    expect(project.headers.etag).toMatch(/^"[0-9a-z]+"$/);
  });

  it('refuses a stale If-Match with 412 and the current ETag; a current one succeeds; without it the last write wins', async () => {
    const task = await createTask(t, owner, projectId);
    const v1 = (await getTask(task.id)).headers.etag as string;
    const first = await patchTask(owner, task.id, { title: 'first' }, v1);
    expect(first.status).toBe(200);
    const stale = await patchTask(editor, task.id, { title: 'second' }, v1);
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 'PRECONDITION_FAILED', reason: 'STALE_VERSION' });
    expect(stale.headers.etag).toBe(first.headers.etag);
    expect(stale.body.message).toContain(String(first.headers.etag));
    expect((await getTask(task.id)).body.title).toBe('first');

    for (const bogus of ['W/' + String(first.headers.etag), '"zzzzzzzzzzzzzzzz"']) {
      expect((await patchTask(editor, task.id, { title: 'x' }, bogus)).status, bogus).toBe(412);
    }
    // Not an entity tag at all: a malformed precondition, refused rather than ignored.
    expect((await patchTask(editor, task.id, { title: 'x' }, 'garbage')).status).toBe(400);
    expect((await patchTask(editor, task.id, { title: 'star' }, '*')).status).toBe(200);
    expect((await patchTask(editor, task.id, { title: 'listed' }, `"0", ${String((await getTask(task.id)).headers.etag)}`)).status).toBe(200);

    expect((await patchTask(owner, task.id, { title: 'no precondition 1' })).status).toBe(200);
    expect((await patchTask(editor, task.id, { title: 'no precondition 2' })).status).toBe(200);
    expect((await getTask(task.id)).body.title).toBe('no precondition 2');
  });

  it('decides a race of clients holding the same ETag: exactly one wins, the others get 412', async () => {
    for (let round = 0; round < 3; round += 1) {
      const task = await createTask(t, owner, projectId);
      const etag = (await getTask(task.id)).headers.etag as string;
      const results = await Promise.all(
        [owner, editor, owner, editor].map((user, index) => patchTask(user, task.id, { title: `writer ${index}` }, etag)),
      );
      const statuses = results.map((result) => result.status).sort();
      expect(statuses).toEqual([200, 412, 412, 412]);
      const winner = results.find((result) => result.status === 200)!;
      const final = await getTask(task.id);
      expect(final.body.title).toBe(winner.body.title);
      expect(final.headers.etag).toBe(winner.headers.etag);
    }
  });

  it('loses no update when concurrent read-modify-write clients retry on 412', async () => {
    const task = await createTask(t, owner, projectId, { description: '' });
    const appendMany = async (user: TestUser, mark: string, times: number) => {
      for (let done = 0; done < times; ) {
        const read = await getTask(task.id);
        const write = await patchTask(user, task.id, { description: read.body.description + mark }, read.headers.etag as string);
        if (write.status === 200) done += 1;
        else expect(write.status).toBe(412);
      }
    };
    await Promise.all([appendMany(owner, 'a', 8), appendMany(editor, 'b', 8), appendMany(owner, 'c', 8)]);
    const description = (await getTask(task.id)).body.description as string;
    expect(description).toHaveLength(24);
    for (const mark of 'abc') expect(description.split(mark)).toHaveLength(9);
  });

  it('honours If-Match on DELETE of tasks, projects and comments, and on PATCH of projects and comments', async () => {
    const task = await createTask(t, owner, projectId);
    const taskTag = (await getTask(task.id)).headers.etag as string;
    await patchTask(owner, task.id, { status: 'DONE' });
    expect((await t.request('DELETE', `/api/v1/tasks/${task.id}`, { token: owner.token, headers: { 'if-match': taskTag } })).status).toBe(412);
    const freshTaskTag = (await getTask(task.id)).headers.etag as string;
    expect((await t.request('DELETE', `/api/v1/tasks/${task.id}`, { token: owner.token, headers: { 'if-match': freshTaskTag } })).status).toBe(200);
    expect((await t.request('DELETE', `/api/v1/tasks/${task.id}`, { token: owner.token, headers: { 'if-match': freshTaskTag } })).status).toBe(404);

    const project = await createProject(t, owner, 'Versioned');
    const projectTag = (await t.request('GET', `/api/v1/projects/${project.id}`, { token: owner.token })).headers.etag as string;
    const renamed = await t.request('PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { name: 'v2' }, headers: { 'if-match': projectTag } });
    expect(renamed.status).toBe(200);
    const staleRename = await t.request('PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { name: 'v3' }, headers: { 'if-match': projectTag } });
    expect(staleRename.status).toBe(412);
    expect(staleRename.headers.etag).toBe(renamed.headers.etag);
    expect((await t.request('DELETE', `/api/v1/projects/${project.id}`, { token: owner.token, headers: { 'if-match': projectTag } })).status).toBe(412);
    expect((await t.request('GET', `/api/v1/projects/${project.id}`, { token: owner.token })).body.name).toBe('v2');
    expect((await t.request('DELETE', `/api/v1/projects/${project.id}`, { token: owner.token, headers: { 'if-match': renamed.headers.etag as string } })).status).toBe(200);

    const commentTask = await createTask(t, owner, projectId);
    const created = await t.request('POST', `/api/v1/tasks/${commentTask.id}/comments`, { token: editor.token, body: { text: 'one' } });
    const path = `/api/v1/tasks/${commentTask.id}/comments/${created.body.id}`;
    const edited = await t.request('PATCH', path, { token: editor.token, body: { text: 'two' }, headers: { 'if-match': created.headers.etag as string } });
    expect(edited.status).toBe(200);
    const staleEdit = await t.request('PATCH', path, { token: editor.token, body: { text: 'three' }, headers: { 'if-match': created.headers.etag as string } });
    expect(staleEdit.status).toBe(412);
    expect((await t.request('DELETE', path, { token: editor.token, headers: { 'if-match': created.headers.etag as string } })).status).toBe(412);
    expect((await t.request('DELETE', path, { token: owner.token, headers: { 'if-match': edited.headers.etag as string } })).status).toBe(200);
  });

  it('checks permission before the version: a VIEWER gets 403, not 412', async () => {
    const viewer = await registerUser(t);
    await invite(t, owner, projectId, viewer, 'VIEWER');
    const task = await createTask(t, owner, projectId);
    expect((await patchTask(viewer, task.id, { title: 'x' }, '"0"')).status).toBe(403);
  });
});

describePermissions(['POST /tasks', 'GET /tasks/project/{projectId}', 'GET /tasks', 'GET /tasks/{id}', 'PATCH /tasks/{id}', 'DELETE /tasks/{id}']);
