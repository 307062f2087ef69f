import { users } from '@tasklane/db';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app/app';
import { createProject, createTask, registerUser, startTestApp, testConfig, type TestApp, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';
import { expectErrorBody, issueAt } from './support/checks';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('register and log in', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('registers a user: 201 with a token and the user, email normalised, no password', async () => {
    const response = await t.request('POST', '/api/v1/auth/register', {
      body: { name: '  Ada Lovelace ', email: ' Ada@Example.COM ', password: 'analytical' },
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(['access_token', 'expires_in', 'token_type', 'user']);
    expect(response.body.token_type).toBe('Bearer');
    expect(response.body.expires_in).toBe(3600);
    expect(response.body.access_token.split('.')).toHaveLength(3);
    expect(response.body.user).toEqual({ id: expect.stringMatching(UUID), name: 'Ada Lovelace', email: 'ada@example.com' });
    expect(response.headers['x-request-id']).toBeTruthy();
  });

  it('logs in: 200 with a working token; wrong password and unknown email get the same 401', async () => {
    const registered = await t.request('POST', '/api/v1/auth/register', { body: { name: 'Charles Babbage', email: 'charles@example.com', password: 'analytical' } });
    const owner = registered.body.user as { id: string };
    const ok = await t.request('POST', '/api/v1/auth/login', { body: { email: 'CHARLES@example.com', password: 'analytical' } });
    expect(ok.status).toBe(200);
    expect(ok.body.user).toEqual({ id: owner.id, name: 'Charles Babbage', email: 'charles@example.com' });
    const me = await t.request('GET', '/api/v1/auth/me', { token: ok.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ id: owner.id, name: 'Charles Babbage', email: 'charles@example.com', locale: null });

    const wrongPassword = await t.request('POST', '/api/v1/auth/login', { body: { email: 'charles@example.com', password: 'nope-nope' } });
    const unknownEmail = await t.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'nope-nope' } });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.body).toEqual(unknownEmail.body);
    expect(wrongPassword.body).toEqual({ message: 'Invalid email or password', code: 'UNAUTHORIZED', reason: 'INVALID_CREDENTIALS' });
  });
});

