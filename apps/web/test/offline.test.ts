import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, card, column, newProfilePerson, type Person, type Server, signInWithToken, startServer } from './harness';

/**
 * The app installed and offline (issue 39): a manifest and a service worker that make it
 * installable, the last board seen opening without a connection, read-only under a banner, a change
 * made offline refused with a message (nothing lost, nothing sent later behind the person's back),
 * and the copy gone once they sign out.
 */
describe('the app offline in Chromium', () => {
  let server: Server;
  let ada: Person & { close: () => Promise<void> };
  let api: TasklaneClient;
  let projectId = '';
  let taskId = '';
  let token = '';
  const run = Date.now().toString(36);
  const copy = (person: Person) => person.page.evaluate(() => localStorage.getItem('tasklane.offline-copy'));

  beforeAll(async () => {
    server = await startServer();
    const auth = await createTasklaneClient({ baseUrl: server.baseUrl }).auth.register({ name: 'Ada Lovelace', email: `ada-${run}@example.com`, password: 'password-123' });
    token = auth.access_token;
    api = createTasklaneClient({ baseUrl: server.baseUrl, token });
    projectId = (await api.projects.create({ name: 'Engine' })).id;
    taskId = (await api.tasks.create({ projectId, title: 'Read me offline' })).id;
    // A browser profile on disk: Chromium installs nothing from an incognito context.
    ada = await newProfilePerson(server.baseUrl);
  });
  afterAll(async () => {
    await ada?.close();
    await server?.close();
  });

  it('is installable: a manifest with its icons and a service worker in control', async () => {
    const { page, context } = ada;
    await signInWithToken(ada, token, `/projects/${projectId}`);
    await card(page, 'Read me offline').waitFor();
    const manifest = await (await page.request.get('/manifest.webmanifest')).json();
    expect(manifest).toMatchObject({ name: 'Tasklane', start_url: '/', display: 'standalone' });
    expect(manifest.icons.map((icon: { sizes: string }) => icon.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of manifest.icons) expect((await page.request.get(icon.src)).status()).toBe(200);
    // The worker takes control of the page it was registered from (clientsClaim).
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    expect(installabilityErrors).toEqual([]);
  });

  it('opens the last board seen offline, read-only under a banner, and refuses a change with a message', async () => {
    const { page, context } = ada;
    await expect.poll(async () => (await copy(ada))?.includes('Read me offline') ?? false).toBe(true);
    await context.setOffline(true);
    await page.reload();
    await card(column(page, 'To do'), 'Read me offline').waitFor();
    await page.getByRole('status').filter({ hasText: 'You are offline.' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Engine', level: 1 }).count()).toBe(1);
    expect(await accessibilityViolations(page)).toEqual([]);

    const menu = card(page, 'Read me offline');
    await menu.getByRole('button', { name: 'Actions for Read me offline' }).click();
    await menu.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.locator('.toast').textContent()).toContain('“Read me offline” was not changed: the server could not be reached');
    await card(column(page, 'To do'), 'Read me offline').waitFor();

    // Meanwhile someone renames it (the server is up; this browser cannot reach it).
    await api.tasks.update({ id: taskId, title: 'Read me online' });
    await context.setOffline(false);
    await expect.poll(() => page.getByText('You are offline.').count()).toBe(0);
    // Back online, the board reads afresh what it showed from the copy, without a reload.
    await card(column(page, 'To do'), 'Read me online').waitFor();
    // Nothing was sent behind the person's back once the connection came back.
    await page.reload();
    await card(column(page, 'To do'), 'Read me online').waitFor();
    expect((await api.tasks.get({ id: taskId })).status).toBe('TODO');
    expect(ada.pageErrors).toEqual([]);
  });

  it('never shows one person’s copy to another: a token of someone else’s stored meanwhile (another tab) finds none', async () => {
    const { page, context } = ada;
    await signInWithToken(ada, token, `/projects/${projectId}`);
    await card(page, 'Read me online').waitFor();
    await expect.poll(async () => (await copy(ada))?.includes('Read me online') ?? false).toBe(true);
    const bob = await createTasklaneClient({ baseUrl: server.baseUrl }).auth.register({ name: 'Bob Other', email: `bob-${run}@example.com`, password: 'password-123' });
    await page.evaluate((value) => localStorage.setItem('tasklane.token', value), bob.access_token);
    await context.setOffline(true);
    await page.reload();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(await page.getByText('Read me online').count()).toBe(0);
    expect(await page.getByText('Engine').count()).toBe(0);
    await context.setOffline(false);
    await signInWithToken(ada, token, `/projects/${projectId}`);
    await card(page, 'Read me online').waitFor();
  });

  it('forgets the copy when the person signs out', async () => {
    const { page } = ada;
    await expect.poll(async () => (await copy(ada))?.includes('Read me online') ?? false).toBe(true);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL('**/login');
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(await copy(ada)).toBeNull();
  });
});
