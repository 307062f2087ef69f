import { TASK_STATUSES } from '@tasklane/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../checks';
import { createProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from '../harness';

// GET /projects/{id}'s taskCounts are kept by the database as tasks change (not counted per read):
// after every kind of change, and after racing ones, they must equal a count of the tasks themselves.
describe('taskCounts of GET /projects/{id} follow every change of the tasks', () => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Counter');
  });
  afterAll(() => t.close());

  const countsOf = async (projectId: string) => {
    const response = await t.request('GET', `/api/v1/projects/${projectId}`, { token: owner.token });
    expect(response.status).toBe(200);
    return response.body.taskCounts as Record<string, number>;
  };

  /** What the counts must be: the project's tasks, listed page by page and counted here. */
  const countedFromList = async (projectId: string) => {
    const counts: Record<string, number> = Object.fromEntries(TASK_STATUSES.map((status) => [status, 0]));
    let url: string | undefined = `/api/v1/tasks/project/${projectId}?limit=100`;
    while (url) {
      const page: Awaited<ReturnType<TestApp['request']>> = await t.request('GET', url, { token: owner.token });
      expect(page.status).toBe(200);
      for (const task of page.body as { status: string }[]) counts[task.status]! += 1;
      url = /<([^>]+)>;\s*rel="next"/.exec(String(page.headers.link ?? ''))?.[1];
    }
    return counts;
  };

  const setStatus = (taskId: string, status: string) =>
    t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: owner.token, body: { status } });

  it('starts at zero and follows creates, status changes both ways and deletes', async () => {
    const projectId = (await createProject(t, owner, 'Counts')).id;
    expect(await countsOf(projectId)).toEqual({ TODO: 0, IN_PROGRESS: 0, IN_REVIEW: 0, DONE: 0, CANCELLED: 0 });

    const first = await createTask(t, owner, projectId);
    const second = await createTask(t, owner, projectId, { status: 'DONE' });
    await createTask(t, owner, projectId, { status: 'IN_REVIEW' });
    expect(await countsOf(projectId)).toEqual({ TODO: 1, IN_PROGRESS: 0, IN_REVIEW: 1, DONE: 1, CANCELLED: 0 });

    expect((await setStatus(first.id, 'CANCELLED')).status).toBe(200);
    expect((await setStatus(second.id, 'TODO')).status).toBe(200);
    // A change that leaves the status as it was moves nothing.
    expect((await t.request('PATCH', `/api/v1/tasks/${second.id}`, { token: owner.token, body: { title: 'Renamed', status: 'TODO' } })).status).toBe(200);
    expect(await countsOf(projectId)).toEqual({ TODO: 1, IN_PROGRESS: 0, IN_REVIEW: 1, DONE: 0, CANCELLED: 1 });

    expect((await t.request('DELETE', `/api/v1/tasks/${first.id}`, { token: owner.token })).status).toBe(200);
    expect(await countsOf(projectId)).toEqual({ TODO: 1, IN_PROGRESS: 0, IN_REVIEW: 1, DONE: 0, CANCELLED: 0 });
    expect(await countsOf(projectId)).toEqual(await countedFromList(projectId));
  });

  it('a refused change (stale If-Match, bad input) moves no count', async () => {
    const projectId = (await createProject(t, owner, 'Refused')).id;
    const task = await createTask(t, owner, projectId);
    const stale = await t.request('PATCH', `/api/v1/tasks/${task.id}`, {
      token: owner.token,
      body: { status: 'DONE' },
      headers: { 'if-match': '"2000-01-01T00:00:00.000Z"' },
    });
    expect(stale.status).toBe(412);
    expect((await setStatus(task.id, 'FINISHED')).status).toBe(400);
    expect(await countsOf(projectId)).toEqual({ TODO: 1, IN_PROGRESS: 0, IN_REVIEW: 0, DONE: 0, CANCELLED: 0 });
  });

  it('stays exact under racing opposite status changes, creates and deletes, with every request answered', async () => {
    const projectId = (await createProject(t, owner, 'Race')).id;
    const todo = await Promise.all(Array.from({ length: 8 }, () => createTask(t, owner, projectId)));
    const done = await Promise.all(Array.from({ length: 8 }, () => createTask(t, owner, projectId, { status: 'DONE' })));
    const responses = await Promise.all([
      ...todo.map((task) => setStatus(task.id, 'DONE')),
      ...done.map((task) => setStatus(task.id, 'TODO')),
      ...Array.from({ length: 6 }, () => t.request('POST', '/api/v1/tasks', { token: owner.token, body: { projectId, title: 'Racing', status: 'IN_PROGRESS' } })),
      ...todo.slice(0, 3).map((task) => t.request('DELETE', `/api/v1/tasks/${task.id}`, { token: owner.token })),
    ]);
    // Every racing request got a real answer: done, or a deleted task's 404 — never a 500 (deadlock).
    for (const response of responses) expect([200, 201, 404]).toContain(response.status);
    const counts = await countsOf(projectId);
    expect(counts).toEqual(await countedFromList(projectId));
    expect(Object.values(counts).reduce((sum, n) => sum + n, 0)).toBe(8 + 8 + 6 - 3);
  });

  it('counts only its own project, and a deleted project takes its counts along', async () => {
    const kept = (await createProject(t, owner, 'Kept')).id;
    const gone = (await createProject(t, owner, 'Gone')).id;
    await createTask(t, owner, kept, { status: 'IN_PROGRESS' });
    await createTask(t, owner, gone, { status: 'IN_PROGRESS' });
    await createTask(t, owner, gone);
    expect((await t.request('DELETE', `/api/v1/projects/${gone}`, { token: owner.token })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/projects/${gone}`, { token: owner.token })).status).toBe(404);
    expect(await countsOf(kept)).toEqual({ TODO: 0, IN_PROGRESS: 1, IN_REVIEW: 0, DONE: 0, CANCELLED: 0 });
    expect(await queryRows(t, `select * from project_task_counts where project_id = '${gone}'`)).toEqual([]);
  });
});
