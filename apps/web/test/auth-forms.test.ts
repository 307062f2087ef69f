import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, newPerson, type Server, startServer, screenshot } from './harness';

/**
 * Switching between the login and the registration forms (issue 39): after a failed login, the
 * other form starts clean (no error carried over, empty fields), and so does the way back; on
 * /login ⇄ /register and on an invitation's link, where the switch keeps the address.
 */
describe('the login and registration forms in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let api: TasklaneClient;
  const run = Date.now().toString(36);
  const email = `ada-${run}@example.com`;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    api = createTasklaneClient({ baseUrl: server.baseUrl });
    await api.auth.register({ name: 'Ada Lovelace', email, password: 'password-123' });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The values of the form's fields, by label. */
  const fields = (page: Page, labels: string[]) => Promise.all(labels.map((label) => page.getByLabel(label, { exact: true }).inputValue()));

  async function failLogin(page: Page) {
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toBeTruthy();
  }

  async function expectClean(page: Page, heading: string, labels: string[]) {
    await page.getByRole('heading', { name: heading }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await fields(page, labels)).toEqual(labels.map(() => ''));
  }

  it('after a failed login, "Create an account" shows a clean form, and so does the way back', async () => {
    const person = await newPerson(browser, server.baseUrl);
    const { page } = person;
    await page.goto('/login');
    await failLogin(page);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await expectClean(page, 'Create an account', ['Full name', 'Email', 'Password']);
    expect(new URL(page.url()).pathname).toBe('/register');

    await page.getByLabel('Full name').fill('Someone');
    await page.getByRole('link', { name: 'Log in' }).click();
    await expectClean(page, 'Log in', ['Email', 'Password']);
    await screenshot(page, 'login.png');
    expect(person.pageErrors).toEqual([]);
    await person.context.close();
  });

  it('a login still on its way when the person switches forms shows its refusal on neither form', async () => {
    const person = await newPerson(browser, server.baseUrl);
    const { page } = person;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const isHeld = new Promise<void>((resolve) => (held = resolve));
    await page.route('**/api/trpc/auth.login*', async (route) => {
      held();
      await released;
      await route.continue();
    });
    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await isHeld;
    await page.getByRole('link', { name: 'Create an account' }).click();
    await expectClean(page, 'Create an account', ['Full name', 'Email', 'Password']);
    const answered = page.waitForResponse('**/api/trpc/auth.login*');
    release();
    const response = await answered;
    expect(response.status()).toBe(401);
    await response.finished();
    // The page has had its turn with the refusal (a frame and a task after it arrived).
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));
    await expectClean(page, 'Create an account', ['Full name', 'Email', 'Password']);
    expect(await page.getByRole('button', { name: 'Register' }).isEnabled()).toBe(true);
    expect(person.pageErrors).toEqual([]);
    await person.context.close();
  });

  it('on an invitation’s link, the switch after a failed login starts clean too', async () => {
    const projectId = (await api.projects.create({ name: `Invited ${run}` })).id;
    const invited = await api.members.invite({ id: projectId, email: `newcomer-${run}@example.com`, role: 'EDITOR' });
    const path = new URL((invited as { acceptUrl: string }).acceptUrl).pathname;

    const person = await newPerson(browser, server.baseUrl);
    const { page } = person;
    await page.goto(path);
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByRole('button', { name: 'Log in' }).click();
    await failLogin(page);
    await page.getByRole('button', { name: 'Create an account' }).click();
    await expectClean(page, 'Create an account', ['Full name', 'Email', 'Password']);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expectClean(page, 'Log in', ['Email', 'Password']);
    expect(new URL(page.url()).pathname).toBe(path);
    expect(person.pageErrors).toEqual([]);
    await person.context.close();
  });
});
