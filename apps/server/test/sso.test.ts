import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../src/platform/config';
import { expectErrorBody, queryRows } from './support/checks';
import { capturedLog, registerUser, startTestApp, testConfig, type TestApp, type TestResponse } from './support/harness';
import { CookieJar, type ProviderAccount, startOidcProvider, type TestOidcProvider, throughProvider } from './support/oidc-provider';

const REDIRECT_URI = `${testConfig().publicUrl}/api/v1/auth/oidc/callback`;
const JSON_CLIENT = 'application/json';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const oidcConfig = (provider: TestOidcProvider, overrides: Partial<NonNullable<Config['oidc']>> = {}): Config['oidc'] => ({
  issuer: provider.issuer,
  clientId: provider.clientId,
  clientSecret: provider.clientSecret,
  name: 'Company login',
  autoCreate: true,
  ...overrides,
});

let subjects = 0;
const uniqueAccount = (overrides: Partial<ProviderAccount> = {}): ProviderAccount => {
  subjects += 1;
  return { sub: `person-${subjects}-${Date.now()}`, email: `sso-${subjects}-${Date.now()}@example.com`, email_verified: true, name: 'Grace Hopper', ...overrides };
};

/** A sign-on up to the provider's redirect back: the callback's path and the app's cookies of the browser. */
async function startSignOn(t: TestApp, provider: TestOidcProvider, account: ProviderAccount) {
  const jar = new CookieJar();
  const login = await t.request('GET', '/api/v1/auth/oidc/login');
  expect(login.status).toBe(302);
  expect(login.body).toEqual({ location: login.headers.location });
  jar.take(login.headers['set-cookie'] as string | string[]);
  provider.signInAs(account);
  const back = await throughProvider(String(login.headers.location), REDIRECT_URI);
  return { callback: `${back.pathname}${back.search}`, cookie: jar.header() };
}

const finish = (t: TestApp, callback: string, cookie: string, accept = JSON_CLIENT): Promise<TestResponse> =>
  t.request('GET', callback, { headers: { cookie, accept } });

/** The whole sign-on of an API client: the usual login response, or the refusal. */
async function signOn(t: TestApp, provider: TestOidcProvider, account: ProviderAccount): Promise<TestResponse> {
  const { callback, cookie } = await startSignOn(t, provider, account);
  return finish(t, callback, cookie);
}

