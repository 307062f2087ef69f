import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSnapshot, expectErrorBody } from './support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestResponse, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';

const nextLink = (headers: Record<string, unknown>) => /^<([^>]+)>; rel="next"$/.exec(String(headers.link ?? ''))?.[1];

/** A 400 whose issues name `field` (first in a path), with `reason` when given. */
function expectFieldRefused(response: TestResponse, field: string, reason?: string): void {
  expectErrorBody(response, 400, { ...(reason ? { reason } : {}), issues: expect.arrayContaining([expect.objectContaining({ path: expect.arrayContaining([field]) })]) });
  expect(response.body.issues.every((issue: { path: unknown[] }) => issue.path[0] === field), JSON.stringify(response.body)).toBe(true);
}

interface Label {
  id: string;
  projectId: string;
  name: string;
  color: string;
  createdAt: string;
  updatedAt: string;
}

describe('labels: create, list, rename, recolour, delete', () => {
  let t: TestApp;
  let owner: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    editor = await registerUser(t, 'Editor');
    viewer = await registerUser(t, 'Viewer');
    outsider = await registerUser(t, 'Outsider');
  });
  afterAll(() => t.close());

  /** A project of the test's own with an EDITOR and a VIEWER. */
  async function project() {
    const projectId = (await createProject(t, owner)).id;
    await invite(t, owner, projectId, editor, 'EDITOR');
    await invite(t, owner, projectId, viewer, 'VIEWER');
    return projectId;
  }

  const labelsPath = (projectId: string) => `/api/v1/projects/${projectId}/labels`;
  const create = (projectId: string, body: Record<string, unknown>, user = editor) => t.request('POST', labelsPath(projectId), { token: user.token, body });
  async function label(projectId: string, name: string, color?: string): Promise<Label> {
    const response = await create(projectId, { name, ...(color ? { color } : {}) });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  it('creates a label (201): name trimmed, colour lower-cased, a default colour when none is given', async () => {
    const projectId = await project();
    const response = await create(projectId, { name: '  Bug ', color: '#D73A4A' });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(['color', 'createdAt', 'id', 'name', 'projectId', 'updatedAt']);
    expect(response.body).toMatchObject({ name: 'Bug', color: '#d73a4a', projectId });
    expect((await label(projectId, 'Chore')).color).toBe('#6b7280');
  });

  it('lists labels by name regardless of case, paged by cursor; every member reads them', async () => {
    const projectId = await project();
    for (const name of ['delta', 'Alpha', 'charlie', 'Echo', 'bravo']) await label(projectId, name);
    const seen: string[] = [];
    let url: string | undefined = `${labelsPath(projectId)}?limit=2`;
    while (url) {
      const response = await t.request('GET', url, { token: viewer.token });
      expect(response.status).toBe(200);
      expect(response.body.length).toBeLessThanOrEqual(2);
      seen.push(...response.body.map((item: Label) => item.name));
      url = nextLink(response.headers);
    }
    expect(seen).toEqual(['Alpha', 'bravo', 'charlie', 'delta', 'Echo']);

    const input = encodeURIComponent(JSON.stringify({ id: projectId, limit: 3 }));
    const page = await t.request('GET', `/api/trpc/labels.list?input=${input}`, { token: viewer.token });
    expect(page.body.result.data.items.map((item: Label) => item.name)).toEqual(['Alpha', 'bravo', 'charlie']);
    const rest = await t.request('GET', `${labelsPath(projectId)}?cursor=${page.body.result.data.nextCursor}`, { token: viewer.token });
    expect(rest.body.map((item: Label) => item.name)).toEqual(['delta', 'Echo']);
  });

  it('refuses a name the project already has in any case (409 LABEL_EXISTS), on create and on rename; another project may have it', async () => {
    const projectId = await project();
    const bug = await label(projectId, 'Bug');
    const feature = await label(projectId, 'Feature');
    for (const name of ['Bug', 'bug', 'BUG', ' bUg ']) {
      expectErrorBody(await create(projectId, { name }), 409, { reason: 'LABEL_EXISTS' });
    }
    const rename = await t.request('PATCH', `${labelsPath(projectId)}/${feature.id}`, { token: editor.token, body: { name: 'BUG' } });
    expectErrorBody(rename, 409, { reason: 'LABEL_EXISTS' });
    // A label may change the case of its own name.
    const recased = await t.request('PATCH', `${labelsPath(projectId)}/${bug.id}`, { token: editor.token, body: { name: 'BUG' } });
    expect(recased.status).toBe(200);
    expect(recased.body.name).toBe('BUG');
    expect((await label(await project(), 'bug')).name).toBe('bug');
  });

  it('concurrent creates of one name (in any case): exactly one 201, the others 409, never a 500', async () => {
    const projectId = await project();
    const responses = await Promise.all(['Urgent', 'urgent', 'URGENT', 'Urgent', 'uRGENT', 'urgent'].map((name) => create(projectId, { name })));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((candidate) => candidate.status === 409)) expectErrorBody(response, 409, { reason: 'LABEL_EXISTS' });
    const listed = await t.request('GET', labelsPath(projectId), { token: owner.token });
    expect(listed.body).toHaveLength(1);
  });

  it('validates name and colour (400 naming the field), writing nothing', async () => {
    const projectId = await project();
    const before = await databaseSnapshot(t);
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(51) }, 'name'],
      [{ name: 'Ok', color: 'red' }, 'color'],
      [{ name: 'Ok', color: '#abc' }, 'color'],
      [{ name: 'Ok', color: '#gggggg' }, 'color'],
      [{ name: 'Ok', color: '#1234567' }, 'color'],
      [{ name: 'Ok', color: 'd73a4a' }, 'color'],
      [{ name: 'Ok', color: null }, 'color'],
      [{ color: '#d73a4a' }, 'name'],
      [{ name: 'Ok', extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) expectFieldRefused(await create(projectId, body), field);
    expect(await databaseSnapshot(t)).toEqual(before);
    expect((await label(projectId, 'x'.repeat(50), '#A0b1C2')).color).toBe('#a0b1c2');
  });

  it('updates name and colour; updatedAt moves; an unknown, malformed or other project’s label id is a 404', async () => {
    const projectId = await project();
    const bug = await label(projectId, 'Bug', '#d73a4a');
    const path = `${labelsPath(projectId)}/${bug.id}`;
    const renamed = await t.request('PATCH', path, { token: editor.token, body: { name: 'Defect', color: '#0E8A16' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: bug.id, name: 'Defect', color: '#0e8a16', createdAt: bug.createdAt });
    expect(renamed.body.updatedAt > bug.updatedAt || renamed.body.updatedAt !== bug.updatedAt).toBe(true);
    expectFieldRefused(await t.request('PATCH', path, { token: editor.token, body: { color: 'green' } }), 'color');

    const elsewhere = await project();
    expect((await t.request('GET', path, { token: viewer.token })).body).toEqual(renamed.body);
    for (const url of [`${labelsPath(projectId)}/${randomUUID()}`, `${labelsPath(projectId)}/not-an-id`, `${labelsPath(elsewhere)}/${bug.id}`]) {
      expectErrorBody(await t.request('GET', url, { token: owner.token }), 404, { message: 'Label not found' });
      expectErrorBody(await t.request('PATCH', url, { token: owner.token, body: { name: 'Nope' } }), 404, { message: 'Label not found' });
      expectErrorBody(await t.request('DELETE', url, { token: owner.token }), 404, { message: 'Label not found' });
    }
  });

  it('a VIEWER reads labels but may not manage them (403); a non-member gets 404 on every label route', async () => {
    const projectId = await project();
    const bug = await label(projectId, 'Bug');
    expect((await t.request('GET', labelsPath(projectId), { token: viewer.token })).status).toBe(200);
    const before = await databaseSnapshot(t);
    expectErrorBody(await create(projectId, { name: 'Mine' }, viewer), 403);
    expectErrorBody(await t.request('PATCH', `${labelsPath(projectId)}/${bug.id}`, { token: viewer.token, body: { name: 'Mine' } }), 403);
    expectErrorBody(await t.request('DELETE', `${labelsPath(projectId)}/${bug.id}`, { token: viewer.token }), 403);
    for (const [method, url, body] of [
      ['GET', labelsPath(projectId), undefined],
      ['GET', `${labelsPath(projectId)}/${bug.id}`, undefined],
      ['POST', labelsPath(projectId), { name: 'Mine' }],
      ['PATCH', `${labelsPath(projectId)}/${bug.id}`, { name: 'Mine' }],
      ['DELETE', `${labelsPath(projectId)}/${bug.id}`, undefined],
    ] as const) {
      const response = await t.request(method, url, { token: outsider.token, ...(body ? { body } : {}) });
      expectErrorBody(response, 404, { message: 'Project not found' });
      expect(JSON.stringify(response.body)).not.toContain('Bug');
    }
    expect(await databaseSnapshot(t)).toEqual(before);
  });

  it('records label changes in the project activity: label.created, label.updated (with the changes), label.deleted', async () => {
    const projectId = await project();
    const bug = await label(projectId, 'Bug', '#d73a4a');
    await t.request('PATCH', `${labelsPath(projectId)}/${bug.id}`, { token: editor.token, body: { color: '#000000' } });
    await t.request('DELETE', `${labelsPath(projectId)}/${bug.id}`, { token: editor.token });
    const activity = await t.request('GET', `/api/v1/projects/${projectId}/activity`, { token: viewer.token });
    const labelEvents = activity.body.filter((event: { type: string }) => event.type.startsWith('label.')).reverse();
    expect(labelEvents.map((event: { type: string }) => event.type)).toEqual(['label.created', 'label.updated', 'label.deleted']);
    expect(labelEvents[1]).toMatchObject({ actorId: editor.id, taskId: null, resource: { id: bug.id, color: '#000000' }, changes: { color: { old: '#d73a4a', new: '#000000' } } });
    expect(labelEvents[2].resource).toMatchObject({ id: bug.id, name: 'Bug' });
  });
});

