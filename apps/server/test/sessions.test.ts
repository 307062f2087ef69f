import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, signTestToken } from './support/checks';
import { registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { meStatus, startSecondInstance } from './support/second-instance';

describe('sessions: every login is a session the user can see and sign out', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const login = async (user: TestUser, userAgent = 'Sessions test/1.0') =>
    (await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password }, headers: { 'user-agent': userAgent } })).body
      .access_token as string;
  const sessions = async (token: string) => (await t.request('GET', '/api/v1/auth/sessions', { token })).body as Record<string, unknown>[];

  it('lists the sessions, newest first, with when they began and were last used, the user agent and the address', async () => {
    const user = await registerUser(t);
    const laptop = await login(user, 'Firefox on the laptop');
    const phone = await login(user, 'Safari on the phone');
    const listed = await t.request('GET', '/api/v1/auth/sessions', { token: phone });
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(3);
    expect(listed.body.map((session: { userAgent: string }) => session.userAgent)).toEqual(['Safari on the phone', 'Firefox on the laptop', 'lightMyRequest']);
    expect(listed.body.map((session: { current: boolean }) => session.current)).toEqual([true, false, false]);
    for (const session of listed.body) {
      expect(session).toEqual({
        id: expect.any(String),
        method: 'password',
        createdAt: expect.stringMatching(/Z$/),
        lastUsedAt: expect.stringMatching(/Z$/),
        expiresAt: expect.stringMatching(/Z$/),
        userAgent: expect.any(String),
        ip: '127.0.0.1',
        current: expect.any(Boolean),
      });
      expect(Date.parse(session.expiresAt) - Date.parse(session.createdAt)).toBe(3600 * 1000);
    }
    // Another user's list holds none of them.
    const other = await registerUser(t);
    expect((await sessions(other.token)).map((session) => session.id)).not.toContain(listed.body[0].id);
    expect((await t.request('GET', '/api/v1/auth/sessions', { token: laptop })).body[1].current).toBe(true);
  });

  it('pages by cursor', async () => {
    const user = await registerUser(t);
    await login(user);
    await login(user);
    const first = await t.request('GET', '/api/v1/auth/sessions?limit=2', { token: user.token });
    expect(first.body).toHaveLength(2);
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1]!;
    const second = await t.request('GET', next, { token: user.token });
    expect(second.body).toHaveLength(1);
    expect(second.body[0].id).not.toBe(first.body[0].id);
    expect(second.body[0].current).toBe(true);
  });

  it('signs one session out: its token gets 401, the others keep working', async () => {
    const user = await registerUser(t);
    const other = await login(user);
    const otherSession = (await sessions(user.token)).find((session) => !session.current);
    const response = await t.request('DELETE', `/api/v1/auth/sessions/${otherSession!.id}`, { token: user.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Session signed out' });
    expect(await meStatus(t.app, other)).toBe(401);
    expect(await meStatus(t.app, user.token)).toBe(200);
    expect((await sessions(user.token)).map((session) => session.id)).not.toContain(otherSession!.id);
    expectErrorBody(await t.request('DELETE', `/api/v1/auth/sessions/${otherSession!.id}`, { token: user.token }), 404, { message: 'Session not found' });
  });

  it("answers 404 for another user's session and for a malformed id, and signs nothing out", async () => {
    const user = await registerUser(t);
    const stranger = await registerUser(t);
    const [strangerSession] = await sessions(stranger.token);
    expectErrorBody(await t.request('DELETE', `/api/v1/auth/sessions/${strangerSession!.id}`, { token: user.token }), 404, { message: 'Session not found' });
    expectErrorBody(await t.request('DELETE', '/api/v1/auth/sessions/not-an-id', { token: user.token }), 404, { message: 'Session not found' });
    expect(await meStatus(t.app, stranger.token)).toBe(200);
  });

  it('signs out everywhere else: every other session ends, this one stays', async () => {
    const user = await registerUser(t);
    const others = [await login(user), await login(user)];
    const response = await t.request('POST', '/api/v1/auth/sessions/sign-out-others', { token: user.token, body: {} });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Signed out of 2 other sessions' });
    for (const token of others) expect(await meStatus(t.app, token)).toBe(401);
    expect(await meStatus(t.app, user.token)).toBe(200);
    expect(await sessions(user.token)).toHaveLength(1);
  });

  it('logout ends the session: it leaves the list', async () => {
    const user = await registerUser(t);
    const other = await login(user);
    expect((await t.request('POST', '/api/v1/auth/logout', { token: other, body: {} })).status).toBe(200);
    expect(await sessions(user.token)).toHaveLength(1);
  });

  it('a changed password signs every session out, the list empties', async () => {
    const user = await registerUser(t);
    await login(user);
    const changed = await t.request('PATCH', '/api/v1/auth/me', { token: user.token, body: { password: 'another secret', currentPassword: user.password } });
    expect(changed.status).toBe(200);
    const fresh = await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: 'another secret' } });
    expect(await sessions(fresh.body.access_token)).toHaveLength(1);
  });

  it('still accepts a login token issued before sessions, whose logout revokes it as before', async () => {
    const user = await registerUser(t);
    const older = await signTestToken(user.id);
    expect(await meStatus(t.app, older)).toBe(200);
    expect((await t.request('POST', '/api/v1/auth/logout', { token: older, body: {} })).status).toBe(200);
    expect(await meStatus(t.app, older)).toBe(401);
    expect(await meStatus(t.app, user.token)).toBe(200);
  });
});

describe('signing a session out across instances', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('reaches another instance that had proven (and cached) the token, through the database', async () => {
    const second = await startSecondInstance(t);
    try {
      const user = await registerUser(t);
      const login = await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } });
      const other: string = login.body.access_token;
      expect(await meStatus(second.app, other)).toBe(200);
      expect(await meStatus(second.app, user.token)).toBe(200);

      const otherSession = (await t.request('GET', '/api/v1/auth/sessions', { token: user.token })).body.find((session: { current: boolean }) => !session.current);
      expect((await t.request('DELETE', `/api/v1/auth/sessions/${otherSession.id}`, { token: user.token })).status).toBe(200);
      await expect.poll(() => meStatus(second.app, other), { timeout: 10_000 }).toBe(401);

      const third: string = (await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } })).body.access_token;
      expect(await meStatus(second.app, third)).toBe(200);
      expect((await t.request('POST', '/api/v1/auth/sessions/sign-out-others', { token: user.token, body: {} })).status).toBe(200);
      await expect.poll(() => meStatus(second.app, third), { timeout: 10_000 }).toBe(401);
      expect(await meStatus(second.app, user.token)).toBe(200);
    } finally {
      await second.close();
    }
  });
});
