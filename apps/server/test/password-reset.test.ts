import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, issueAt, queryRows } from './support/checks';
import { randomClientIp } from './support/transport';
import { registerUser, startTestApp, type TestApp } from './support/harness';
import { startSmtpServer, testMailConfig, type TestSmtpServer } from './support/smtp-server';

/** The code of the reset link in a received email's text. */
const codeIn = (text: string) => /\/reset-password#token=(\S+)/.exec(text)?.[1];

describe('password reset by email', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ mail: testMailConfig(smtp.url) });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const requestReset = (email: string) => t.request('POST', '/api/v1/auth/password-reset', { body: { email } });
  const confirm = (token: string, password: string) => t.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token, password } });
  const login = (email: string, password: string) => t.request('POST', '/api/v1/auth/login', { body: { email, password } });
  /** The next message to `email`, after `before` messages had arrived. */
  const nextMailTo = async (email: string, before: number) => {
    const messages = await smtp.waitForMessages(before + 1);
    const mail = messages.slice(before).find((message) => message.to === email);
    expect(mail, `a message to ${email}`).toBeDefined();
    return mail!;
  };

  it('answers 202 alike for a known and an unknown email; only the known one gets a link', async () => {
    const user = await registerUser(t, 'Forgetful');
    const before = smtp.received.length;
    const unknown = await requestReset('nobody-here@example.com');
    const known = await requestReset(user.email.toUpperCase());
    expect(unknown.status).toBe(202);
    expect(known.status).toBe(202);
    expect(known.body).toEqual(unknown.body);
    const mail = await nextMailTo(user.email, before);
    expect(mail.from).toBe('"Tasklane" <tasklane@tasklane.test>');
    expect(mail.subject).toBe('Reset your Tasklane password');
    expect(mail.text).toContain('Hello Forgetful,');
    expect(mail.text).toContain('http://tasklane.test/reset-password#token=');
    expect(mail.html).toContain('href="http://tasklane.test/reset-password#token=');
    // Work is done in order: by now the unknown email's turn came and went, and queued nothing.
    expect(smtp.received.slice(before).map((message) => message.to)).toEqual([user.email]);
    // A sent message leaves the outbox (once the server has accepted it).
    await expect.poll(async () => (await queryRows(t, 'select * from mail_outbox')).length, { timeout: 10_000 }).toBe(0);
  });

  it("speaks the account's language: each of the app's languages, with no key or placeholder left", async () => {
    const expected = {
      de: ['Setzen Sie Ihr Tasklane-Passwort zurück', 'Hallo Sprachig,'],
      fr: ['Réinitialisez votre mot de passe Tasklane', 'Bonjour Sprachig,'],
      es: ['Restablece tu contraseña de Tasklane', 'Hola, Sprachig:'],
      ja: ['Tasklane のパスワードの再設定', 'Sprachig 様'],
    };
    for (const [locale, [subject, greeting]] of Object.entries(expected)) {
      const user = await registerUser(t, 'Sprachig');
      expect((await t.request('PATCH', '/api/v1/auth/me', { token: user.token, body: { locale } })).status).toBe(200);
      const before = smtp.received.length;
      await requestReset(user.email);
      const mail = await nextMailTo(user.email, before);
      expect(mail.subject).toBe(subject);
      expect(mail.text.startsWith(`${greeting}\n`)).toBe(true);
      expect(mail.text).toContain(user.email);
      for (const part of [mail.text, mail.html]) expect(part).not.toMatch(/\{\{|\breset\.|Hello|password stays/);
      // The link works whatever the language.
      expect((await confirm(codeIn(mail.text)!, 'a new passphrase')).status).toBe(200);
    }
  });

  it('sets the new password with the link, once, and signs every session out', async () => {
    const user = await registerUser(t);
    const otherSession = (await login(user.email, user.password)).body.access_token as string;
    const before = smtp.received.length;
    await requestReset(user.email);
    const code = codeIn((await nextMailTo(user.email, before)).text)!;

    const changed = await confirm(code, 'a brand new secret');
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ message: 'Password changed: log in with the new one' });
    for (const token of [user.token, otherSession]) expect((await t.request('GET', '/api/v1/auth/me', { token })).status).toBe(401);
    expect((await login(user.email, user.password)).status).toBe(401);
    expect((await login(user.email, 'a brand new secret')).status).toBe(200);

    const again = await confirm(code, 'yet another secret');
    expectErrorBody(again, 400, { reason: 'INVALID_RESET_TOKEN', message: expect.stringContaining('already used') });
    expect((await login(user.email, 'a brand new secret')).status).toBe(200);
  });

  it('ends every earlier link once a newer one sets a password', async () => {
    const user = await registerUser(t);
    let before = smtp.received.length;
    await requestReset(user.email);
    const older = codeIn((await nextMailTo(user.email, before)).text)!;
    before = smtp.received.length;
    await requestReset(user.email);
    const newer = codeIn((await nextMailTo(user.email, before)).text)!;
    expect(newer).not.toBe(older);

    expect((await confirm(newer, 'the newest secret')).status).toBe(200);
    expectErrorBody(await confirm(older, 'an older secret'), 400, { reason: 'INVALID_RESET_TOKEN' });
    expect((await login(user.email, 'the newest secret')).status).toBe(200);
    expect((await login(user.email, 'an older secret')).status).toBe(401);
  });

  it('ends every link once the password is changed on the account page', async () => {
    const user = await registerUser(t);
    const before = smtp.received.length;
    await requestReset(user.email);
    const code = codeIn((await nextMailTo(user.email, before)).text)!;

    const changed = await t.request('PATCH', '/api/v1/auth/me', { token: user.token, body: { password: 'changed-by-hand', currentPassword: user.password } });
    expect(changed.status).toBe(200);
    expectErrorBody(await confirm(code, 'taken-over-secret'), 400, { reason: 'INVALID_RESET_TOKEN' });
    expect((await login(user.email, 'changed-by-hand')).status).toBe(200);
    expect((await login(user.email, 'taken-over-secret')).status).toBe(401);
  });

  it('refuses a link older than 30 minutes, a forged one, and a weak password', async () => {
    const user = await registerUser(t);
    const before = smtp.received.length;
    await requestReset(user.email);
    const code = codeIn((await nextMailTo(user.email, before)).text)!;
    const [id, signature] = code.split('.') as [string, string];

    expectErrorBody(await confirm(`${id}.${signature.slice(0, -2)}xx`, 'a brand new secret'), 400, { reason: 'INVALID_RESET_TOKEN' });
    expectErrorBody(await confirm('not-a-code', 'a brand new secret'), 400, { reason: 'INVALID_RESET_TOKEN' });
    expectErrorBody(await confirm(code, 'short'), 400, { issues: [issueAt(['password'])] });
    // Half an hour on: the code's row says it has expired.
    await t.database.db.execute(`update one_time_codes set expires_at = now() - interval '1 second' where id = '${id}'` as never);
    expectErrorBody(await confirm(code, 'a brand new secret'), 400, { reason: 'INVALID_RESET_TOKEN' });
    expect((await login(user.email, user.password)).status).toBe(200);
  });

  it('keeps no usable link in the database: only the code’s id, the secret part is rebuilt when sending', async () => {
    const user = await registerUser(t);
    const before = smtp.received.length;
    await requestReset(user.email);
    const code = codeIn((await nextMailTo(user.email, before)).text)!;
    const [id, signature] = code.split('.') as [string, string];
    const rows = await queryRows<{ dump: string }>(
      t,
      "select string_agg(to_jsonb(x)::text, ' ') as dump from (select * from one_time_codes) x",
    );
    expect(rows[0]!.dump).toContain(id);
    expect(rows[0]!.dump).not.toContain(signature);
  });

  it('validates the request: a malformed email is a 400, an unknown field too', async () => {
    expectErrorBody(await requestReset('not-an-email'), 400, { issues: [issueAt(['email'])] });
    const extra = await t.request('POST', '/api/v1/auth/password-reset', { body: { email: 'a@example.com', admin: true } });
    expectErrorBody(extra, 400, { issues: [issueAt(['admin'], 'unrecognized_keys')] });
  });
});

