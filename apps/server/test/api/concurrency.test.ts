import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from '../harness';

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

    for (const bogus of ['W/' + String(first.headers.etag), '"zzzzzzzzzzzzzzzz"', 'garbage']) {
      expect((await patchTask(editor, task.id, { title: 'x' }, bogus)).status, bogus).toBe(412);
    }
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

describe('Idempotency-Key on creates', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp();
    [owner, other] = await Promise.all([registerUser(t, 'Owner'), registerUser(t, 'Other')]);
    projectId = (await createProject(t, owner)).id;
  });
  afterAll(() => t.close());

  const post = (user: TestUser, url: string, body: unknown, key: string) =>
    t.request('POST', url, { token: user.token, body, headers: { 'idempotency-key': key } });
  const projectIds = async (user: TestUser) =>
    (await t.request('GET', '/api/v1/projects?limit=500', { token: user.token })).body.map((project: { id: string }) => project.id);
  const taskCount = async () => (await t.request('GET', `/api/v1/tasks/project/${projectId}?limit=500`, { token: owner.token })).body.length;

  it('replays the first response for the same key and body, and creates nothing more', async () => {
    const before = (await projectIds(owner)).length;
    const first = await post(owner, '/api/v1/projects', { name: 'Once' }, 'create-once-1');
    const again = await post(owner, '/api/v1/projects', { name: 'Once' }, 'create-once-1');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.headers.etag).toBe(first.headers.etag);
    expect((await projectIds(owner)).length).toBe(before + 1);
  });

  it('refuses the same key with a different body (409 IDEMPOTENCY_KEY_REUSED), also on another endpoint', async () => {
    await post(owner, '/api/v1/projects', { name: 'Alpha' }, 'reused-key');
    const different = await post(owner, '/api/v1/projects', { name: 'Beta' }, 'reused-key');
    expect(different.status).toBe(409);
    expect(different.body).toMatchObject({ code: 'CONFLICT', reason: 'IDEMPOTENCY_KEY_REUSED' });
    const elsewhere = await post(owner, '/api/v1/tasks', { title: 'Alpha', projectId }, 'reused-key');
    expect(elsewhere.status).toBe(409);
    const names = (await t.request('GET', '/api/v1/projects?limit=500', { token: owner.token })).body.map((project: { name: string }) => project.name);
    expect(names.filter((name: string) => name === 'Beta')).toHaveLength(0);
  });

  it('keeps keys per user: another user with the same key creates their own', async () => {
    const mine = await post(owner, '/api/v1/projects', { name: 'Shared key' }, 'per-user-key');
    const theirs = await post(other, '/api/v1/projects', { name: 'Shared key' }, 'per-user-key');
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('creates once when the same request is retried concurrently', async () => {
    const before = await taskCount();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => post(owner, '/api/v1/tasks', { title: 'Concurrent retry', projectId }, 'concurrent-key')),
    );
    expect(results.map((result) => result.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((result) => result.body.id)).size).toBe(1);
    expect(await taskCount()).toBe(before + 1);
  });

  it('replays comments and member invites too', async () => {
    const task = await createTask(t, owner, projectId);
    const url = `/api/v1/tasks/${task.id}/comments`;
    const first = await post(owner, url, { text: 'hello' }, 'comment-key');
    const again = await post(owner, url, { text: 'hello' }, 'comment-key');
    expect(again.body).toEqual(first.body);
    expect((await t.request('GET', url, { token: owner.token })).body).toHaveLength(1);

    const invitee = await registerUser(t);
    const inviteUrl = `/api/v1/projects/${projectId}/members/invite`;
    const invited = await post(owner, inviteUrl, { email: invitee.email, role: 'EDITOR' }, 'invite-key');
    const replayed = await post(owner, inviteUrl, { email: invitee.email, role: 'EDITOR' }, 'invite-key');
    expect(invited.status).toBe(201);
    expect(replayed.status).toBe(201);
    expect(replayed.body).toEqual(invited.body);
    const withoutKey = await t.request('POST', inviteUrl, { token: owner.token, body: { email: invitee.email, role: 'EDITOR' } });
    expect(withoutKey.status).toBe(409);
    expect(withoutKey.body.reason).toBe('ALREADY_MEMBER');
  });

  it('stores nothing for a failed request: the same key works once the request can succeed', async () => {
    const outsider = await registerUser(t);
    const refused = await post(outsider, '/api/v1/tasks', { title: 'Later', projectId }, 'after-failure');
    expect(refused.status).toBe(404);
    await invite(t, owner, projectId, outsider, 'EDITOR');
    const accepted = await post(outsider, '/api/v1/tasks', { title: 'Later', projectId }, 'after-failure');
    expect(accepted.status).toBe(201);
    expect(accepted.headers['idempotent-replayed']).toBeUndefined();
  });

  it('forgets keys after 24 hours', async () => {
    const first = await post(owner, '/api/v1/projects', { name: 'Day one' }, 'daily-key');
    await t.database.db.execute(sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'daily-key'`);
    const next = await post(owner, '/api/v1/projects', { name: 'Day two' }, 'daily-key');
    expect(next.status).toBe(201);
    expect(next.body.id).not.toBe(first.body.id);
  });

  it('refuses a malformed key with 400', async () => {
    for (const key of ['x'.repeat(256), 'with space']) {
      const response = await post(owner, '/api/v1/projects', { name: 'Bad key' }, key);
      expect(response.status).toBe(400);
      expect(response.body.reason).toBe('INVALID_IDEMPOTENCY_KEY');
    }
  });

  it('documents the request headers in the OpenAPI document', async () => {
    const document = (await t.request('GET', '/api/v1/openapi.json')).body;
    const names = (operation: { parameters?: { name: string; in: string }[] }) =>
      (operation.parameters ?? []).filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name);
    expect(names(document.paths['/projects'].post)).toEqual(['Idempotency-Key']);
    expect(names(document.paths['/tasks/{id}'].patch)).toEqual(['If-Match']);
    expect(Object.keys(document.paths['/tasks/{id}'].patch.responses)).toContain('412');
    expect(document.paths['/tasks/{id}'].get.responses['200'].headers.ETag).toBeDefined();
  });
});
