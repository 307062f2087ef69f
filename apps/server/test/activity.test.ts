import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';

describe('activity history', () => {
  let t: TestApp;
  let owner: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    viewer = await registerUser(t, 'Viewer');
    outsider = await registerUser(t, 'Outsider');
  });
  afterAll(() => t.close());

  it('records every change with who, when and, for updates, old and new values; newest first', async () => {
    const projectId = (await createProject(t, owner, 'History')).id;
    const member = await invite(t, owner, projectId, viewer, 'VIEWER');
    await t.request('PATCH', `/api/v1/projects/${projectId}/members/${member.id}/role`, { token: owner.token, body: { role: 'EDITOR' } });
    await t.request('PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { name: 'History 2' } });
    const task = await createTask(t, owner, projectId, { title: 'Write docs' });
    const patched = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { status: 'DONE', title: 'Write the docs' } });
    expect(patched.status).toBe(200);
    await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: viewer.token, body: { text: 'Nice' } });

    const response = await t.request('GET', `/api/v1/projects/${projectId}/activity`, { token: viewer.token });
    expect(response.status).toBe(200);
    const types = response.body.map((entry: { type: string }) => entry.type);
    expect(types).toEqual(['comment.created', 'task.updated', 'task.created', 'project.updated', 'member.updated', 'member.added', 'project.created']);
    const ids = response.body.map((entry: { id: string }) => Number(entry.id));
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);

    const [comment, update] = response.body;
    expect(comment).toMatchObject({ actorId: viewer.id, projectId, taskId: task.id, resource: { text: 'Nice', authorId: viewer.id }, changes: null });
    expect(update.actorId).toBe(owner.id);
    expect(update.resource).toMatchObject({ id: task.id, status: 'DONE', title: 'Write the docs' });
    expect(update.changes).toEqual({
      status: { old: 'TODO', new: 'DONE' },
      title: { old: 'Write docs', new: 'Write the docs' },
      completedAt: { old: null, new: patched.body.completedAt },
    });
    expect(response.body[3].changes).toEqual({ name: { old: 'History', new: 'History 2' } });
    expect(response.body[4].changes).toEqual({ role: { old: 'VIEWER', new: 'EDITOR' } });
    expect(new Date(update.time).toISOString()).toBe(update.time);
  });

  it('lists a task’s own history, deletions included in the project history', async () => {
    const projectId = (await createProject(t, owner, 'History')).id;
    await invite(t, owner, projectId, viewer, 'VIEWER');
    const task = await createTask(t, owner, projectId, { title: 'Short-lived' });
    await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { priority: 'HIGH' } });
    const history = await t.request('GET', `/api/v1/tasks/${task.id}/activity`, { token: viewer.token });
    expect(history.status).toBe(200);
    expect(history.body.map((entry: { type: string }) => entry.type)).toEqual(['task.updated', 'task.created']);
    expect(history.body[0].changes).toEqual({ priority: { old: 'MEDIUM', new: 'HIGH' } });

    expect((await t.request('DELETE', `/api/v1/tasks/${task.id}`, { token: owner.token })).status).toBe(200);
    const latest = await t.request('GET', `/api/v1/projects/${projectId}/activity?limit=1`, { token: owner.token });
    expect(latest.body).toHaveLength(1);
    expect(latest.body[0]).toMatchObject({ type: 'task.deleted', taskId: task.id, resource: { id: task.id, priority: 'HIGH' } });
  });

  it('records nothing when a request fails or changes nothing', async () => {
    const projectId = (await createProject(t, owner, 'History')).id;
    const before = await t.request('GET', `/api/v1/projects/${projectId}/activity?limit=1`, { token: owner.token });
    const refused = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { projectId, title: 'x', assigneeId: outsider.id } });
    expect(refused.status).toBe(400);
    await t.request('PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: {} });
    const after = await t.request('GET', `/api/v1/projects/${projectId}/activity?limit=1`, { token: owner.token });
    expect(after.body[0].id).toBe(before.body[0].id);
  });

  it('pages newest first by cursor with a Link header, without gaps or repeats', async () => {
    const projectId = (await createProject(t, owner, 'History')).id;
    for (const title of ['one', 'two', 'three']) {
      const task = await createTask(t, owner, projectId, { title });
      await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { status: 'DONE' } });
    }
    const all = await t.request('GET', `/api/v1/projects/${projectId}/activity?limit=500`, { token: owner.token });
    const seen: string[] = [];
    let url: string | undefined = `/api/v1/projects/${projectId}/activity?limit=3`;
    while (url) {
      const page = await t.request<{ id: string }[]>('GET', url, { token: owner.token });
      expect(page.status).toBe(200);
      seen.push(...page.body.map((entry) => entry.id));
      const link = page.headers.link as string | undefined;
      url = link ? /<([^>]+)>; rel="next"/.exec(link)![1] : undefined;
    }
    expect(seen).toEqual(all.body.map((entry: { id: string }) => entry.id));
    expect(seen.length).toBeGreaterThan(6);
    const bad = await t.request('GET', `/api/v1/projects/${projectId}/activity?cursor=nope`, { token: owner.token });
    expect(bad.status).toBe(400);
  });

  it('is for members only: others get 404', async () => {
    const projectId = (await createProject(t, owner, 'History')).id;
    expect((await t.request('GET', `/api/v1/projects/${projectId}/activity`, { token: outsider.token })).status).toBe(404);
    const task = await createTask(t, owner, projectId);
    expect((await t.request('GET', `/api/v1/tasks/${task.id}/activity`, { token: outsider.token })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/projects/not-an-id/activity', { token: owner.token })).status).toBe(404);
    expect((await t.request('GET', `/api/v1/projects/${projectId}/activity`)).status).toBe(401);
  });

  it('deletes a project’s history with it', async () => {
    const doomed = await createProject(t, owner, 'Doomed');
    await createTask(t, owner, doomed.id);
    expect((await t.request('DELETE', `/api/v1/projects/${doomed.id}`, { token: owner.token })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/projects/${doomed.id}/activity`, { token: owner.token })).status).toBe(404);
  });
});

describePermissions(['GET /projects/{id}/activity', 'GET /tasks/{id}/activity']);