describe('single sign-on with an OpenID provider', () => {
  let t: TestApp;
  let provider: TestOidcProvider;
  const log = capturedLog();

  beforeAll(async () => {
    provider = await startOidcProvider(REDIRECT_URI);
    t = await startTestApp({ oidc: oidcConfig(provider), logLevel: 'trace' }, { logStream: log.stream });
  });
  afterAll(async () => {
    await t.close();
    await provider.close();
  });

  it('is announced with its label', async () => {
    expect((await t.request('GET', '/api/v1/auth/providers')).body).toEqual({ password: true, passwordReset: false, oidc: { name: 'Company login' } });
  });

  it('sends the browser to the provider with PKCE, state and nonce, and a cookie bound to them', async () => {
    const login = await t.request('GET', '/api/v1/auth/oidc/login');
    const location = new URL(String(login.headers.location));
    expect(location.origin).toBe(provider.issuer);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      client_id: provider.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      state: expect.stringMatching(/\S{20,}/),
      nonce: expect.stringMatching(/\S{20,}/),
    });
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/^tasklane_sso=[^;]+; Max-Age=600; Path=\/api\/v1\/auth\/oidc\/; HttpOnly; SameSite=Lax$/);
    // Encrypted: neither the state nor the nonce can be read from it.
    expect(cookie).not.toContain(location.searchParams.get('state'));
  });

  it('creates the account on a first sign-on and answers as login does', async () => {
    const account = uniqueAccount();
    const response = await signOn(t, provider, account);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      user: { id: expect.any(String), name: 'Grace Hopper', email: account.email },
    });
    const me = await t.request('GET', '/api/v1/auth/me', { token: response.body.access_token });
    expect(me.body).toEqual({ ...response.body.user, locale: null });
    const sessions = await t.request('GET', '/api/v1/auth/sessions', { token: response.body.access_token });
    expect(sessions.body).toEqual([expect.objectContaining({ method: 'oidc', current: true })]);
    // No password: password login refuses it like a wrong one.
    const login = await t.request('POST', '/api/v1/auth/login', { body: { email: account.email, password: 'anything-at-all' } });
    expectErrorBody(login, 401, { reason: 'INVALID_CREDENTIALS' });
  });

  it('finds the same account on the next sign-on, by its link, even after the email changed at the provider', async () => {
    const account = uniqueAccount();
    const first = await signOn(t, provider, account);
    const again = await signOn(t, provider, { ...account, email: `renamed-${Date.now()}@example.com` });
    expect(again.status).toBe(200);
    expect(again.body.user).toEqual(first.body.user);
  });

  it('links an existing account when the provider says the email is verified', async () => {
    const user = await registerUser(t, 'Registered');
    const response = await signOn(t, provider, uniqueAccount({ email: user.email.toUpperCase(), email_verified: true, name: 'Other name' }));
    expect(response.status).toBe(200);
    expect(response.body.user).toEqual({ id: user.id, name: 'Registered', email: user.email });
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password } })).status).toBe(200);
    const links = await queryRows(t, `select issuer from user_identities where user_id = '${user.id}'`);
    expect(links).toEqual([{ issuer: provider.issuer }]);
  });

  it('refuses with 409 to link an existing account when the email is not verified, and links nothing', async () => {
    const user = await registerUser(t);
    for (const emailVerified of [false, undefined]) {
      const response = await signOn(t, provider, uniqueAccount({ email: user.email, email_verified: emailVerified }));
      expectErrorBody(response, 409, { reason: 'EMAIL_NOT_VERIFIED', message: expect.stringContaining('not confirm that this email is verified') });
    }
    expect(await queryRows(t, `select * from user_identities where user_id = '${user.id}'`)).toEqual([]);
    expect((await t.request('GET', '/api/v1/auth/sessions', { token: user.token })).body).toHaveLength(1);
  });

  it('refuses a callback whose state is not the one of the cookie, or that has no cookie', async () => {
    const { callback, cookie } = await startSignOn(t, provider, uniqueAccount());
    const tampered = callback.replace(/state=[^&]+/, 'state=forged-state-value');
    expectErrorBody(await finish(t, tampered, cookie), 400, { reason: 'OIDC_STATE_MISMATCH' });
    expectErrorBody(await finish(t, callback, ''), 400, { reason: 'OIDC_STATE_MISMATCH' });
    // Someone else's sign-on finished in this browser: its cookie belongs to another flow.
    const other = await startSignOn(t, provider, uniqueAccount());
    expectErrorBody(await finish(t, callback, other.cookie), 400, { reason: 'OIDC_STATE_MISMATCH' });
  });

  it("keeps the provider's code and state, the hand-off code and the tokens out of the logs", async () => {
    const { callback, cookie } = await startSignOn(t, provider, uniqueAccount());
    const params = new URLSearchParams(callback.split('?')[1]);
    const redirected = await finish(t, callback, cookie, BROWSER);
    const handOff = String(redirected.headers.location).split('#sso=')[1]!;
    const exchanged = await t.request('POST', '/api/v1/auth/oidc/exchange', { body: { code: handOff } });
    expect(exchanged.status).toBe(200);
    const logged = log.text();
    expect(logged).toContain('/api/v1/auth/oidc/callback');
    for (const secret of [params.get('code')!, params.get('state')!, handOff, exchanged.body.access_token as string, cookie.split('=')[1]!]) {
      expect(logged.includes(secret), `${secret.slice(0, 12)}… in the log`).toBe(false);
    }
  });

  it('refuses a replayed code', async () => {
    const { callback, cookie } = await startSignOn(t, provider, uniqueAccount());
    const first = await finish(t, callback, cookie);
    expect(first.status).toBe(200);
    expect(String(first.headers['set-cookie'])).toContain('Max-Age=0');
    expectErrorBody(await finish(t, callback, cookie), 400, { reason: 'OIDC_CODE_REJECTED' });
  });

  it("hands a browser's sign-on to the web app with a single-use code, never a token in the address", async () => {
    const account = uniqueAccount();
    const { callback, cookie } = await startSignOn(t, provider, account);
    const redirected = await finish(t, callback, cookie, BROWSER);
    expect(redirected.status).toBe(303);
    const location = String(redirected.headers.location);
    expect(redirected.body).toEqual({ location });
    expect(location).toMatch(/^http:\/\/tasklane\.test\/login#sso=[\w-]+\.[\w-]+$/);
    const code = location.split('#sso=')[1]!;
    const exchanged = await t.request('POST', '/api/v1/auth/oidc/exchange', { body: { code } });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.user.email).toBe(account.email);
    expect((await t.request('GET', '/api/v1/auth/me', { token: exchanged.body.access_token })).status).toBe(200);
    expectErrorBody(await t.request('POST', '/api/v1/auth/oidc/exchange', { body: { code } }), 400, { reason: 'INVALID_SSO_CODE' });
  });

  it("sends a browser's refused sign-on to the web app with the reason", async () => {
    const user = await registerUser(t);
    const { callback, cookie } = await startSignOn(t, provider, uniqueAccount({ email: user.email, email_verified: false }));
    const redirected = await finish(t, callback, cookie, BROWSER);
    expect(redirected.status).toBe(303);
    expect(redirected.headers.location).toBe('http://tasklane.test/login#sso_error=EMAIL_NOT_VERIFIED');
  });
});

