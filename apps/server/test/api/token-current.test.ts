import { users } from '@tasklane/db';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from '../harness';

// Reads run beside the token's database check (not after it): a token that no longer holds must
// still get 401 on them, never the data, and a write must not happen at all.
describe('a token revoked in the database (token version moved on)', () => {
  let t: TestApp;
  let user: TestUser;
  let projectId: string;
  let taskId: string;

  beforeAll(async () => {
    // The server remembers a proven token for a minute here, far longer than the poll below waits.
    t = await startTestApp({ tokenCheckCacheMs: 60_000 });
    user = await registerUser(t, 'Revoked');
    projectId = (await createProject(t, user)).id;
    taskId = (await createTask(t, user, projectId, { title: 'Before' })).id;
    expect((await t.request('GET', '/api/v1/auth/me', { token: user.token })).status).toBe(200);
    // What a password change does to every earlier token, done in SQL outside the server (as an
    // operator might): the database's trigger announces it, and the server drops its cached proof.
    await t.database.db.update(users).set({ tokenVersion: sql`${users.tokenVersion} + 1` }).where(eq(users.id, user.id));
  });
  afterAll(() => t.close());

  it('reaches the server that had proven (and cached) the token, through the database announcement', async () => {
    await expect.poll(async () => (await t.request('GET', '/api/v1/auth/me', { token: user.token })).status, { timeout: 10_000 }).toBe(401);
  });

  it.each([
    ['a task', () => `/api/v1/tasks/${taskId}`],
    ['a project', () => `/api/v1/projects/${projectId}`],
    ["a project's tasks", () => `/api/v1/tasks/project/${projectId}`],
    ['an unknown task', () => '/api/v1/tasks/01900000-0000-7000-8000-000000000000'],
  ])('gets 401 reading %s over REST', async (_what, url) => {
    const response = await t.request('GET', url(), { token: user.token });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Missing, invalid or expired token', code: 'UNAUTHORIZED' });
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('gets 401 reading through the native tRPC transport', async () => {
    const input = encodeURIComponent(JSON.stringify({ 0: { id: taskId } }));
    const response = await t.request('GET', `/api/trpc/tasks.get?batch=1&input=${input}`, { token: user.token });
    expect(response.status).toBe(401);
    expect(JSON.stringify(response.body)).not.toContain('Before');
  });

  it('gets 401 writing, and nothing changes', async () => {
    const response = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: user.token, body: { title: 'After' } });
    expect(response.status).toBe(401);
    const fresh = await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } });
    const task = await t.request('GET', `/api/v1/tasks/${taskId}`, { token: fresh.body.access_token });
    expect(task.status).toBe(200);
    expect(task.body.title).toBe('Before');
  });
});
