import { createTasklaneClient } from '@tasklane/sdk';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer } from './harness';

/**
 * The command palette's search hits: what is typed is asked of the server's search once typing
 * pauses, across every project of the person (one whose board was never opened too), matching
 * descriptions and comments the palette cannot see itself; a hit opens its task. Set up through
 * the SDK; every check is on what Chromium shows.
 */
describe('search in the command palette, in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let ada: Person;
  let homeProjectId: string;
  let otherProjectId: string;
  let hidden: { id: string; key: string };
  const searchRequests: string[] = [];
  const run = Date.now().toString(36);

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    const api = createTasklaneClient({ baseUrl: server.baseUrl });
    const { access_token: token } = await api.auth.register({ name: 'Ada Lovelace', email: `ada-${run}@example.com`, password: 'password-123' });
    homeProjectId = (await api.projects.create({ name: `Home ${run}` })).id;
    otherProjectId = (await api.projects.create({ name: `Other ${run}` })).id;
    await api.tasks.create({ projectId: homeProjectId, title: 'Water the plants' });
    const task = await api.tasks.create({ projectId: otherProjectId, title: 'Order supplies', description: 'Ask about the <b>flux capacitor</b> first' });
    hidden = { id: task.id, key: task.key };
    await api.comments.create({ id: task.id, text: 'The capacitor arrives Tuesday' });
    ada = await newPerson(browser, server.baseUrl);
    ada.page.on('request', (request) => {
      if (request.url().includes('search.query')) searchRequests.push(decodeURIComponent(request.url()));
    });
    await signInWithToken(ada, token, `/projects/${homeProjectId}`);
    await ada.page.getByRole('heading', { name: `Home ${run}`, level: 1 }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the server’s hits for what is typed, once typing pauses, with the excerpt marked and escaped', async () => {
    const { page } = ada;
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    const input = palette.getByRole('combobox');
    // Typed key by key: one search for the pause after the last key, not one per key.
    await input.pressSequentially('capaci', { delay: 30 });
    const taskHit = palette.getByRole('option', { name: new RegExp(`^Search ${hidden.key} Order supplies(?! \\(comment)`) });
    await taskHit.waitFor();
    await palette.getByRole('option', { name: /Order supplies \(comment\)/ }).waitFor();
    expect(searchRequests).toHaveLength(1);
    expect(searchRequests[0]).toContain('"q":"capaci"');
    // The description's `<b>` is text; the matched word (a prefix of it while typing) is marked.
    await expect.poll(() => taskHit.locator('mark').allTextContents()).toEqual(['capacitor']);
    expect(await taskHit.locator('b').count()).toBe(0);
    expect(await taskHit.textContent()).toContain('Ask about the <b>flux capacitor</b> first');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('opens the task of the chosen hit, in a project whose board was not open', async () => {
    const { page } = ada;
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await palette.getByRole('combobox').press('Enter');
    await page.waitForURL(`**/projects/${otherProjectId}/tasks/${hidden.id}`);
    await page.getByRole('dialog', { name: 'Order supplies' }).waitFor();
  });

  it('finds a task by its key, and nothing once the words match nothing', async () => {
    const { page } = ada;
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    const input = palette.getByRole('combobox');
    await input.fill(hidden.key.toLowerCase());
    await expect.poll(() => palette.getByRole('option').first().textContent()).toContain(`${hidden.key} Order supplies`);
    await input.fill('zebra-crossing-nowhere');
    await palette.getByRole('option', { name: 'Nothing matches.' }).waitFor();
    expect(ada.pageErrors).toEqual([]);
    expect(ada.foreignRequests).toEqual([]);
  });
});