describe('labels on tasks: labelIds on every read, validation, filtering, deletion', () => {
  let t: TestApp;
  let owner: TestUser;
  let editor: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    editor = await registerUser(t, 'Editor');
  });
  afterAll(() => t.close());

  /** A project with an EDITOR and three labels, created in the order a, b, c (so their ids sort so). */
  async function project() {
    const projectId = (await createProject(t, owner)).id;
    await invite(t, owner, projectId, editor, 'EDITOR');
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const response = await t.request('POST', `/api/v1/projects/${projectId}/labels`, { token: editor.token, body: { name } });
      expect(response.status).toBe(201);
      ids.push(response.body.id);
    }
    const [a, b, c] = ids as [string, string, string];
    return { projectId, a, b, c };
  }

  const getTask = (taskId: string) => t.request('GET', `/api/v1/tasks/${taskId}`, { token: editor.token });
  const patchTask = (taskId: string, body: Record<string, unknown>) => t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: editor.token, body });
  const listIds = async (url: string) => {
    const response = await t.request('GET', url, { token: editor.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.map((task: { id: string }) => task.id) as string[];
  };

  it('carries labelIds (in id order, upper-case ids read back as stored) and commentCount on create, get, lists, PATCH, tRPC and activity', async () => {
    const { projectId, a, b, c } = await project();
    const plain = await createTask(t, editor, projectId, { title: 'Plain' });
    expect(plain).toMatchObject({ labelIds: [], commentCount: 0 });

    const created = await t.request('POST', '/api/v1/tasks', { token: editor.token, body: { title: 'Labelled', projectId, labelIds: [c, a.toUpperCase()] } });
    expect(created.status).toBe(201);
    expect(created.body.labelIds).toEqual([a, c]);
    const taskId = created.body.id as string;

    expect((await getTask(taskId)).body.labelIds).toEqual([a, c]);
    for (const url of [`/api/v1/tasks/project/${projectId}`, '/api/v1/tasks']) {
      const listed = await t.request('GET', url, { token: editor.token });
      const byId = new Map(listed.body.map((task: { id: string }) => [task.id, task]));
      expect(byId.get(taskId)).toMatchObject({ labelIds: [a, c], commentCount: 0 });
      expect(byId.get(plain.id)).toMatchObject({ labelIds: [], commentCount: 0 });
    }
    const trpc = await t.request('GET', `/api/trpc/tasks.get?input=${encodeURIComponent(JSON.stringify({ id: taskId }))}`, { token: editor.token });
    expect(trpc.body.result.data).toMatchObject({ labelIds: [a, c], commentCount: 0 });

    const patched = await patchTask(taskId, { labelIds: [b] });
    expect(patched.status).toBe(200);
    expect(patched.body.labelIds).toEqual([b]);
    expect((await getTask(taskId)).body.labelIds).toEqual([b]);
    // A PATCH without labelIds leaves them as they are.
    expect((await patchTask(taskId, { status: 'DONE' })).body.labelIds).toEqual([b]);
    expect((await patchTask(taskId, { labelIds: [] })).body.labelIds).toEqual([]);

    const activity = await t.request('GET', `/api/v1/tasks/${taskId}/activity`, { token: editor.token });
    const events = [...activity.body].reverse() as { type: string; resource: { labelIds: string[] }; changes: Record<string, { old: unknown; new: unknown }> | null }[];
    expect(events.map((event) => event.type)).toEqual(['task.created', 'task.updated', 'task.updated', 'task.updated']);
    expect(events[0]!.resource.labelIds).toEqual([a, c]);
    expect(events[1]!.changes).toEqual({ labelIds: { old: [a, c], new: [b] } });
    expect(events[2]!.changes).not.toHaveProperty('labelIds');
    expect(events[3]!.changes).toEqual({ labelIds: { old: [b], new: [] } });
    // The same labels in another order are no change to record.
    await patchTask(taskId, { labelIds: [c, a] });
    expect((await patchTask(taskId, { labelIds: [a, c] })).body.labelIds).toEqual([a, c]);
    const after = await t.request('GET', `/api/v1/tasks/${taskId}/activity`, { token: editor.token });
    expect(after.body).toHaveLength(5);
    expect(after.body[0].changes).toEqual({ labelIds: { old: [], new: [a, c] } });
  });

  it("refuses labelIds that are not this project's labels (400 naming labelIds), on create and PATCH, writing nothing", async () => {
    const { projectId, a } = await project();
    const other = await project();
    const taskId = (await createTask(t, editor, projectId, { labelIds: [a] })).id;
    const before = await databaseSnapshot(t);
    // Ids that are no label of the project are refused by the service (with a reason), the rest by the schema.
    const notOfProject: unknown[] = [[other.a], [a, other.a], [randomUUID()], ['not-an-id']];
    const malformed: unknown[] = [[a, a], [a, a.toUpperCase()], 'a', [1], Array.from({ length: 21 }, () => randomUUID()), null];
    for (const labelIds of [...notOfProject, ...malformed]) {
      for (const response of [
        await t.request('POST', '/api/v1/tasks', { token: editor.token, body: { title: 'Bad', projectId, labelIds } }),
        await patchTask(taskId, { labelIds }),
      ]) {
        expectFieldRefused(response, 'labelIds', notOfProject.includes(labelIds) ? 'LABEL_NOT_IN_PROJECT' : undefined);
      }
    }
    const foreign = await patchTask(taskId, { labelIds: [other.a] });
    expectFieldRefused(foreign, 'labelIds', 'LABEL_NOT_IN_PROJECT');
    expect(foreign.body.message).toMatch(/^Invalid input: labelIds: /);
    expect(await databaseSnapshot(t)).toEqual(before);
    expect((await getTask(taskId)).body.labelIds).toEqual([a]);
  });

  it('a non-member gets 404 (not 400) for a create naming labels, as without them', async () => {
    const { projectId, a } = await project();
    const outsider = await registerUser(t, 'Outsider');
    const response = await t.request('POST', '/api/v1/tasks', { token: outsider.token, body: { title: 'x', projectId, labelIds: [a, randomUUID()] } });
    expectErrorBody(response, 404, { message: 'Project not found' });
  });

  it('filters task lists by labelId: a comma list matches tasks carrying any of them', async () => {
    const { projectId, a, b, c } = await project();
    const onlyA = (await createTask(t, editor, projectId, { title: 'A', labelIds: [a] })).id;
    const ab = (await createTask(t, editor, projectId, { title: 'AB', labelIds: [a, b] })).id;
    const onlyC = (await createTask(t, editor, projectId, { title: 'C', labelIds: [c] })).id;
    const none = (await createTask(t, editor, projectId, { title: 'None' })).id;
    const base = `/api/v1/tasks/project/${projectId}`;
    expect(await listIds(`${base}?labelId=${a}`)).toEqual([onlyA, ab]);
    expect(await listIds(`${base}?labelId=${b}`)).toEqual([ab]);
    expect(await listIds(`${base}?labelId=${b},${c}`)).toEqual([ab, onlyC]);
    expect(await listIds(`${base}?labelId=${c.toUpperCase()},${a}&sort=-createdAt`)).toEqual([onlyC, ab, onlyA]);
    expect(await listIds(`${base}?labelId=${randomUUID()}`)).toEqual([]);
    expect(await listIds(`${base}`)).toEqual([onlyA, ab, onlyC, none]);
    expect(await listIds(`/api/v1/tasks?labelId=${a},${c}`)).toEqual([onlyA, ab, onlyC]);
    // Combined with other filters, and paged.
    expect(await listIds(`${base}?labelId=${a},${c}&q=C`)).toEqual([onlyC]);
    const first = await t.request('GET', `${base}?labelId=${a},${c}&limit=2`, { token: editor.token });
    expect(first.body.map((task: { id: string }) => task.id)).toEqual([onlyA, ab]);
    expect(await listIds(nextLink(first.headers)!)).toEqual([onlyC]);

    for (const query of ['labelId=nope', `labelId=${a},nope`, `labelId=${Array.from({ length: 21 }, () => randomUUID()).join(',')}`]) {
      expectFieldRefused(await t.request('GET', `${base}?${query}`, { token: editor.token }), 'labelId');
    }
  });

  it('deleting a label takes it off its tasks in the same transaction, each a recorded update with a new version', async () => {
    const { projectId, a, b, c } = await project();
    const both = await createTask(t, editor, projectId, { title: 'Both', labelIds: [a, b] });
    const onlyB = await createTask(t, editor, projectId, { title: 'Only B', labelIds: [b] });
    const untouched = await createTask(t, editor, projectId, { title: 'Only A', labelIds: [a] });
    const etags = { both: (await getTask(both.id)).headers.etag, untouched: (await getTask(untouched.id)).headers.etag };

    const deleted = await t.request('DELETE', `/api/v1/projects/${projectId}/labels/${b}`, { token: editor.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: 'Label deleted' });

    const bothNow = await getTask(both.id);
    expect(bothNow.body.labelIds).toEqual([a]);
    expect(bothNow.headers.etag).not.toBe(etags.both);
    expect((await getTask(onlyB.id)).body.labelIds).toEqual([]);
    const untouchedNow = await getTask(untouched.id);
    expect(untouchedNow.body.labelIds).toEqual([a]);
    expect(untouchedNow.headers.etag).toBe(etags.untouched);
    expect(await listIds(`/api/v1/tasks/project/${projectId}?labelId=${b}`)).toEqual([]);

    const history = await t.request('GET', `/api/v1/tasks/${both.id}/activity`, { token: editor.token });
    expect(history.body[0]).toMatchObject({ type: 'task.updated', actorId: editor.id, changes: { labelIds: { old: [a, b], new: [a] } } });
    const labels = await t.request('GET', `/api/v1/projects/${projectId}/labels`, { token: editor.token });
    expect(labels.body.map((label: { id: string }) => label.id)).toEqual([a, c]);
    // The deleted label can no longer be given to a task.
    expectFieldRefused(await patchTask(untouched.id, { labelIds: [a, b] }), 'labelIds', 'LABEL_NOT_IN_PROJECT');
  });

  it('a label deleted while tasks are being labelled with it ends on no task', async () => {
    const { projectId, a } = await project();
    const tasks = await Promise.all(Array.from({ length: 6 }, (_, index) => createTask(t, editor, projectId, { title: `T${index}` })));
    const [deletion, ...writes] = await Promise.all([
      t.request('DELETE', `/api/v1/projects/${projectId}/labels/${a}`, { token: editor.token }),
      ...tasks.map((task) => patchTask(task.id, { labelIds: [a] })),
      t.request('POST', '/api/v1/tasks', { token: editor.token, body: { title: 'New', projectId, labelIds: [a] } }),
    ]);
    expect(deletion!.status).toBe(200);
    for (const write of writes) expect([200, 201, 400], JSON.stringify(write.body)).toContain(write.status);
    const listed = await t.request('GET', `/api/v1/tasks/project/${projectId}`, { token: editor.token });
    for (const task of listed.body) expect(task.labelIds).toEqual([]);
  });

  it('deleting the project deletes its labels', async () => {
    const { projectId } = await project();
    await createTask(t, editor, projectId, { title: 'x' });
    expect((await t.request('DELETE', `/api/v1/projects/${projectId}`, { token: owner.token })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/projects/${projectId}/labels`, { token: owner.token })).status).toBe(404);
  });
});

describe('commentCount', () => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
  });
  afterAll(() => t.close());

  it('follows comments created and deleted, on every read, without moving the task’s version', async () => {
    const projectId = (await createProject(t, owner)).id;
    const task = await createTask(t, owner, projectId);
    const other = await createTask(t, owner, projectId, { title: 'Other' });
    const read = async () => {
      const single = await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token });
      const listed = await t.request('GET', `/api/v1/tasks/project/${projectId}`, { token: owner.token });
      const inList = listed.body.find((item: { id: string }) => item.id === task.id).commentCount;
      expect(inList).toBe(single.body.commentCount);
      return { count: single.body.commentCount as number, etag: single.headers.etag };
    };
    const start = await read();
    expect(start.count).toBe(0);

    const comments = await Promise.all(
      Array.from({ length: 5 }, (_, index) => t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: `c${index}` } })),
    );
    expect(comments.map((response) => response.status)).toEqual([201, 201, 201, 201, 201]);
    const afterCreates = await read();
    expect(afterCreates).toEqual({ count: 5, etag: start.etag });

    for (const comment of comments.slice(0, 2)) {
      expect((await t.request('DELETE', `/api/v1/tasks/${task.id}/comments/${comment.body.id}`, { token: owner.token })).status).toBe(200);
    }
    expect((await read()).count).toBe(3);
    // A refused deletion (stale If-Match) counts nothing off.
    const stale = await t.request('DELETE', `/api/v1/tasks/${task.id}/comments/${comments[2]!.body.id}`, { token: owner.token, headers: { 'if-match': '"0"' } });
    expect(stale.status).toBe(412);
    expect((await read()).count).toBe(3);
    const patched = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { title: 'Renamed' } });
    expect(patched.body.commentCount).toBe(3);
    expect((await t.request('GET', `/api/v1/tasks/${other.id}`, { token: owner.token })).body.commentCount).toBe(0);
  });

  it('comments racing task updates and deletions of comments never deadlock, and the count stays exact', async () => {
    const projectId = (await createProject(t, owner)).id;
    const task = await createTask(t, owner, projectId);
    const first = await Promise.all(
      Array.from({ length: 4 }, (_, index) => t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: `first ${index}` } })),
    );
    const results = await Promise.all([
      ...Array.from({ length: 6 }, (_, index) => t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: `more ${index}` } })),
      ...Array.from({ length: 6 }, (_, index) => t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { title: `Title ${index}` } })),
      ...first.map((comment) => t.request('DELETE', `/api/v1/tasks/${task.id}/comments/${comment.body.id}`, { token: owner.token })),
    ]);
    for (const result of results) expect(result.status, JSON.stringify(result.body)).toBeLessThan(300);
    expect((await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).body.commentCount).toBe(6);
    const listed = await t.request('GET', `/api/v1/tasks/${task.id}/comments`, { token: owner.token });
    expect(listed.body).toHaveLength(6);
  });
});

describe('the cost of a page of labelled tasks', () => {
  let t: TestApp;
  afterAll(() => t.close());

  it('reads labelIds and commentCount with the page: the same statements for 5 tasks as for 50, labelled or not', async () => {
    t = await startTestApp();
    const owner = await registerUser(t, 'Owner');
    const labelled = (await createProject(t, owner, 'Labelled')).id;
    const plain = (await createProject(t, owner, 'Plain')).id;
    const labelIds: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      labelIds.push((await t.request('POST', `/api/v1/projects/${labelled}/labels`, { token: owner.token, body: { name } })).body.id);
    }
    for (let index = 0; index < 50; index += 1) {
      const task = await createTask(t, owner, labelled, { title: `L${index}`, labelIds: labelIds.slice(0, 1 + (index % 3)) });
      if (index % 10 === 0) await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'c' } });
      await createTask(t, owner, plain, { title: `P${index}` });
    }
    let statements = 0;
    t.database.onQuerySettled(() => {
      statements += 1;
    });
    // The fewest statements of three requests: the count is of the whole database, so a background
    // statement (the event dispatcher's safety poll, a token check whose cache just expired on a
    // slow machine) can land inside one request's window, never below what the request itself runs.
    const statementsFor = async (url: string) => {
      await t.request('GET', url, { token: owner.token }); // warm: the token check and the statement's first preparation
      let fewest = Number.POSITIVE_INFINITY;
      let tasks: { labelIds: string[]; commentCount: number }[] = [];
      for (let attempt = 0; attempt < 3; attempt += 1) {
        statements = 0;
        const response = await t.request('GET', url, { token: owner.token });
        expect(response.status).toBe(200);
        fewest = Math.min(fewest, statements);
        tasks = response.body as typeof tasks;
      }
      return { statements: fewest, tasks };
    };
    const small = await statementsFor(`/api/v1/tasks/project/${labelled}?limit=5`);
    const large = await statementsFor(`/api/v1/tasks/project/${labelled}?limit=50`);
    const unlabelled = await statementsFor(`/api/v1/tasks/project/${plain}?limit=50`);
    expect(large.tasks).toHaveLength(50);
    expect(large.tasks.filter((task) => task.labelIds.length === 3)).toHaveLength(16);
    expect(large.tasks.reduce((sum, task) => sum + task.commentCount, 0)).toBe(5);
    expect(small.statements).toBeGreaterThan(0);
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBe(unlabelled.statements);
    const filtered = await statementsFor(`/api/v1/tasks/project/${labelled}?limit=50&labelId=${labelIds[2]}`);
    expect(filtered.tasks).toHaveLength(16);
    expect(filtered.statements).toBe(small.statements);
  });
});

describePermissions(['GET /projects/{id}/labels', 'POST /projects/{id}/labels', 'GET /projects/{id}/labels/{labelId}', 'PATCH /projects/{id}/labels/{labelId}', 'DELETE /projects/{id}/labels/{labelId}']);
