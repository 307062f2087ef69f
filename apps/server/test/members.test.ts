import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';

const nextLink = (headers: Record<string, unknown>) => /^<([^>]+)>; rel="next"$/.exec(String(headers.link ?? ''))?.[1];

describe('members: list, remove, leave, transfer ownership; project summary', () => {
  let t: TestApp;
  let owner: TestUser;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner Ada');
    admin = await registerUser(t, 'Admin Alan');
    editor = await registerUser(t, 'Editor Edsger');
    viewer = await registerUser(t, 'Viewer Vint');
    outsider = await registerUser(t, 'Outsider Olga');
  });
  afterAll(() => t.close());

  const members = (projectId: string, user: TestUser, query = '') => t.request('GET', `/api/v1/projects/${projectId}/members${query}`, { token: user.token });

  /** A project of the test's own with the whole cast as members, and their membership ids. */
  async function cast() {
    // Invited one by one, not castProject: the list tests read the order they joined in.
    const projectId = (await createProject(t, owner, 'Members')).id;
    const memberIds: Record<string, string> = {};
    memberIds.admin = (await invite(t, owner, projectId, admin, 'ADMIN')).id;
    memberIds.editor = (await invite(t, owner, projectId, editor, 'EDITOR')).id;
    memberIds.viewer = (await invite(t, owner, projectId, viewer, 'VIEWER')).id;
    memberIds.owner = (await members(projectId, owner)).body.find((member: { userId: string }) => member.userId === owner.id).id;
    return { projectId, memberIds };
  }

  it('lists members with name and email, in the order they joined, to any member', async () => {
    const { projectId, memberIds } = await cast();
    const response = await members(projectId, viewer);
    expect(response.status).toBe(200);
    expect(response.headers.link).toBeUndefined();
    expect(response.body).toEqual([
      { id: expect.any(String), userId: owner.id, projectId, role: 'ADMIN', name: 'Owner Ada', email: owner.email },
      { id: memberIds.admin, userId: admin.id, projectId, role: 'ADMIN', name: 'Admin Alan', email: admin.email },
      { id: memberIds.editor, userId: editor.id, projectId, role: 'EDITOR', name: 'Editor Edsger', email: editor.email },
      { id: memberIds.viewer, userId: viewer.id, projectId, role: 'VIEWER', name: 'Viewer Vint', email: viewer.email },
    ]);
    expect(response.body[0].id).toBe(memberIds.owner);
  });

  it('pages members through the Link header without skipping or repeating', async () => {
    const { projectId, memberIds } = await cast();
    const seen: string[] = [];
    let url: string | undefined = `/api/v1/projects/${projectId}/members?limit=3`;
    let pages = 0;
    while (url) {
      const response = await t.request('GET', url, { token: editor.token });
      expect(response.status).toBe(200);
      expect(response.body.length).toBeLessThanOrEqual(3);
      seen.push(...response.body.map((member: { id: string }) => member.id));
      url = nextLink(response.headers);
      pages += 1;
    }
    expect(pages).toBe(2);
    expect(seen).toEqual([memberIds.owner, memberIds.admin, memberIds.editor, memberIds.viewer]);
  });

  it('pages members over tRPC (the page with its cursor)', async () => {
    const { projectId, memberIds } = await cast();
    const input = encodeURIComponent(JSON.stringify({ id: projectId, limit: 2 }));
    const first = await t.request('GET', `/api/trpc/members.list?input=${input}`, { token: owner.token });
    expect(first.status).toBe(200);
    const page = first.body.result.data;
    expect(page.items.map((member: { id: string }) => member.id)).toEqual([memberIds.owner, memberIds.admin]);
    expect(page.nextCursor).toEqual(expect.any(String));
    const second = await members(projectId, owner, `?limit=2&cursor=${page.nextCursor}`);
    expect(second.body.map((member: { id: string }) => member.id)).toEqual([memberIds.editor, memberIds.viewer]);
  });

  it('refuses a bad cursor or limit with 400, and hides the list from non-members (404)', async () => {
    const { projectId } = await cast();
    for (const query of ['?cursor=nope', `?cursor=${Buffer.from('["not-a-uuid"]').toString('base64url')}`, '?limit=0', '?limit=501', '?limit=abc']) {
      const response = await members(projectId, owner, query);
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe('BAD_REQUEST');
    }
    expect((await members(projectId, outsider)).status).toBe(404);
    expect((await t.request('GET', '/api/v1/projects/not-an-id/members', { token: owner.token })).status).toBe(404);
  });

  it("GET /projects/{id} carries taskCounts by status beside the caller's role", async () => {
    const { projectId } = await cast();
    await createTask(t, editor, projectId, { status: 'DONE' });
    await createTask(t, editor, projectId, { status: 'IN_PROGRESS' });
    await createTask(t, editor, projectId);
    const asOwner = await t.request('GET', `/api/v1/projects/${projectId}`, { token: owner.token });
    expect(asOwner.status).toBe(200);
    expect(asOwner.body).toMatchObject({ id: projectId, name: 'Members', ownerId: owner.id, role: 'ADMIN' });
    expect(asOwner.body.taskCounts).toEqual({ TODO: 1, IN_PROGRESS: 1, IN_REVIEW: 0, DONE: 1, CANCELLED: 0 });
    const roles = await Promise.all(
      [admin, editor, viewer].map(async (user) => (await t.request('GET', `/api/v1/projects/${projectId}`, { token: user.token })).body.role),
    );
    expect(roles).toEqual(['ADMIN', 'EDITOR', 'VIEWER']);
  });

  it('lets only ADMIN and owner remove others: 403 for EDITOR and VIEWER, 404 for unknown members', async () => {
    const { projectId, memberIds } = await cast();
    for (const user of [editor, viewer]) {
      const response = await t.request('DELETE', `/api/v1/projects/${projectId}/members/${memberIds.admin}`, { token: user.token });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('FORBIDDEN');
    }
    const unknown = await t.request('DELETE', `/api/v1/projects/${projectId}/members/0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b`, { token: owner.token });
    expect(unknown.status).toBe(404);
    const malformed = await t.request('DELETE', `/api/v1/projects/${projectId}/members/nope`, { token: owner.token });
    expect(malformed.status).toBe(404);
    const byOutsider = await t.request('DELETE', `/api/v1/projects/${projectId}/members/${memberIds.viewer}`, { token: outsider.token });
    expect(byOutsider.status).toBe(404);
  });

  it("never removes the owner's membership (409 OWNER_IMMUTABLE), not even by the owner", async () => {
    const { projectId, memberIds } = await cast();
    const byAdmin = await t.request('DELETE', `/api/v1/projects/${projectId}/members/${memberIds.owner}`, { token: admin.token });
    expect(byAdmin.status).toBe(409);
    expect(byAdmin.body).toMatchObject({ code: 'CONFLICT', reason: 'OWNER_IMMUTABLE' });
    const leaving = await t.request('DELETE', `/api/v1/projects/${projectId}/members/${memberIds.owner}`, { token: owner.token });
    expect(leaving.status).toBe(409);
    expect(leaving.body.reason).toBe('OWNER_IMMUTABLE');
    expect((await members(projectId, owner)).body).toHaveLength(4);
  });

  it("removes a member and unassigns their tasks in this project only (not elsewhere)", async () => {
    const { projectId, memberIds } = await cast();
    const other = await createProject(t, owner, 'Elsewhere');
    await invite(t, owner, other.id, editor, 'EDITOR');
    const elsewhere = await createTask(t, owner, other.id, { assigneeId: editor.id });
    const mine = await createTask(t, owner, projectId, { assigneeId: editor.id });
    const before = await t.request('GET', `/api/v1/tasks/${mine.id}`, { token: owner.token });

    const removed = await t.request('DELETE', `/api/v1/projects/${projectId}/members/${memberIds.editor}`, { token: admin.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ message: 'Member removed' });

    const after = await t.request('GET', `/api/v1/tasks/${mine.id}`, { token: owner.token });
    expect(after.body.assigneeId).toBeNull();
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await t.request('GET', `/api/v1/tasks/${elsewhere.id}`, { token: owner.token })).body.assigneeId).toBe(editor.id);
    expect((await members(projectId, owner)).body.map((member: { userId: string }) => member.userId)).not.toContain(editor.id);
    expect((await t.request('GET', `/api/v1/projects/${projectId}`, { token: editor.token })).status).toBe(404);
  });

  it("clears the user field values naming a removed or leaving member, as their assignments, in this project only", async () => {
    const { projectId, memberIds } = await cast();
    const userField = async (project: string, name: string) => {
      const response = await t.request('POST', `/api/v1/projects/${project}/fields`, { token: owner.token, body: { name, type: 'user' } });
      expect(response.status).toBe(201);
      return response.body.id as string;
    };
    const reviewer = await userField(projectId, 'Reviewer');
    const approver = await userField(projectId, 'Approver');
    const note = (await t.request('POST', `/api/v1/projects/${projectId}/fields`, { token: owner.token, body: { name: 'Note', type: 'text' } })).body.id as string;
    const other = await createProject(t, owner, 'Elsewhere');
    await invite(t, owner, other.id, editor, 'EDITOR');
    const otherReviewer = await userField(other.id, 'Reviewer');
    const elsewhere = await createTask(t, owner, other.id, { fields: { [otherReviewer]: editor.id } });
    const both = await createTask(t, owner, projectId, { fields: { [reviewer]: editor.id, [approver]: editor.id, [note]: 'kept' } });
    const mixed = await createTask(t, owner, projectId, { fields: { [reviewer]: viewer.id, [approver]: editor.id } });
    const untouched = await createTask(t, owner, projectId, { fields: { [reviewer]: admin.id } });
    const fieldsOf = async (taskId: string) => (await t.request('GET', `/api/v1/tasks/${taskId}`, { token: owner.token })).body.fields;
    const etag = async (taskId: string) => (await t.request('GET', `/api/v1/tasks/${taskId}`, { token: owner.token })).headers.etag;
    const [bothTag, untouchedTag] = [await etag(both.id), await etag(untouched.id)];

    expect((await t.request('DELETE', `/api/v1/projects/${projectId}/members/${memberIds.editor}`, { token: admin.token })).status).toBe(200);
    expect(await fieldsOf(both.id)).toEqual({ [note]: 'kept' });
    expect(await fieldsOf(mixed.id)).toEqual({ [reviewer]: viewer.id });
    expect(await fieldsOf(untouched.id)).toEqual({ [reviewer]: admin.id });
    expect(await fieldsOf(elsewhere.id)).toEqual({ [otherReviewer]: editor.id });
    expect(await etag(both.id)).not.toBe(bothTag);
    expect(await etag(untouched.id)).toBe(untouchedTag);
    // Recorded as the remover's change of the task's fields, as an unassignment is.
    const history = (await t.request('GET', `/api/v1/tasks/${both.id}/activity`, { token: owner.token })).body;
    expect(history[0]).toMatchObject({
      type: 'task.updated',
      actorId: admin.id,
      changes: { fields: { old: { [reviewer]: editor.id, [approver]: editor.id }, new: { [reviewer]: null, [approver]: null } } },
    });

    // Leaving clears them too.
    expect((await t.request('DELETE', `/api/v1/projects/${projectId}/members/${memberIds.viewer}`, { token: viewer.token })).status).toBe(200);
    expect(await fieldsOf(mixed.id)).toEqual({});
    const left = (await t.request('GET', `/api/v1/tasks/${mixed.id}/activity`, { token: owner.token })).body;
    expect(left[0]).toMatchObject({ type: 'task.updated', actorId: viewer.id, changes: { fields: { old: { [reviewer]: viewer.id }, new: { [reviewer]: null } } } });
  });

  it('lets any member leave (remove themselves), VIEWER included', async () => {
    const { projectId, memberIds } = await cast();
    const response = await t.request('DELETE', `/api/v1/projects/${projectId}/members/${memberIds.viewer}`, { token: viewer.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'You left the project' });
    expect((await t.request('GET', `/api/v1/projects/${projectId}`, { token: viewer.token })).status).toBe(404);
  });

  it('transfers ownership: owner only, to a member, who becomes owner and ADMIN', async () => {
    const { projectId, memberIds } = await cast();
    const byAdmin = await t.request('POST', `/api/v1/projects/${projectId}/transfer-ownership`, { token: admin.token, body: { userId: admin.id } });
    expect(byAdmin.status).toBe(403);
    const toOutsider = await t.request('POST', `/api/v1/projects/${projectId}/transfer-ownership`, { token: owner.token, body: { userId: outsider.id } });
    expect(toOutsider.status).toBe(400);
    expect(toOutsider.body.reason).toBe('NOT_A_MEMBER');
    const toGarbage = await t.request('POST', `/api/v1/projects/${projectId}/transfer-ownership`, { token: owner.token, body: { userId: 'x' } });
    expect(toGarbage.status).toBe(400);
    const missingBody = await t.request('POST', `/api/v1/projects/${projectId}/transfer-ownership`, { token: owner.token, body: {} });
    expect(missingBody.status).toBe(400);
    expect(missingBody.body.issues[0].path).toEqual(['userId']);

    await t.request('PATCH', `/api/v1/projects/${projectId}/members/${memberIds.admin}/role`, { token: owner.token, body: { role: 'EDITOR' } });
    const moved = await t.request('POST', `/api/v1/projects/${projectId}/transfer-ownership`, { token: owner.token, body: { userId: admin.id } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: projectId, ownerId: admin.id });
    expect(moved.headers.etag).toEqual(expect.any(String));

    const list = (await members(projectId, owner)).body as { userId: string; role: string }[];
    expect(list.find((member) => member.userId === admin.id)?.role).toBe('ADMIN');
    expect(list.find((member) => member.userId === owner.id)?.role).toBe('ADMIN');
    const asNewOwner = (await t.request('GET', `/api/v1/projects/${projectId}`, { token: admin.token })).body;
    expect([asNewOwner.ownerId, asNewOwner.role]).toEqual([admin.id, 'ADMIN']);

    // The former owner is now an ordinary ADMIN: may leave, may not delete the project.
    expect((await t.request('DELETE', `/api/v1/projects/${projectId}`, { token: owner.token })).status).toBe(403);
    const formerOwnerLeaves = await t.request('DELETE', `/api/v1/projects/${projectId}/members/${memberIds.owner}`, { token: owner.token });
    expect(formerOwnerLeaves.status).toBe(200);
    const newOwnerLeaves = await t.request('DELETE', `/api/v1/projects/${projectId}/members/${memberIds.admin}`, { token: admin.token });
    expect(newOwnerLeaves.status).toBe(409);
  });

  it('documents the new member routes in the OpenAPI document', async () => {
    const document = (await t.request('GET', '/api/v1/openapi.json')).body;
    expect(document.paths['/projects/{id}/members'].get.responses['200'].headers.Link).toBeDefined();
    expect(Object.keys(document.paths['/projects/{id}/members/{memberId}'].delete.responses)).toEqual(
      expect.arrayContaining(['200', '403', '404', '409']),
    );
    expect(document.paths['/projects/{id}/transfer-ownership'].post).toBeDefined();
  });
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('members: invite and change a role', () => {
  let t: TestApp;
  let owner: TestUser;
  let colleague: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Ada Lovelace');
    colleague = await registerUser(t, 'Grace Hopper');
  });
  afterAll(() => t.close());

  it('invites a user by email as VIEWER by default (201), with name and email', async () => {
    const projectId = (await createProject(t, owner, 'Engine')).id;
    const response = await t.request('POST', `/api/v1/projects/${projectId}/members/invite`, {
      token: owner.token,
      body: { email: colleague.email.toUpperCase() },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      userId: colleague.id,
      projectId,
      role: 'VIEWER',
      name: 'Grace Hopper',
      email: colleague.email,
    });
  });

  it("changes a member's role", async () => {
    const projectId = (await createProject(t, owner, 'Engine')).id;
    const memberId = (await invite(t, owner, projectId, colleague, 'VIEWER')).id;
    const response = await t.request('PATCH', `/api/v1/projects/${projectId}/members/${memberId}/role`, {
      token: owner.token,
      body: { role: 'EDITOR' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: memberId, userId: colleague.id, projectId, role: 'EDITOR' });
  });

  it('keeps invite helpers honest', async () => {
    const p = await createProject(t, owner, 'Helpers');
    const m = await invite(t, owner, p.id, colleague, 'ADMIN');
    expect(m.role).toBe('ADMIN');
  });
});

