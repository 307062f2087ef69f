import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, invite, registerUser, startTestApp, type TestApp, type TestUser } from '../harness';

describe("every project response carries the caller's role", () => {
  let t: TestApp;
  let owner: TestUser;
  let viewer: TestUser;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    viewer = await registerUser(t, 'Viewer');
  });
  afterAll(() => t.close());

  it('is ADMIN for the creator, on create, get, list and update', async () => {
    const created = await t.request('POST', '/api/v1/projects', { token: owner.token, body: { name: 'Roles' } });
    expect(created.body.role).toBe('ADMIN');
    projectId = created.body.id;
    const one = await t.request('GET', `/api/v1/projects/${projectId}`, { token: owner.token });
    expect(one.body.role).toBe('ADMIN');
    const list = await t.request('GET', '/api/v1/projects', { token: owner.token });
    expect(list.body).toEqual([expect.objectContaining({ id: projectId, role: 'ADMIN' })]);
    const updated = await t.request('PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { description: 'x' } });
    expect(updated.body.role).toBe('ADMIN');
  });

  it("is the member's own role for anyone else, and follows a role change", async () => {
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
