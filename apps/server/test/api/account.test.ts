import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import { registerUser, startTestApp, testConfig, type TestApp, type TestUser } from '../harness';

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
    expect(response.body).toEqual({ id: user.id, name: 'New Name', email: user.email });
    expect((await me(user.token)).body.name).toBe('New Name');
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

  it('changes the password only with the current one, and revokes every token issued before', async () => {
    const user = await registerUser(t);
    const second = (await login(user.email, user.password)).body.access_token as string;
    expect((await patchMe(user, { password: 'brand-new-secret' })).status).toBe(400);
    const wrong = await patchMe(user, { password: 'brand-new-secret', currentPassword: 'wrong-one' });
    expect(wrong.status).toBe(403);
    expect((await me(second)).status).toBe(200);

    const changed = await patchMe(user, { password: 'brand-new-secret', currentPassword: user.password });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ id: user.id, name: user.name, email: user.email });
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
