import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from '../harness';

// The `q` search answers from each task as it is now, in a project's list and across projects.
describe('the q search follows every change of a task', () => {
  let t: TestApp;
  let owner: TestUser;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Searcher');
    projectId = (await createProject(t, owner, 'Search')).id;
  });
  afterAll(() => t.close());

  const found = async (q: string, project = projectId) => {
    const response = await t.request('GET', `/api/v1/tasks/project/${project}?limit=100&q=${encodeURIComponent(q)}`, { token: owner.token });
    expect(response.status).toBe(200);
    return (response.body as { id: string }[]).map((task) => task.id).sort();
  };
  const patch = (taskId: string, body: Record<string, unknown>) => t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: owner.token, body });

  it('finds a task by the title and description it has now, not those it had', async () => {
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
    const task = await createTask(t, owner, projectId, { title: 'Albatross' });
    const stale = (await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).headers.etag as string;
    expect((await patch(task.id, { title: 'Albatross wandering' })).status).toBe(200);
    const refused = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { title: 'Cormorant' }, headers: { 'if-match': stale } });
    expect(refused.status).toBe(412);
    expect(await found('albatross wandering')).toEqual([task.id]);
    expect(await found('cormorant')).toEqual([]);
  });

  it('racing title changes of one task leave it found by the title it ends with', async () => {
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
