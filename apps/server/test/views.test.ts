import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, followPages } from './support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestResponse, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';

/** A 400 with an issue whose path starts with `path`, and `reason` when given. */
function expectRefused(response: TestResponse, path: (string | number)[], reason?: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expectErrorBody(response, 400, { ...(reason ? { reason } : {}), issues: expect.arrayContaining([expect.objectContaining({ path: expect.arrayContaining(path) })]) });
  expect(response.body.issues.some((issue: { path: unknown[] }) => path.every((part, index) => issue.path[index] === part)), JSON.stringify(response.body)).toBe(true);
}

/** A saved view's filters as the task list's query string: arrays as comma lists. */
const queryOf = (filters: Record<string, unknown>, sort: string | null) =>
  new URLSearchParams([
    ...Object.entries(filters).map(([key, value]): [string, string] => [key, Array.isArray(value) ? value.join(',') : String(value)]),
    ...(sort ? [['sort', sort] as [string, string]] : []),
  ]).toString();

describe('saved views: personal and shared, with the task list filters', () => {
  let t: TestApp;
  let owner: TestUser;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    admin = await registerUser(t, 'Admin');
    editor = await registerUser(t, 'Editor');
    viewer = await registerUser(t, 'Viewer');
  });
  afterAll(() => t.close());

  async function project() {
    const projectId = (await createProject(t, owner)).id;
    await invite(t, owner, projectId, admin, 'ADMIN');
    await invite(t, owner, projectId, editor, 'EDITOR');
    await invite(t, owner, projectId, viewer, 'VIEWER');
    return projectId;
  }
  const viewsPath = (projectId: string) => `/api/v1/projects/${projectId}/views`;
  const save = (projectId: string, user: TestUser, body: Record<string, unknown>) => t.request('POST', viewsPath(projectId), { token: user.token, body });
  async function view(projectId: string, user: TestUser, body: Record<string, unknown>) {
    const response = await save(projectId, user, body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }
  const listNames = async (projectId: string, user: TestUser) => {
    const response = await t.request('GET', viewsPath(projectId), { token: user.token });
    expect(response.status).toBe(200);
    return response.body.map((saved: { name: string }) => saved.name);
  };

  it('saves a personal view (201, Location, ETag) with no filters, no sort and not shared by default', async () => {
    const projectId = await project();
    const response = await save(projectId, viewer, { name: '  Mine  ', layout: 'calendar' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.any(String),
      projectId,
      name: 'Mine',
      layout: 'calendar',
      filters: {},
      sort: null,
      shared: false,
      ownerId: viewer.id,
      createdAt: expect.any(String),
      updatedAt: response.body.createdAt,
    });
    expect(response.headers.location).toBe(`/api/v1/projects/${projectId}/views/${response.body.id}`);
    const read = await t.request('GET', response.headers.location as string, { token: viewer.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(response.body);
    expect(read.headers.etag).toBe(response.headers.etag);
  });

  it('keeps the filters and sort exactly as the task list takes them, and they select the same tasks through the list', async () => {
    const projectId = await project();
    const label = (await t.request('POST', `/api/v1/projects/${projectId}/labels`, { token: owner.token, body: { name: 'Bug' } })).body;
    const field = (await t.request('POST', `/api/v1/projects/${projectId}/fields`, { token: owner.token, body: { name: 'Points', type: 'number' } })).body;
    const wanted = await createTask(t, owner, projectId, { title: 'Wanted', priority: 'HIGH', assigneeId: editor.id, labelIds: [label.id], dueDate: '2026-12-10T12:00:00Z', fields: { [field.id]: 5 } });
    const alsoWanted = await createTask(t, owner, projectId, { title: 'Also wanted', priority: 'URGENT', assigneeId: editor.id, labelIds: [label.id], dueDate: '2026-12-05T12:00:00Z', fields: { [field.id]: 8 } });
    await createTask(t, owner, projectId, { title: 'Low', priority: 'LOW', assigneeId: editor.id, labelIds: [label.id], dueDate: '2026-12-10T12:00:00Z', fields: { [field.id]: 5 } });
    await createTask(t, owner, projectId, { title: 'Unassigned', priority: 'HIGH', labelIds: [label.id], dueDate: '2026-12-10T12:00:00Z', fields: { [field.id]: 5 } });
    await createTask(t, owner, projectId, { title: 'Too small', priority: 'HIGH', assigneeId: editor.id, labelIds: [label.id], dueDate: '2026-12-10T12:00:00Z', fields: { [field.id]: 1 } });
    await createTask(t, owner, projectId, { title: 'Late', priority: 'HIGH', assigneeId: editor.id, labelIds: [label.id], dueDate: '2027-02-01T12:00:00Z', fields: { [field.id]: 5 } });

    const filters = {
      status: ['TODO', 'IN_PROGRESS'],
      statusCategory: ['unstarted'],
      priority: ['HIGH', 'URGENT'],
      assigneeId: 'me',
      labelId: [label.id],
      parentId: 'none',
      dueBefore: '2027-01-01T00:00:00Z',
      dueAfter: '2026-12-01T00:00:00Z',
      q: 'wanted',
      [`field.${field.id}.gte`]: '3',
    };
    const saved = await view(projectId, editor, { name: 'Mine to do', layout: 'list', filters, sort: '-dueDate', shared: true });
    expect(saved.filters).toEqual(filters);
    expect(saved.sort).toBe('-dueDate');

    // The web app opens the view by sending its filters and sort to the task list, as the editor.
    const read = (await t.request('GET', `${viewsPath(projectId)}/${saved.id}`, { token: viewer.token })).body;
    const list = await t.request('GET', `/api/v1/tasks/project/${projectId}?${queryOf(read.filters, read.sort)}`, { token: editor.token });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.map((task: { id: string }) => task.id)).toEqual([wanted.id, alsoWanted.id]);
  });

  it('refuses what the task list refuses, naming the key under filters, and saves nothing', async () => {
    const projectId = await project();
    const unknownField = randomUUID();
    const text = (await t.request('POST', `/api/v1/projects/${projectId}/fields`, { token: owner.token, body: { name: 'Note', type: 'text' } })).body;
    const points = (await t.request('POST', `/api/v1/projects/${projectId}/fields`, { token: owner.token, body: { name: 'Points', type: 'number' } })).body;
    const cases: [Record<string, unknown>, (string | number)[], string?][] = [
      [{ name: 'x', layout: 'gantt' }, ['layout']],
      [{ name: '   ', layout: 'list' }, ['name']],
      [{ name: 'x'.repeat(101), layout: 'list' }, ['name']],
      [{ layout: 'list' }, ['name']],
      [{ name: 'x', layout: 'list', filters: { colour: 'red' } }, ['filters']],
      [{ name: 'x', layout: 'list', filters: { status: [] } }, ['filters', 'status']],
      [{ name: 'x', layout: 'list', filters: { status: 'TODO' } }, ['filters', 'status']],
      [{ name: 'x', layout: 'list', filters: { priority: ['SOON'] } }, ['filters', 'priority']],
      [{ name: 'x', layout: 'list', filters: { assigneeId: 'someone' } }, ['filters', 'assigneeId']],
      [{ name: 'x', layout: 'list', filters: { dueBefore: '2026-02-30T00:00:00Z' } }, ['filters', 'dueBefore']],
      [{ name: 'x', layout: 'list', filters: { limit: 5 } }, ['filters']],
      [{ name: 'x', layout: 'list', filters: [] }, ['filters']],
      [{ name: 'x', layout: 'list', sort: 'colour' }, ['sort']],
      [{ name: 'x', layout: 'list', filters: { [`field.${unknownField}`]: 'a' } }, ['filters', `field.${unknownField}`], 'UNKNOWN_FIELD'],
      [{ name: 'x', layout: 'list', filters: { [`field.${points.id}`]: 'many' } }, ['filters', `field.${points.id}`], 'INVALID_FIELD_VALUE'],
      [{ name: 'x', layout: 'list', filters: { [`field.${text.id}.gte`]: 'a' } }, ['filters', `field.${text.id}.gte`], 'INVALID_FIELD_VALUE'],
      [{ name: 'x', layout: 'list', sort: `field.${unknownField}` }, ['sort'], 'UNKNOWN_FIELD'],
      [{ name: 'x', layout: 'list', owner: viewer.id }, ['owner']],
    ];
    for (const [body, path, reason] of cases) {
      expectRefused(await save(projectId, editor, body), path, reason);
    }
    expect(await listNames(projectId, owner)).toEqual([]);

    const saved = await view(projectId, editor, { name: 'Fine', layout: 'list', filters: { [`field.${points.id}`]: '3' }, sort: `-field.${points.id}` });
    expectRefused(await t.request('PATCH', `${viewsPath(projectId)}/${saved.id}`, { token: editor.token, body: { filters: { [`field.${unknownField}`]: 'x' } } }), ['filters', `field.${unknownField}`], 'UNKNOWN_FIELD');
    expectRefused(await t.request('PATCH', `${viewsPath(projectId)}/${saved.id}`, { token: editor.token, body: { layout: 'table' } }), ['layout']);
    expect((await t.request('GET', `${viewsPath(projectId)}/${saved.id}`, { token: editor.token })).body).toEqual(saved);
  });

  it('shows a personal view to its owner only (others, the project owner too, get 404); a shared one to every member', async () => {
    const projectId = await project();
    const personal = await view(projectId, editor, { name: 'Editor alone', layout: 'board' });
    await view(projectId, editor, { name: 'For the team', layout: 'board', shared: true });
    await view(projectId, viewer, { name: 'Viewer alone', layout: 'timeline' });

    expect(await listNames(projectId, editor)).toEqual(['Editor alone', 'For the team']);
    expect(await listNames(projectId, viewer)).toEqual(['For the team', 'Viewer alone']);
    expect(await listNames(projectId, owner)).toEqual(['For the team']);
    for (const other of [owner, admin, viewer]) {
      const path = `${viewsPath(projectId)}/${personal.id}`;
      expectErrorBody(await t.request('GET', path, { token: other.token }), 404, { message: 'View not found' });
      expectErrorBody(await t.request('PATCH', path, { token: other.token, body: { name: 'Taken' } }), 404, { message: 'View not found' });
      expectErrorBody(await t.request('DELETE', path, { token: other.token }), 404, { message: 'View not found' });
    }
    expect((await t.request('GET', `${viewsPath(projectId)}/${personal.id}`, { token: editor.token })).body.name).toBe('Editor alone');
  });

  it('lets any member save a personal view, EDITOR and up share one; the owner of a shared view changes it while EDITOR, ADMIN changes anyone’s', async () => {
    const projectId = await project();
    expectErrorBody(await save(projectId, viewer, { name: 'Shared', layout: 'list', shared: true }), 403);
    const viewersOwn = await view(projectId, viewer, { name: 'Personal', layout: 'list' });
    expectErrorBody(await t.request('PATCH', `${viewsPath(projectId)}/${viewersOwn.id}`, { token: viewer.token, body: { shared: true } }), 403);
    const renamed = await t.request('PATCH', `${viewsPath(projectId)}/${viewersOwn.id}`, { token: viewer.token, body: { name: 'Still mine', layout: 'calendar' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Still mine', layout: 'calendar', shared: false });

    const editors = await view(projectId, editor, { name: 'Editors', layout: 'board', shared: true });
    const admins = await view(projectId, admin, { name: 'Admins', layout: 'board', shared: true });
    expectErrorBody(await t.request('PATCH', `${viewsPath(projectId)}/${admins.id}`, { token: editor.token, body: { name: 'Mine now' } }), 403);
    expectErrorBody(await t.request('DELETE', `${viewsPath(projectId)}/${admins.id}`, { token: editor.token }), 403);
    expectErrorBody(await t.request('PATCH', `${viewsPath(projectId)}/${editors.id}`, { token: viewer.token, body: { name: 'Mine now' } }), 403);
    expect((await t.request('PATCH', `${viewsPath(projectId)}/${editors.id}`, { token: editor.token, body: { sort: 'title' } })).status).toBe(200);
    expect((await t.request('PATCH', `${viewsPath(projectId)}/${editors.id}`, { token: admin.token, body: { name: 'Tidied by the admin' } })).status).toBe(200);

    // Unsharing takes it from the others; the owner of the project removes an admin's shared view.
    expect((await t.request('PATCH', `${viewsPath(projectId)}/${editors.id}`, { token: editor.token, body: { shared: false } })).status).toBe(200);
    expect(await listNames(projectId, viewer)).toEqual(['Admins', 'Still mine']);
    expect((await t.request('DELETE', `${viewsPath(projectId)}/${admins.id}`, { token: owner.token })).status).toBe(200);
    expect(await listNames(projectId, viewer)).toEqual(['Still mine']);
    expect(await listNames(projectId, editor)).toEqual(['Tidied by the admin']);

    // An editor demoted to VIEWER keeps their shared view but can no longer change it.
    const demoting = await view(projectId, editor, { name: 'Before demotion', layout: 'list', shared: true });
    const members = (await t.request('GET', `/api/v1/projects/${projectId}/members`, { token: owner.token })).body as { id: string; userId: string }[];
    const editorMember = members.find((member) => member.userId === editor.id)!;
    expect((await t.request('PATCH', `/api/v1/projects/${projectId}/members/${editorMember.id}/role`, { token: owner.token, body: { role: 'VIEWER' } })).status).toBe(200);
    expectErrorBody(await t.request('PATCH', `${viewsPath(projectId)}/${demoting.id}`, { token: editor.token, body: { name: 'After' } }), 403);
    expect(await listNames(projectId, viewer)).toContain('Before demotion');
  });

  it('updates only what is sent, replaces the filters as a whole, and refuses a stale If-Match (412) leaving the view as it was', async () => {
    const projectId = await project();
    const saved = await view(projectId, editor, { name: 'Mine', layout: 'list', filters: { priority: ['HIGH'], assigneeId: 'me' }, sort: 'title' });
    const path = `${viewsPath(projectId)}/${saved.id}`;
    const first = await t.request('GET', path, { token: editor.token });
    const changed = await t.request('PATCH', path, { token: editor.token, body: { filters: { status: ['DONE'] } }, headers: { 'if-match': first.headers.etag as string } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Mine', layout: 'list', filters: { status: ['DONE'] }, sort: 'title' });
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    const cleared = await t.request('PATCH', path, { token: editor.token, body: { sort: null } });
    expect(cleared.body.sort).toBeNull();

    const stale = await t.request('PATCH', path, { token: editor.token, body: { name: 'Lost' }, headers: { 'if-match': first.headers.etag as string } });
    expectErrorBody(stale, 412, { reason: 'STALE_VERSION' });
    const staleDelete = await t.request('DELETE', path, { token: editor.token, headers: { 'if-match': first.headers.etag as string } });
    expectErrorBody(staleDelete, 412, { reason: 'STALE_VERSION' });
    expect((await t.request('GET', path, { token: editor.token })).body.name).toBe('Mine');

    const deleted = await t.request('DELETE', path, { token: editor.token });
    expect(deleted.status).toBe(200);
    expectErrorBody(await t.request('GET', path, { token: editor.token }), 404, { message: 'View not found' });
    expectErrorBody(await t.request('GET', `${viewsPath(projectId)}/not-an-id`, { token: editor.token }), 404, { message: 'View not found' });
  });

  it('pages the list by name regardless of case, then id, with a cursor, no view twice', async () => {
    const projectId = await project();
    const names = ['delta', 'Alpha', 'charlie', 'Bravo', 'alpha', 'echo', 'Foxtrot'];
    for (const name of names) await view(projectId, editor, { name, layout: 'list', shared: name !== 'echo' });
    const pages = await followPages(t, `${viewsPath(projectId)}?limit=2`, editor.token);
    const seen = pages.flat().map((saved: { name: string }) => saved.name);
    expect(seen.map((name: string) => name.toLowerCase())).toEqual(['alpha', 'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot']);
    expect(pages.length).toBe(4);
    expectErrorBody(await t.request('GET', `${viewsPath(projectId)}?cursor=bogus`, { token: editor.token }), 400, { reason: 'INVALID_CURSOR' });
  });

  it('records writes to shared views in the project activity (view.created, view.updated with changes, view.deleted), and none of personal ones', async () => {
    const projectId = await project();
    const personal = await view(projectId, editor, { name: 'Private', layout: 'list' });
    await t.request('PATCH', `${viewsPath(projectId)}/${personal.id}`, { token: editor.token, body: { name: 'Still private' } });
    await t.request('DELETE', `${viewsPath(projectId)}/${personal.id}`, { token: editor.token });
    const shared = await view(projectId, editor, { name: 'Team', layout: 'board', shared: true });
    await t.request('PATCH', `${viewsPath(projectId)}/${shared.id}`, { token: editor.token, body: { layout: 'calendar', filters: { assigneeId: 'none' } } });
    await t.request('DELETE', `${viewsPath(projectId)}/${shared.id}`, { token: editor.token });

    const activity = await t.request('GET', `/api/v1/projects/${projectId}/activity?limit=100`, { token: viewer.token });
    const events = (activity.body as { type: string; resource: { name: string }; changes: unknown }[]).filter((event) => event.type.startsWith('view.')).reverse();
    expect(events.map((event) => event.type)).toEqual(['view.created', 'view.updated', 'view.deleted']);
    expect(events.every((event) => event.resource.name === 'Team')).toBe(true);
    expect(events[1]!.changes).toEqual({ layout: { old: 'board', new: 'calendar' }, filters: { old: {}, new: { assigneeId: 'none' } } });
  });
});

describePermissions(['GET /projects/{id}/views', 'POST /projects/{id}/views', 'GET /projects/{id}/views/{viewId}', 'PATCH /projects/{id}/views/{viewId}', 'DELETE /projects/{id}/views/{viewId}']);
