import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../checks';
import { createProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from '../harness';

// The `q` search reads a copy of each task's title and description (task_texts, migration 0005),
// which triggers keep in the writing transaction. Whatever changes a task, the search must answer
// from the task as it is now, and nothing may be left behind for a task that is gone.
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
  const textRows = (taskIds: string[]) =>
    queryRows(t, `select task_id from task_texts where task_id in (${taskIds.map((id) => `'${id}'`).join(', ')})`);

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

    // A change of the status alone leaves the text as it was, still found.
    expect((await patch(task.id, { status: 'IN_PROGRESS' })).status).toBe(200);
    expect(await found('penguin census')).toEqual([task.id]);
    expect(await found('nothing to see')).toEqual([other.id]);
  });

  it('a refused change leaves the search as it was', async () => {
    const task = await createTask(t, owner, projectId, { title: 'Albatross' });
    const stale = '"2000-01-01T00:00:00.000Z"';
    const refused = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { title: 'Cormorant' }, headers: { 'if-match': stale } });
    expect(refused.status).toBe(412);
    expect((await patch(task.id, { title: '' })).status).toBe(400);
    expect(await found('albatross')).toEqual([task.id]);
    expect(await found('cormorant')).toEqual([]);
  });

  it('a deleted task, and every task of a deleted project, leaves no text behind', async () => {
    const task = await createTask(t, owner, projectId, { title: 'Ephemeral heron' });
    expect(await found('heron')).toEqual([task.id]);
    expect((await t.request('DELETE', `/api/v1/tasks/${task.id}`, { token: owner.token })).status).toBe(200);
    expect(await found('heron')).toEqual([]);
    expect(await textRows([task.id])).toEqual([]);

    const gone = (await createProject(t, owner, 'Gone')).id;
    const inGone = [await createTask(t, owner, gone, { title: 'Heron one' }), await createTask(t, owner, gone, { title: 'Heron two' })];
    expect(await found('heron', gone)).toEqual(inGone.map((each) => each.id).sort());
    expect(await textRows(inGone.map((each) => each.id))).toHaveLength(2);
    expect((await t.request('DELETE', `/api/v1/projects/${gone}`, { token: owner.token })).status).toBe(200);
    expect(await textRows(inGone.map((each) => each.id))).toEqual([]);
  });

  it('holds exactly one copy per task, equal to the task, after all of the above', async () => {
    const mismatched = await queryRows(
      t,
      `select coalesce(t.id, x.task_id) as id from tasks t full join task_texts x on x.task_id = t.id
       where t.id is null or x.task_id is null or x.title <> t.title or x.description <> t.description`,
    );
    expect(mismatched).toEqual([]);
    const [copies] = await queryRows<{ n: number }>(t, 'select count(*)::int as n from task_texts');
    expect(copies!.n).toBeGreaterThanOrEqual(3);
  });
});