describePermissions(['POST /projects/{id}/members/invite', 'PATCH /projects/{id}/members/{memberId}/role', 'GET /projects/{id}/members/{memberId}']);

describe('members: one member, its ETag and preconditions', () => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Ada Lovelace');
  });
  afterAll(() => t.close());

  /** A project of its own with one VIEWER, invited through the REST route. */
  async function invited() {
    const projectId = (await createProject(t, owner, 'Engine')).id;
    const user = await registerUser(t, 'Grace Hopper');
    const response = await t.request('POST', `/api/v1/projects/${projectId}/members/invite`, { token: owner.token, body: { email: user.email } });
    return { projectId, user, response };
  }

  it("follows the invite's Location to the member, as the list gives it, to any member; 404 to others and for unknown ids", async () => {
    const { projectId, user, response } = await invited();
    expect(response.headers.location).toBe(`/api/v1/projects/${projectId}/members/${response.body.id}`);
    const listed = (await t.request('GET', `/api/v1/projects/${projectId}/members`, { token: owner.token })).body.find((member: { id: string }) => member.id === response.body.id);
    for (const caller of [owner, user]) {
      const read = await t.request('GET', response.headers.location as string, { token: caller.token });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(listed);
      expect(read.headers.etag).toBe(response.headers.etag);
    }
    const outsider = await registerUser(t);
    expect((await t.request('GET', response.headers.location as string, { token: outsider.token })).status).toBe(404);
    for (const memberId of ['0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b', 'nope']) {
      const unknown = await t.request('GET', `/api/v1/projects/${projectId}/members/${memberId}`, { token: owner.token });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('NOT_FOUND');
    }
    // A member of another project is not one of this project's.
    const other = await invited();
    expect((await t.request('GET', `/api/v1/projects/${projectId}/members/${other.response.body.id}`, { token: owner.token })).status).toBe(404);
  });

  it("moves the ETag with the role and with the user's name and email, and gives 304 only for the current one", async () => {
    const { user, response } = await invited();
    const url = response.headers.location as string;
    const etags = [response.headers.etag as string];
    const current = async () => (await t.request('GET', url, { token: owner.token })).headers.etag as string;

    const changed = await t.request('PATCH', `${url}/role`, { token: owner.token, body: { role: 'EDITOR' } });
    expect(changed.body.role).toBe('EDITOR');
    etags.push(changed.headers.etag as string);
    expect(await current()).toBe(etags.at(-1));

    expect((await t.request('PATCH', '/api/v1/auth/me', { token: user.token, body: { name: 'Grace B. Hopper' } })).status).toBe(200);
    etags.push(await current());
    const renamed = await t.request('PATCH', '/api/v1/auth/me', { token: user.token, body: { email: `new.${user.email}`, currentPassword: user.password } });
    expect(renamed.status).toBe(200);
    etags.push(await current());
    expect(new Set(etags).size).toBe(etags.length);

    const read = await t.request('GET', url, { token: owner.token, headers: { 'if-none-match': etags.at(-1)! } });
    expect(read.status).toBe(304);
    const stale = await t.request('GET', url, { token: owner.token, headers: { 'if-none-match': etags[0]! } });
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({ role: 'EDITOR', name: 'Grace B. Hopper', email: `new.${user.email}` });
  });

  it('refuses a role change or removal with a stale If-Match (412 STALE_VERSION), and applies it with the current one', async () => {
    const { user, response } = await invited();
    const url = response.headers.location as string;
    // The user's rename makes the invite's ETag stale, since the member's answer changed.
    await t.request('PATCH', '/api/v1/auth/me', { token: user.token, body: { name: 'Renamed' } });
    const fresh = (await t.request('GET', url, { token: owner.token })).headers.etag as string;
    const stalePatch = await t.request('PATCH', `${url}/role`, { token: owner.token, headers: { 'if-match': response.headers.etag as string }, body: { role: 'ADMIN' } });
    expect(stalePatch.status).toBe(412);
    expect(stalePatch.body).toMatchObject({ code: 'PRECONDITION_FAILED', reason: 'STALE_VERSION' });
    expect(stalePatch.headers.etag).toBe(fresh);
    const staleDelete = await t.request('DELETE', url, { token: owner.token, headers: { 'if-match': response.headers.etag as string } });
    expect(staleDelete.status).toBe(412);
    expect((await t.request('GET', url, { token: owner.token })).body.role).toBe('VIEWER');

    const patched = await t.request('PATCH', `${url}/role`, { token: owner.token, headers: { 'if-match': fresh }, body: { role: 'ADMIN' } });
    expect(patched.status).toBe(200);
    const removed = await t.request('DELETE', url, { token: owner.token, headers: { 'if-match': patched.headers.etag as string } });
    expect(removed.status).toBe(200);
    expect((await t.request('GET', url, { token: owner.token })).status).toBe(404);
  });

  it('documents the read with its ETag and conditional form, and If-Match on role change and removal', async () => {
    const document = (await t.request('GET', '/api/v1/openapi.json')).body;
    const read = document.paths['/projects/{id}/members/{memberId}'].get;
    expect(read.responses['200'].headers.ETag).toBeDefined();
    expect(read.responses['304']).toBeDefined();
    expect(document.paths['/projects/{id}/members/invite'].post.responses['201'].headers.ETag).toBeDefined();
    for (const operation of [document.paths['/projects/{id}/members/{memberId}/role'].patch, document.paths['/projects/{id}/members/{memberId}'].delete]) {
      expect(operation.parameters.map((parameter: { name: string }) => parameter.name)).toContain('If-Match');
      expect(operation.responses['412']).toBeDefined();
    }
  });
});