describe('account: PATCH /auth/me and POST /auth/logout', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const me = (token: string) => t.request('GET', '/api/v1/auth/me', { token });
  const patchMe = (user: TestUser, body: unknown) => t.request('PATCH', '/api/v1/auth/me', { token: user.token, body });
  const login = (email: string, password: string) => t.request('POST', '/api/v1/auth/login', { body: { email, password } });

  it('changes the name without a password', async () => {
    const user = await registerUser(t, 'Old Name');
    const response = await patchMe(user, { name: '  New Name ' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: user.id, name: 'New Name', email: user.email, locale: null });
    expect((await me(user.token)).body.name).toBe('New Name');
  });

  it('keeps the language chosen for the web app and emails; null is the browser\'s; an unknown one is a 400', async () => {
    const user = await registerUser(t);
    expect((await me(user.token)).body.locale).toBeNull();
    const chosen = await patchMe(user, { locale: 'ja' });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toEqual({ id: user.id, name: user.name, email: user.email, locale: 'ja' });
    expect((await me(user.token)).body.locale).toBe('ja');
    for (const locale of ['xx', 'de-DE', 'EN', 7, '']) {
      const refused = await patchMe(user, { locale });
      expectErrorBody(refused, 400, { issues: [issueAt(['locale'])] });
    }
    expect((await me(user.token)).body.locale).toBe('ja');
    const cleared = await patchMe(user, { locale: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.locale).toBeNull();
    // Only oneself sees it: the project's members list shows id, name and email.
    const project = await t.request('POST', '/api/v1/projects', { token: user.token, body: { name: 'Mine' } });
    const members = await t.request('GET', `/api/v1/projects/${project.body.id}/members`, { token: user.token });
    expect(JSON.stringify(members.body)).not.toContain('locale');
  });

  it('changes the email only with the current password; a taken email is a 409', async () => {
    const user = await registerUser(t);
    const other = await registerUser(t);
    const missing = await patchMe(user, { email: 'fresh@example.com' });
    expect(missing.status).toBe(400);
    expect(missing.body.issues).toEqual([expect.objectContaining({ path: ['currentPassword'] })]);
    const wrong = await patchMe(user, { email: 'fresh@example.com', currentPassword: 'not-it' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.reason).toBe('INVALID_CURRENT_PASSWORD');
    const taken = await patchMe(user, { email: other.email.toUpperCase(), currentPassword: user.password });
    expect(taken.status).toBe(409);
    expect(taken.body.reason).toBe('EMAIL_TAKEN');
    expect((await me(user.token)).body.email).toBe(user.email);

    const newEmail = `moved-${user.id.slice(-8)}@example.com`;
    const moved = await patchMe(user, { email: ` ${newEmail.toUpperCase()} `, currentPassword: user.password });
    expect(moved.status).toBe(200);
    expect(moved.body.email).toBe(newEmail);
    expect((await login(newEmail, user.password)).status).toBe(200);
    expect((await login(user.email, user.password)).status).toBe(401);
    // An email change alone does not end sessions.
    expect((await me(user.token)).status).toBe(200);
  });

  it('refuses unknown fields and bad values', async () => {
    const user = await registerUser(t);
    expect((await patchMe(user, { role: 'ADMIN' })).status).toBe(400);
    expect((await patchMe(user, { name: '' })).status).toBe(400);
    expect((await patchMe(user, { password: '123', currentPassword: user.password })).status).toBe(400);
    expect((await patchMe(user, { email: 'not-an-email', currentPassword: user.password })).status).toBe(400);
  });

  it('keeps personal access tokens working across a password change, as a reset does', async () => {
    const user = await registerUser(t);
    const created = await t.request('POST', '/api/v1/auth/tokens', { token: user.token, body: { name: 'CI', scopes: ['read'] } });
    expect(created.status).toBe(201);
    const personal: string = created.body.token;
    expect((await patchMe(user, { password: 'brand-new-secret', currentPassword: user.password })).status).toBe(200);
    expect((await me(user.token)).status).toBe(401);
    expect((await t.request('GET', '/api/v1/projects', { token: personal })).status).toBe(200);
    expect((await t.request('GET', '/api/trpc/projects.list', { token: personal })).status).toBe(200);
  });

  it('changes the password only with the current one, and signs every session out', async () => {
    const user = await registerUser(t);
    const second = (await login(user.email, user.password)).body.access_token as string;
    expect((await patchMe(user, { password: 'brand-new-secret' })).status).toBe(400);
    const wrong = await patchMe(user, { password: 'brand-new-secret', currentPassword: 'wrong-one' });
    expect(wrong.status).toBe(403);
    expect((await me(second)).status).toBe(200);

    const changed = await patchMe(user, { password: 'brand-new-secret', currentPassword: user.password });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ id: user.id, name: user.name, email: user.email, locale: null });
    for (const token of [user.token, second]) {
      const refused = await me(token);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer');
    }
    expect((await login(user.email, user.password)).status).toBe(401);
    const fresh = await login(user.email, 'brand-new-secret');
    expect(fresh.status).toBe(200);
    expect((await me(fresh.body.access_token)).status).toBe(200);
  });

  it('logs out the presented token only; other tokens of the user keep working', async () => {
    const user = await registerUser(t);
    const other = (await login(user.email, user.password)).body.access_token as string;
    const response = await t.request('POST', '/api/v1/auth/logout', { token: user.token, body: {} });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Logged out' });
    expect((await me(user.token)).status).toBe(401);
    expect((await t.request('POST', '/api/v1/auth/logout', { token: user.token, body: {} })).status).toBe(401);
    expect((await t.request('GET', '/api/v1/projects', { token: user.token })).status).toBe(401);
    expect((await me(other)).status).toBe(200);
    expect((await t.request('POST', '/api/v1/auth/logout', { body: {} })).status).toBe(401);
  });

  it('holds a logout across instances sharing the database', async () => {
    // The second instance remembers proven tokens for a minute: only the database's announcement
    // of the revocation can make it refuse one within the poll below.
    const second = await buildApp(testConfig({ tokenCheckCacheMs: 60_000 }), { database: t.database, logger: false });
    try {
      const user = await registerUser(t);
      const viaSecond = async (token: string) =>
        (await second.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${token}` } })).statusCode;
      // The second instance has verified (and cached) the token before the logout.
      expect(await viaSecond(user.token)).toBe(200);
      expect(await viaSecond(user.token)).toBe(200);
      expect((await t.request('POST', '/api/v1/auth/logout', { token: user.token, body: {} })).status).toBe(200);
      await expect.poll(() => viaSecond(user.token), { timeout: 10_000 }).toBe(401);

      const changer = await registerUser(t);
      expect(await viaSecond(changer.token)).toBe(200);
      await patchMe(changer, { password: 'another-secret', currentPassword: changer.password });
      await expect.poll(() => viaSecond(changer.token), { timeout: 10_000 }).toBe(401);
    } finally {
      await second.close();
    }
  });
});

// Reads run beside the token's database check (not after it): a token that no longer holds must
// still get 401 on them, never the data, and a write must not happen at all.
type Revoked = { projectId: string; taskId: string };

describe('a token revoked in the database (token version moved on)', () => {
  let t: TestApp;

  beforeAll(async () => {
    // The server remembers a proven token for a minute here, far longer than the poll below waits.
    t = await startTestApp({ tokenCheckCacheMs: 60_000 });
  });
  afterAll(() => t.close());

  const meStatus = async (user: TestUser) => (await t.request('GET', '/api/v1/auth/me', { token: user.token })).status;

  /**
   * A user with a project and a task, whose token the server has proven (and cached), then revoked.
   * `announced`: wait until the server has dropped its cached proof, so the revoked token is refused.
   */
  async function revokedUser({ announced }: { announced: boolean }) {
    const user = await registerUser(t, 'Revoked');
    const projectId = (await createProject(t, user)).id;
    const taskId = (await createTask(t, user, projectId, { title: 'Before' })).id;
    expect(await meStatus(user)).toBe(200);
    // What a password change does to every earlier token, done in SQL outside the server (as an
    // operator might): the database's trigger announces it, and the server drops its cached proof.
    await t.database.db.update(users).set({ tokenVersion: sql`${users.tokenVersion} + 1` }).where(eq(users.id, user.id));
    if (announced) await expect.poll(() => meStatus(user), { timeout: 10_000 }).toBe(401);
    return { user, projectId, taskId };
  }

  it('reaches the server that had proven (and cached) the token, through the database announcement', async () => {
    const { user } = await revokedUser({ announced: false });
    await expect.poll(() => meStatus(user), { timeout: 10_000 }).toBe(401);
  });

  it.each([
    ['a task', ({ taskId }: Revoked) => `/api/v1/tasks/${taskId}`],
    ['a project', ({ projectId }: Revoked) => `/api/v1/projects/${projectId}`],
    ["a project's tasks", ({ projectId }: Revoked) => `/api/v1/tasks/project/${projectId}`],
    ['an unknown task', () => '/api/v1/tasks/01900000-0000-7000-8000-000000000000'],
  ])('gets 401 reading %s over REST', async (_what, url) => {
    const revoked = await revokedUser({ announced: true });
    const response = await t.request('GET', url(revoked), { token: revoked.user.token });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Missing, invalid or expired token', code: 'UNAUTHORIZED' });
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('gets 401 reading through the native tRPC transport', async () => {
    const { user, taskId } = await revokedUser({ announced: true });
    const input = encodeURIComponent(JSON.stringify({ 0: { id: taskId } }));
    const response = await t.request('GET', `/api/trpc/tasks.get?batch=1&input=${input}`, { token: user.token });
    expect(response.status).toBe(401);
    expect(JSON.stringify(response.body)).not.toContain('Before');
  });

  it('gets 401 writing, and nothing changes', async () => {
    const { user, taskId } = await revokedUser({ announced: true });
    const response = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: user.token, body: { title: 'After' } });
    expect(response.status).toBe(401);
    const fresh = await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } });
    const task = await t.request('GET', `/api/v1/tasks/${taskId}`, { token: fresh.body.access_token });
    expect(task.status).toBe(200);
    expect(task.body.title).toBe('Before');
  });
});

describePermissions(['GET /auth/me']);
