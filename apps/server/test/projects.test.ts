import { DEFAULT_STATES } from '@tasklane/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from './support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('projects: create, list, get, update, delete', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const engine = async (owner: TestUser) => {
    const response = await t.request('POST', '/api/v1/projects', { token: owner.token, body: { name: 'Engine', description: 'Difference engine' } });
    expect(response.status).toBe(201);
    return response.body as { id: string };
  };

  it('creates a project (201); the creator is owner', async () => {
    const owner = await registerUser(t, 'Ada Lovelace');
    const response = await t.request('POST', '/api/v1/projects', { token: owner.token, body: { name: 'Engine', description: 'Difference engine' } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      key: expect.stringMatching(/^ENG\d*$/),
      name: 'Engine',
      description: 'Difference engine',
      ownerId: owner.id,
      role: 'ADMIN',
      estimateUnit: 'points',
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
    });
  });

  it('lists the projects the caller is a member of, and gets one', async () => {
    const owner = await registerUser(t, 'Ada Lovelace');
    const colleague = await registerUser(t, 'Grace Hopper');
    const projectId = (await engine(owner)).id;
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
    const owner = await registerUser(t, 'Ada Lovelace');
    const projectId = (await engine(owner)).id;
    const response = await t.request('PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { name: 'Analytical Engine' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: projectId, name: 'Analytical Engine', description: 'Difference engine' });
    expect(Date.parse(response.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(response.body.createdAt));
  });

  it('deletes a project with its tasks, comments and memberships', async () => {
    const owner = await registerUser(t, 'Ada Lovelace');
    const colleague = await registerUser(t, 'Grace Hopper');
    const projectId = (await engine(owner)).id;
    await invite(t, owner, projectId, colleague, 'EDITOR');
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

  it('lists show a non-member nothing of the project', async () => {
    const [owner, viewer, outsider] = [await registerUser(t, 'owner'), await registerUser(t, 'VIEWER'), await registerUser(t, 'non-member')];
    const projectId = (await createProject(t, owner, 'Shared')).id;
    await invite(t, owner, projectId, viewer, 'VIEWER');
    const taskId = (await createTask(t, owner, projectId, { title: 'Shared task' })).id;
    const ids = (response: { body: { id: string }[] }) => response.body.map((item) => item.id);
    expect(ids(await t.request('GET', '/api/v1/projects', { token: outsider.token }))).not.toContain(projectId);
    expect(ids(await t.request('GET', '/api/v1/tasks', { token: outsider.token }))).not.toContain(taskId);
    expect(ids(await t.request('GET', '/api/v1/projects', { token: viewer.token }))).toContain(projectId);
    expect(ids(await t.request('GET', '/api/v1/tasks', { token: viewer.token }))).toContain(taskId);
  });
});

describe("every project response carries the caller's role", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('is ADMIN for the creator, on create, get, list and update', async () => {
    const owner = await registerUser(t, 'Owner');
    const created = await t.request('POST', '/api/v1/projects', { token: owner.token, body: { name: 'Roles' } });
    expect(created.body.role).toBe('ADMIN');
    const projectId = created.body.id;
    const one = await t.request('GET', `/api/v1/projects/${projectId}`, { token: owner.token });
    expect(one.body.role).toBe('ADMIN');
    const list = await t.request('GET', '/api/v1/projects', { token: owner.token });
    expect(list.body).toEqual([expect.objectContaining({ id: projectId, role: 'ADMIN' })]);
    const updated = await t.request('PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { description: 'x' } });
    expect(updated.body.role).toBe('ADMIN');
  });

  it("is the member's own role for anyone else, and follows a role change", async () => {
    const owner = await registerUser(t, 'Owner');
    const viewer = await registerUser(t, 'Viewer');
    const projectId = (await createProject(t, owner, 'Roles')).id;
    const member = await invite(t, owner, projectId, viewer, 'VIEWER');
    const other = await createProject(t, viewer, 'Own project');
    const list = await t.request('GET', '/api/v1/projects', { token: viewer.token });
    expect(list.body.map((project: { id: string; role: string }) => [project.id, project.role])).toEqual(
      [
        [projectId, 'VIEWER'],
        [other.id, 'ADMIN'],
      ].sort(([a], [b]) => a!.localeCompare(b!)),
    );
    await t.request('PATCH', `/api/v1/projects/${projectId}/members/${member.id}/role`, { token: owner.token, body: { role: 'EDITOR' } });
    const one = await t.request('GET', `/api/v1/projects/${projectId}`, { token: viewer.token });
    expect(one.body.role).toBe('EDITOR');
  });
});

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
    const counts: Record<string, number> = Object.fromEntries(DEFAULT_STATES.map(({ key }) => [key, 0]));
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

  const totalsOf = async (projectId: string) => (await t.request('GET', `/api/v1/projects/${projectId}`, { token: owner.token })).body.estimateTotals as Record<string, number>;

  /** What the estimate totals must be: the project's tasks, listed page by page and summed here. */
  const summedFromList = async (projectId: string) => {
    const totals: Record<string, number> = Object.fromEntries(DEFAULT_STATES.map(({ key }) => [key, 0]));
    let url: string | undefined = `/api/v1/tasks/project/${projectId}?limit=100`;
    while (url) {
      const page: Awaited<ReturnType<TestApp['request']>> = await t.request('GET', url, { token: owner.token });
      for (const task of page.body as { status: string; estimate: number | null }[]) totals[task.status]! += task.estimate ?? 0;
      url = /<([^>]+)>;\s*rel="next"/.exec(String(page.headers.link ?? ''))?.[1];
    }
    return totals;
  };

  it('estimateTotals follow estimates set, changed and cleared, status changes, deletes and a state moving its tasks', async () => {
    const projectId = (await createProject(t, owner, 'Estimates')).id;
    expect(await totalsOf(projectId)).toEqual({ TODO: 0, IN_PROGRESS: 0, IN_REVIEW: 0, DONE: 0, CANCELLED: 0 });
    const a = await createTask(t, owner, projectId, { estimate: 2.5 });
    const b = await createTask(t, owner, projectId, { estimate: 1.25, status: 'IN_REVIEW' });
    const c = await createTask(t, owner, projectId);
    expect(await totalsOf(projectId)).toEqual({ TODO: 2.5, IN_PROGRESS: 0, IN_REVIEW: 1.25, DONE: 0, CANCELLED: 0 });
    const patch = (taskId: string, body: object) => t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: owner.token, body });
    expect((await patch(a.id, { estimate: 4 })).status).toBe(200);
    expect((await patch(c.id, { estimate: 8, status: 'IN_REVIEW' })).status).toBe(200);
    expect((await patch(b.id, { estimate: null })).status).toBe(200);
    expect(await totalsOf(projectId)).toEqual({ TODO: 4, IN_PROGRESS: 0, IN_REVIEW: 8, DONE: 0, CANCELLED: 0 });
    expect((await patch(a.id, { status: 'DONE', estimate: 0.5 })).status).toBe(200);
    expect((await t.request('DELETE', `/api/v1/tasks/${b.id}`, { token: owner.token })).status).toBe(200);
    expect(await totalsOf(projectId)).toEqual({ TODO: 0, IN_PROGRESS: 0, IN_REVIEW: 8, DONE: 0.5, CANCELLED: 0 });
    // Deleting a state moves its tasks, and their estimates with them.
    const states = (await t.request('GET', `/api/v1/projects/${projectId}/states`, { token: owner.token })).body as { id: string; key: string }[];
    const review = states.find((state) => state.key === 'IN_REVIEW')!.id;
    expect((await t.request('DELETE', `/api/v1/projects/${projectId}/states/${review}?moveTo=TODO`, { token: owner.token })).status).toBe(200);
    expect(await totalsOf(projectId)).toEqual({ TODO: 8, IN_PROGRESS: 0, DONE: 0.5, CANCELLED: 0 });
  });

  it('estimateTotals stay exact under racing estimate and status changes, creates and deletes', async () => {
    const projectId = (await createProject(t, owner, 'Estimate race')).id;
    const tasks = await Promise.all(Array.from({ length: 10 }, (_, n) => createTask(t, owner, projectId, { estimate: n + 0.5 })));
    const responses = await Promise.all([
      ...tasks.slice(0, 4).map((task, n) => t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { estimate: n * 2 } })),
      ...tasks.slice(2, 6).map((task) => setStatus(task.id, 'DONE')),
      ...tasks.slice(5, 8).map((task) => t.request('DELETE', `/api/v1/tasks/${task.id}`, { token: owner.token })),
      ...Array.from({ length: 4 }, () => t.request('POST', '/api/v1/tasks', { token: owner.token, body: { projectId, title: 'Racing', estimate: 0.25 } })),
    ]);
    for (const response of responses) expect([200, 201, 404]).toContain(response.status);
    expect(await totalsOf(projectId)).toEqual(await summedFromList(projectId));
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

describePermissions(['GET /projects', 'POST /projects', 'GET /projects/{id}', 'PATCH /projects/{id}', 'DELETE /projects/{id}']);
