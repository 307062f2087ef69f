import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer } from './harness';

/**
 * Saved views in the web app (issue 37): an editor saves the list's filters as a personal view,
 * opens its address in a fresh page and sees the same tasks (the server filters them), shares it so
 * a viewer sees it too; a viewer saves only personal views; a view is deleted after a confirmation.
 */
describe('saved views in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let grace: Person;
  let alan: Person;
  const run = Date.now().toString(36);
  const api: Record<'ada' | 'grace' | 'alan', TasklaneClient> = {} as never;
  const tokens: Record<string, string> = {};
  let projectId: string;
  let bugId: string;
  let viewUrl: string;
  let viewId: string;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    for (const [who, name] of [
      ['ada', 'Ada Lovelace'],
      ['grace', 'Grace Hopper'],
      ['alan', 'Alan Turing'],
    ] as const) {
      const client = createTasklaneClient({ baseUrl: server.baseUrl });
      const session = await client.auth.register({ name, email: `${who}-${run}@example.com`, password: 'password-123' });
      api[who] = client;
      tokens[who] = session.access_token;
    }
    projectId = (await api.ada.projects.create({ name: 'Analytical engine' })).id;
    await api.ada.members.invite({ id: projectId, email: `grace-${run}@example.com`, role: 'EDITOR' });
    await api.ada.members.invite({ id: projectId, email: `alan-${run}@example.com`, role: 'VIEWER' });
    bugId = (await api.ada.labels.create({ id: projectId, name: 'Bug', color: '#d73a4a' })).id;
    await api.ada.tasks.create({ projectId, title: 'Fix the carry', priority: 'HIGH', labelIds: [bugId] });
    await api.ada.tasks.create({ projectId, title: 'Print the tables', priority: 'HIGH' });
    await api.ada.tasks.create({ projectId, title: 'Oil the gears', priority: 'LOW', labelIds: [bugId] });
    grace = await newPerson(browser, server.baseUrl);
    alan = await newPerson(browser, server.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The titles in the list's table, in order. */
  const rows = (page: Page) => page.locator('.task-table tbody tr .task-title').allTextContents();
  const filters = (page: Page) => page.getByRole('search', { name: 'Filter tasks' });

  it('saves the filtered list as a personal view and opens its address in a fresh page with the same tasks', async () => {
    const { page } = grace;
    await signInWithToken(grace, tokens.grace!, `/projects/${projectId}/list`);
    await expect.poll(() => rows(page)).toHaveLength(3);
    await filters(page).getByLabel('Priority').selectOption({ label: 'High' });
    await filters(page).getByLabel('Label').selectOption({ label: 'Bug' });
    await expect.poll(() => rows(page)).toEqual(['Fix the carry']);

    await page.getByRole('button', { name: 'Save view…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save view' });
    await dialog.getByLabel('Name').fill('Hot bugs');
    expect(await dialog.getByLabel('Layout').inputValue()).toBe('list');
    expect(await dialog.getByLabel('Share with the project').isChecked()).toBe(false);
    expect(await accessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Save view' }).click();
    await page.waitForURL(/\/views\//);
    viewUrl = new URL(page.url()).pathname;
    viewId = viewUrl.split('/').pop()!;

    const saved = await api.grace.views.get({ id: projectId, viewId });
    expect(saved).toMatchObject({ name: 'Hot bugs', layout: 'list', shared: false, filters: { priority: ['HIGH'], labelId: [bugId] } });

    // A fresh page (its own cache): the view's filters come from the server and are applied there.
    const fresh = await newPerson(browser, server.baseUrl);
    await signInWithToken(fresh, tokens.grace!, viewUrl);
    const tools = fresh.page.getByRole('region', { name: 'Saved view' });
    await tools.getByText('Hot bugs', { exact: true }).waitFor();
    await expect.poll(() => rows(fresh.page)).toEqual(['Fix the carry']);
    expect(await filters(fresh.page).getByLabel('Priority').inputValue()).toBe('HIGH');
    expect(await filters(fresh.page).getByLabel('Label').inputValue()).toBe(bugId);
    expect(await accessibilityViolations(fresh.page)).toEqual([]);

    // The nav's Views menu lists it as personal.
    await fresh.page.getByText('Views', { exact: true }).click();
    await fresh.page.getByRole('link', { name: 'Hot bugs (personal)' }).waitFor();
    expect(fresh.pageErrors).toEqual([]);
    await fresh.context.close();
  });

  it('is hidden from another member until shared; then they see it and its tasks', async () => {
    await signInWithToken(alan, tokens.alan!, viewUrl);
    await alan.page.getByRole('alert').filter({ hasText: 'This view does not exist or is not shared with you.' }).waitFor();

    const { page } = grace;
    const tools = page.getByRole('region', { name: 'Saved view' });
    await tools.getByLabel('Share with the project').check();
    await tools.getByText('Shared with the project').waitFor();
    expect((await api.grace.views.get({ id: projectId, viewId })).shared).toBe(true);

    await alan.page.goto(viewUrl);
    await expect.poll(() => rows(alan.page)).toEqual(['Fix the carry']);
    await alan.page.getByText('Views', { exact: true }).click();
    await alan.page.getByRole('link', { name: 'Hot bugs (shared)' }).waitFor();
    // A viewer may not change another's shared view: no tools for it.
    expect(await alan.page.getByRole('button', { name: 'Delete view' }).count()).toBe(0);
    expect(await accessibilityViolations(alan.page)).toEqual([]);
    expect(alan.pageErrors).toEqual([]);
  });

  it('lets a viewer save only personal views', async () => {
    const { page } = alan;
    await page.goto(`/projects/${projectId}/list`);
    await expect.poll(() => rows(page)).toHaveLength(3);
    await filters(page).getByLabel('Priority').selectOption({ label: 'Low' });
    await page.getByRole('button', { name: 'Save view…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save view' });
    await dialog.getByLabel('Name').fill('Low ones');
    expect(await dialog.getByLabel('Share with the project').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Save view' }).click();
    await page.waitForURL(/\/views\//);
    const tools = page.getByRole('region', { name: 'Saved view' });
    await tools.getByText('Personal: only you see it').waitFor();
    await expect.poll(() => rows(page)).toEqual(['Oil the gears']);
    // Their own view they rename and delete, but not share.
    await tools.getByRole('button', { name: 'Rename' }).waitFor();
    expect(await tools.getByLabel('Share with the project').count()).toBe(0);
    const views = (await api.alan.views.list({ id: projectId })).items;
    expect(views.map((view) => [view.name, view.shared])).toEqual([
      ['Hot bugs', true],
      ['Low ones', false],
    ]);
    expect(alan.pageErrors).toEqual([]);
  });

  it('renames a view, updates it with the current filters and deletes it after a confirmation', async () => {
    const { page } = grace;
    await page.goto(viewUrl);
    const tools = page.getByRole('region', { name: 'Saved view' });
    await tools.getByLabel('View name').fill('Urgent bugs');
    await tools.getByRole('button', { name: 'Rename' }).click();
    await tools.getByText('Urgent bugs', { exact: true }).waitFor();
    await expect.poll(async () => (await api.grace.views.get({ id: projectId, viewId })).name).toBe('Urgent bugs');

    // Changed filters are the page's own until saved into the view.
    await filters(page).getByLabel('Priority').selectOption({ label: 'Any' });
    await expect.poll(() => rows(page)).toEqual(['Fix the carry', 'Oil the gears']);
    await tools.getByRole('button', { name: 'Update with the current filters' }).click();
    await expect.poll(async () => (await api.grace.views.get({ id: projectId, viewId })).filters).toEqual({ labelId: [bugId] });

    await tools.getByRole('button', { name: 'Delete view' }).click();
    const confirm = tools.getByRole('group', { name: 'Delete the view Urgent bugs?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await api.grace.views.list({ id: projectId })).items.map((view) => view.name)).toEqual(['Urgent bugs']);
    await tools.getByRole('button', { name: 'Delete view' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`**/projects/${projectId}/list`);
    expect((await api.grace.views.list({ id: projectId })).items).toEqual([]);

    await alan.page.goto(viewUrl);
    await alan.page.getByRole('alert').filter({ hasText: 'This view does not exist or is not shared with you.' }).waitFor();
    expect(grace.pageErrors).toEqual([]);
  });
});