describe('single sign-on as the only way in', () => {
  let t: TestApp;
  let provider: TestOidcProvider;

  beforeAll(async () => {
    provider = await startOidcProvider(REDIRECT_URI);
    t = await startTestApp({ oidc: oidcConfig(provider, { autoCreate: false }), passwordLogin: false });
  });
  afterAll(async () => {
    await t.close();
    await provider.close();
  });

  it('refuses password register, login and reset with a clear error', async () => {
    const body = { name: 'Ada', email: 'ada-only-sso@example.com', password: 'correct horse' };
    expectErrorBody(await t.request('POST', '/api/v1/auth/register', { body }), 403, { reason: 'PASSWORD_LOGIN_DISABLED' });
    expectErrorBody(await t.request('POST', '/api/v1/auth/login', { body: { email: body.email, password: body.password } }), 403, { reason: 'PASSWORD_LOGIN_DISABLED' });
    expectErrorBody(await t.request('POST', '/api/v1/auth/password-reset', { body: { email: body.email } }), 403, { reason: 'PASSWORD_LOGIN_DISABLED' });
    expect((await t.request('GET', '/api/v1/auth/providers')).body).toEqual({ password: false, passwordReset: false, oidc: { name: 'Company login' } });
  });

  it('without OIDC_AUTO_CREATE, creates no account for an unknown email (403) and signs in an existing one', async () => {
    expectErrorBody(await signOn(t, provider, uniqueAccount()), 403, { reason: 'OIDC_SIGNUP_DISABLED' });
    expect(await queryRows(t, 'select * from users')).toEqual([]);
    // An account an operator made (the CLI's create-user, here straight in the table) is linked.
    const email = `made-by-an-operator-${Date.now()}@example.com`;
    await t.database.db.execute(`insert into users (id, name, email) values ('01900000-0000-7000-8000-00000000a001', 'Operator-made', '${email}')` as never);
    const response = await signOn(t, provider, uniqueAccount({ email }));
    expect(response.status).toBe(200);
    expect(response.body.user.name).toBe('Operator-made');
  });
});

describe('without single sign-on configured', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers 404 OIDC_DISABLED', async () => {
    expectErrorBody(await t.request('GET', '/api/v1/auth/oidc/login'), 404, { reason: 'OIDC_DISABLED' });
    expectErrorBody(await t.request('GET', '/api/v1/auth/oidc/callback?code=x&state=y'), 404, { reason: 'OIDC_DISABLED' });
    expectErrorBody(await t.request('POST', '/api/v1/auth/oidc/exchange', { body: { code: 'x.y' } }), 404, { reason: 'OIDC_DISABLED' });
  });
});