describe('password reset, rate-limited like login', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // Behind a proxy, so each test's requests come from addresses of their own (X-Forwarded-For).
    t = await startTestApp({ mail: testMailConfig(smtp.url), authRateLimit: 3, trustProxy: true });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('answers 429 with Retry-After past the limit per client address', async () => {
    const headers = { 'x-forwarded-for': randomClientIp() };
    const responses = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      responses.push(await t.request('POST', '/api/v1/auth/password-reset/confirm', { body: { token: `x.${attempt}`, password: 'whatever-123' }, headers }));
    }
    expect(responses.map((response) => response.status)).toEqual([400, 400, 400, 429]);
    expectErrorBody(responses[3]!, 429, { reason: 'RATE_LIMITED' });
    expect(Number(responses[3]!.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('answers 429 past the limit per email, from any address', async () => {
    const email = `limited-${Date.now()}@example.com`;
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      statuses.push((await t.request('POST', '/api/v1/auth/password-reset', { body: { email }, headers: { 'x-forwarded-for': randomClientIp() } })).status);
    }
    expect(statuses).toEqual([202, 202, 202, 429]);
  });
});

describe('the mail outbox when the SMTP server refuses at first', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer({ refuseFirst: 1 });
    t = await startTestApp({ mail: testMailConfig(smtp.url) });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('keeps the message after a temporary refusal and sends it on a later attempt', async () => {
    const user = await registerUser(t);
    const response = await t.request('POST', '/api/v1/auth/password-reset', { body: { email: user.email } });
    expect(response.status).toBe(202);
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.to).toBe(user.email);
    expect(smtp.attempts).toBe(2);
    expect(codeIn(mail!.text)).toBeDefined();
    await expect.poll(async () => (await queryRows(t, 'select * from mail_outbox')).length, { timeout: 10_000 }).toBe(0);
  });
});

describe('without SMTP_URL', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('still answers 202, queues nothing, and says so in GET /auth/providers', async () => {
    const providers = await t.request('GET', '/api/v1/auth/providers');
    expect(providers.body).toEqual({ password: true, passwordReset: false, oidc: null });
    const user = await registerUser(t);
    expect((await t.request('POST', '/api/v1/auth/password-reset', { body: { email: user.email } })).status).toBe(202);
    // Closing the server waits for the work requests left in the background.
    await t.app.close();
    expect(await queryRows(t, 'select * from one_time_codes')).toEqual([]);
    expect(await queryRows(t, 'select * from mail_outbox')).toEqual([]);
  });
});
