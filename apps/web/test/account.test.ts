import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer } from './harness';

/**
 * The account page (issues 37 and 39): the profile (name; email and password behind the current
 * password, a wrong one refused inline; a new password ends the session and lands on the login
 * page), the calendar feed (made, replaced, turned off) and personal access tokens (scope and
 * projects, last use, revoke). Each state passes axe.
 */
describe('the account page in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let ada: Person;
  let api: TasklaneClient;
  let token: string;
  let projectId: string;
  const run = Date.now().toString(36);
  let email = `ada-${run}@example.com`;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    api = createTasklaneClient({ baseUrl: server.baseUrl });
    token = (await api.auth.register({ name: 'Ada Lovelace', email, password: 'password-123' })).access_token;
    projectId = (await api.projects.create({ name: 'Analytical engine' })).id;
    await api.projects.create({ name: 'Difference engine' });
    ada = await newPerson(browser, server.baseUrl);
    await signInWithToken(ada, token, '/account');
    await ada.page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  // The address is built from the server's configured public URL, which the test server (on a port of its own) does not set.
  const fetchFeed = (address: string) => fetch(new URL(new URL(address).pathname, server.baseUrl));
  const section = (name: string) => ada.page.getByRole('region', { name });

  it('changes the name at once, and the email only with the right current password', async () => {
    const { page } = ada;
    const profile = section('Profile');
    await profile.getByRole('form', { name: 'Change your name' }).getByLabel('Full name').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    const nameForm = profile.getByRole('form', { name: 'Change your name' });
    await nameForm.getByLabel('Full name').fill('Ada King');
    await nameForm.getByRole('button', { name: 'Save name' }).click();
    await page.locator('header .who', { hasText: 'Ada King' }).waitFor();
    expect((await api.auth.me()).name).toBe('Ada King');

    const emailForm = profile.getByRole('form', { name: 'Change your email' });
    await emailForm.getByLabel('Email').fill(`ada-king-${run}@example.com`);
    await emailForm.getByLabel('Current password').fill('not-my-password');
    await emailForm.getByRole('button', { name: 'Change email' }).click();
    await emailForm.getByRole('alert').filter({ hasText: 'The current password is wrong' }).waitFor();
    expect((await api.auth.me()).email).toBe(email);
    expect(await accessibilityViolations(page)).toEqual([]);

    await emailForm.getByLabel('Current password').fill('password-123');
    await emailForm.getByRole('button', { name: 'Change email' }).click();
    await emailForm.getByRole('alert').waitFor({ state: 'detached' });
    await expect.poll(async () => (await api.auth.me()).email).toBe(`ada-king-${run}@example.com`);
    email = `ada-king-${run}@example.com`;
    // The server has the new address before the browser has read its answer: the form empties then.
    await expect.poll(() => emailForm.getByLabel('Current password').inputValue()).toBe('');
  });

  it('makes, replaces and turns off the calendar feed', async () => {
    const { page } = ada;
    const feed = section('Calendar feed');
    await feed.getByText('You have no calendar feed').waitFor();
    await feed.getByRole('button', { name: 'Make a calendar address' }).click();
    const address = feed.getByLabel('Calendar address');
    await address.waitFor();
    const first = await address.inputValue();
    expect(first).toMatch(/\/ical\/[^/]+\.ics$/);
    expect((await fetchFeed(first)).status).toBe(200);
    expect(await accessibilityViolations(page)).toEqual([]);

    await feed.getByRole('button', { name: 'Replace the address' }).click();
    await expect.poll(() => address.inputValue()).not.toBe(first);
    const second = await address.inputValue();
    expect((await fetchFeed(first)).status).toBe(404);
    expect((await fetchFeed(second)).status).toBe(200);

    // After a reload the address is not shown again, only that there is one.
    await page.reload();
    await feed.getByText('You have a calendar feed address').waitFor();
    expect(await feed.getByLabel('Calendar address').count()).toBe(0);

    await feed.getByRole('button', { name: 'Turn off the feed' }).click();
    await feed.getByRole('button', { name: 'Turn off', exact: true }).click();
    await feed.getByText('You have no calendar feed').waitFor();
    expect((await fetchFeed(second)).status).toBe(404);
    expect((await api.calendarFeed.get()).active).toBe(false);
  });

  it('creates a token with a scope and projects, shows its last use, and revokes it', async () => {
    const { page } = ada;
    const tokens = section('Personal access tokens');
    await tokens.getByText('No tokens yet').waitFor();
    const form = tokens.getByRole('form', { name: 'Create a token' });
    await form.getByLabel('Token name').fill('CI');
    await form.getByLabel('Scope').selectOption('write');
    await form.getByLabel('Analytical engine').check();
    await form.getByRole('button', { name: 'Create token' }).click();
    const secret = await tokens.getByLabel('Token', { exact: true }).inputValue();
    expect(secret).not.toBe('');
    const row = tokens.locator('tr', { hasText: 'CI' });
    await row.getByRole('cell', { name: 'Never' }).first().waitFor();
    await row.getByText('(only Analytical engine)').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    // A script uses the token: the page shows it was used.
    const script = createTasklaneClient({ baseUrl: server.baseUrl, token: secret });
    expect((await script.projects.get({ id: projectId })).name).toBe('Analytical engine');
    await expect.poll(async () => (await api.tokens.list()).items[0]?.lastUsedAt).not.toBeNull();
    await page.reload();
    // After a reload: the scripts, the session, the page's code and the tokens' request, so expect.poll's 10 s rather than waitFor's 1 s.
    await expect.poll(() => tokens.locator('tr', { hasText: 'CI' }).locator('td').nth(2).textContent()).not.toBe('Never');

    await tokens.locator('tr', { hasText: 'CI' }).getByRole('button', { name: 'Revoke' }).click();
    await tokens.getByRole('button', { name: 'Revoke token' }).click();
    await tokens.getByText('No tokens yet').waitFor();
    await expect(script.projects.get({ id: projectId })).rejects.toMatchObject({ httpStatus: 401 });
  });

  it('changes the password: a wrong current one is refused inline, a right one signs out to the login page', async () => {
    const { page } = ada;
    const form = section('Profile').getByRole('form', { name: 'Change your password' });
    await form.getByLabel('Current password').fill('not-my-password');
    await form.getByLabel('New password').fill('a-new-passphrase');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByRole('alert').filter({ hasText: 'The current password is wrong' }).waitFor();

    await form.getByLabel('Current password').fill('password-123');
    await form.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL('**/login');
    await page.getByRole('status').filter({ hasText: 'Your password was changed' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await expect(api.auth.me()).rejects.toMatchObject({ httpStatus: 401 });

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a-new-passphrase');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    expect(ada.pageErrors).toEqual([]);
    expect(ada.foreignRequests).toEqual([]);
  });
});
