import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from '../support/harness';

describe('Idempotency-Key on creates', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** The test's own users and project: keys are per user, so no test can meet another's key. */
  async function scene() {
    const [owner, other] = await Promise.all([registerUser(t, 'Owner'), registerUser(t, 'Other')]);
    const projectId = (await createProject(t, owner)).id;
    return { owner, other, projectId };
  }

  const post = (user: TestUser, url: string, body: unknown, key: string) =>
    t.request('POST', url, { token: user.token, body, headers: { 'idempotency-key': key } });
  const projectIds = async (user: TestUser) =>
    (await t.request('GET', '/api/v1/projects?limit=500', { token: user.token })).body.map((project: { id: string }) => project.id);
  const taskCount = async (owner: TestUser, projectId: string) =>
    (await t.request('GET', `/api/v1/tasks/project/${projectId}?limit=500`, { token: owner.token })).body.length;

  it('replays the first response for the same key and body, and creates nothing more', async () => {
    const { owner } = await scene();
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
    const { owner, projectId } = await scene();
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
    const { owner, other } = await scene();
    const mine = await post(owner, '/api/v1/projects', { name: 'Shared key' }, 'per-user-key');
    const theirs = await post(other, '/api/v1/projects', { name: 'Shared key' }, 'per-user-key');
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('creates once when the same request is retried concurrently', async () => {
    const { owner, projectId } = await scene();
    const before = await taskCount(owner, projectId);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => post(owner, '/api/v1/tasks', { title: 'Concurrent retry', projectId }, 'concurrent-key')),
    );
    expect(results.map((result) => result.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((result) => result.body.id)).size).toBe(1);
    expect(await taskCount(owner, projectId)).toBe(before + 1);
  });

  it('replays comments and member invites too', async () => {
    const { owner, projectId } = await scene();
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
    // The member's version is stored with the answer: the replay names the same member and version.
    expect({ etag: replayed.headers.etag, location: replayed.headers.location }).toEqual({ etag: invited.headers.etag, location: invited.headers.location });
    expect(invited.headers.etag).toMatch(/^"[0-9a-z]+"$/);
    const withoutKey = await t.request('POST', inviteUrl, { token: owner.token, body: { email: invitee.email, role: 'EDITOR' } });
    expect(withoutKey.status).toBe(409);
    expect(withoutKey.body.reason).toBe('ALREADY_MEMBER');
  });

  it('stores nothing for a failed request: the same key works once the request can succeed', async () => {
    const { owner, projectId } = await scene();
    const outsider = await registerUser(t);
    const refused = await post(outsider, '/api/v1/tasks', { title: 'Later', projectId }, 'after-failure');
    expect(refused.status).toBe(404);
    await invite(t, owner, projectId, outsider, 'EDITOR');
    const accepted = await post(outsider, '/api/v1/tasks', { title: 'Later', projectId }, 'after-failure');
    expect(accepted.status).toBe(201);
    expect(accepted.headers['idempotent-replayed']).toBeUndefined();
  });

  it('forgets keys after 24 hours', async () => {
    const { owner } = await scene();
    const first = await post(owner, '/api/v1/projects', { name: 'Day one' }, 'daily-key');
    await t.database.db.execute(sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'daily-key'`);
    const next = await post(owner, '/api/v1/projects', { name: 'Day two' }, 'daily-key');
    expect(next.status).toBe(201);
    expect(next.body.id).not.toBe(first.body.id);
  });

  it('refuses a malformed key with 400', async () => {
    const { owner } = await scene();
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
