import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type TestOidcProvider } from '../../server/test/support/oidc-provider';
import { startSmtpServer, type TestSmtpServer } from '../../server/test/support/smtp-server';
import { freePort } from '../../server/test/support/ports';
import { accessibilityViolations, launchChromium, newPerson, type Person, register, screenshot, type Server, startServer } from './harness';

/**
 * Signing in with the identity provider's button, the account page (tokens and sessions) and
 * "forgot password", each as a person does it in Chromium, against a real OpenID provider and a
 * real SMTP server; every page checked with axe-core.
 */
describe('identity in the web app', () => {
  let server: Server;
  let provider: TestOidcProvider;
  let smtp: TestSmtpServer;
  let browser: Browser;
  const run = Date.now().toString(36);

  beforeAll(async () => {
    // The provider must know the callback address before the server starts: its port is chosen first.
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider(`${publicUrl}/api/v1/auth/oidc/callback`);
    smtp = await startSmtpServer();
    server = await startServer(
      {
        PUBLIC_URL: publicUrl,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_NAME: 'Company login',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Tasklane <tasklane@example.com>',
      },
      port,
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
    await provider?.close();
  });

  async function expectAccessible(person: Person, page: string) {
    expect(await accessibilityViolations(person.page), page).toEqual([]);
  }

  it('signs in with the single sign-on button: the provider, then back in the app, signed in', async () => {
    const person = await newPerson(browser, server.baseUrl, undefined, [provider.issuer]);
    provider.signInAs({ sub: `grace-${run}`, email: `grace-${run}@example.com`, email_verified: true, name: 'Grace Hopper' });
    const { page } = person;
    await page.goto('/login');
    const button = page.getByRole('link', { name: 'Sign in with Company login' });
    await button.waitFor();
    await expectAccessible(person, 'login');
    await button.click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    expect(await page.locator('.who').textContent()).toBe('Grace Hopper');
    // The hand-over code is gone from the address; the token is kept like a password login's.
    expect(new URL(page.url()).hash).toBe('');
    await page.reload();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    expect(person.pageErrors).toEqual([]);
    expect(person.foreignRequests).toEqual([]);
  });

  it("signs in with the single sign-on button on an invitation's page and joins its project", async () => {
    const api = async <T>(path: string, body: unknown, token?: string) => {
      const response = await fetch(`${server.baseUrl}/api/v1${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      expect(response.status, path).toBeLessThan(300);
      return (await response.json()) as T;
    };
    const owner = await api<{ access_token: string }>('/auth/register', { name: 'Owner', email: `owner-${run}@example.com`, password: 'password-123' });
    const project = await api<{ id: string }>('/projects', { name: 'Compilers' }, owner.access_token);
    const email = `lin-${run}@example.com`;
    const before = smtp.received.length;
    await api(`/projects/${project.id}/members/invite`, { email, role: 'EDITOR' }, owner.access_token);
    const mail = (await smtp.waitForMessages(before + 1)).slice(before).find((message) => message.to === email)!;
    const invitePath = new URL(/http:\S+\/invite\/[\w-]+/.exec(mail.text)![0]).pathname;

    const person = await newPerson(browser, server.baseUrl, undefined, [provider.issuer]);
    provider.signInAs({ sub: `lin-${run}`, email, email_verified: true, name: 'Lin Yao' });
    const { page } = person;
    await page.goto(invitePath);
    await page.getByText('You were invited to a project').waitFor();
    await screenshot(page, 'invitation.png');
    await page.getByRole('link', { name: 'Sign in with Company login' }).click();
    // The provider returns to /login; the app goes on to the invitation, which accepts it and opens the project.
    await page.getByRole('heading', { name: 'Compilers', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/projects/${project.id}`);
    expect(await page.locator('.who').textContent()).toBe('Lin Yao');
    const members = await fetch(`${server.baseUrl}/api/v1/projects/${project.id}/members`, { headers: { authorization: `Bearer ${owner.access_token}` } }).then(
      (response) => response.json() as Promise<{ email: string; role: string }[]>,
    );
    expect(members.find((member) => member.email === email)?.role).toBe('EDITOR');
    // Signed in, the next sign-on from the login page goes to the projects, not back to the used invitation.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('link', { name: 'Sign in with Company login' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(person.pageErrors).toEqual([]);
  });

  it('shows why a sign-on was refused', async () => {
    const person = await newPerson(browser, server.baseUrl, undefined, [provider.issuer]);
    const email = `taken-${run}@example.com`;
    await register(person, 'Registered Person', email);
    await person.page.getByRole('button', { name: 'Log out' }).click();
    provider.signInAs({ sub: `impostor-${run}`, email, email_verified: false, name: 'Impostor' });
    await person.page.getByRole('link', { name: 'Sign in with Company login' }).click();
    const alert = person.page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('does not confirm the email is verified');
    expect(new URL(person.page.url()).pathname).toBe('/login');
  });

  it('creates, shows once and revokes a personal access token, and lists and ends sessions', async () => {
    const person = await newPerson(browser, server.baseUrl);
    const email = `ada-${run}@example.com`;
    await register(person, 'Ada Lovelace', email);
    // The same person signed in elsewhere too.
    const elsewhere = await fetch(`${server.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Other laptop' },
      body: JSON.stringify({ email, password: 'password-123' }),
    }).then((response) => response.json() as Promise<{ access_token: string }>);
    const { page } = person;
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await expect.poll(() => page.locator('tr[data-session-id]').count()).toBe(2);
    await expectAccessible(person, 'account');

    const form = page.getByRole('form', { name: 'Create a token' });
    await form.getByLabel('Token name').fill('Deploy script');
    await form.getByLabel('Scope').selectOption('write');
    await form.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByLabel('Token', { exact: true });
    await expect.poll(() => shown.inputValue()).toMatch(/^tl_pat_[\w-]{43}$/);
    const token = await shown.inputValue();
    const asToken = () => fetch(`${server.baseUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } }).then((response) => response.status);
    expect(await asToken()).toBe(200);
    const row = page.locator('tr[data-token-id]', { hasText: 'Deploy script' });
    expect(await row.textContent()).toContain('write');
    await expectAccessible(person, 'account with a new token');
    await screenshot(page, 'account.png', { fullPage: true });

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke token' }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect(await asToken()).toBe(401);

    const other = page.locator('tr[data-session-id]', { hasText: 'Other laptop' });
    expect(await other.count()).toBe(1);
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await expect.poll(() => page.locator('tr[data-session-id]').count()).toBe(1);
    const meElsewhere = await fetch(`${server.baseUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${elsewhere.access_token}` } });
    expect(meElsewhere.status).toBe(401);
    expect(await page.locator('tr[data-session-id]').textContent()).toContain('(this browser)');
    expect(person.pageErrors).toEqual([]);
  });

  it('resets a forgotten password through the emailed link', async () => {
    const person = await newPerson(browser, server.baseUrl);
    const email = `alan-${run}@example.com`;
    await register(person, 'Alan Turing', email);
    const { page } = person;
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await expectAccessible(person, 'forgot password');
    const before = smtp.received.length;
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('on its way');
    await screenshot(page, 'forgot-password.png');

    const mail = (await smtp.waitForMessages(before + 1)).slice(before).find((message) => message.to === email)!;
    const link = /http:\S+\/reset-password#token=\S+/.exec(mail.text)![0];
    expect(link.startsWith(`${server.baseUrl}/reset-password#token=`)).toBe(true);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await expectAccessible(person, 'reset password');
    await page.getByLabel('New password', { exact: true }).fill('a much better passphrase');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Password changed');

    await page.getByRole('link', { name: 'Log in' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a much better passphrase');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    expect(person.pageErrors).toEqual([]);
  });
});
