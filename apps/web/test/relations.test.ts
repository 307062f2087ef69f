import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, card, column, launchChromium, newPerson, type Person, register, type Server, startServer } from './harness';

/** Relations in the task dialog and the blocked mark on the board, as a person uses them. */
describe('task relations in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let owner: Person;
  let boardUrl: string;
  const run = Date.now().toString(36);

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    owner = await newPerson(browser, server.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const openTask = async (title: string) => {
    const { page } = owner;
    await card(page, title).getByRole('link').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: title, level: 2 }).waitFor();
    await dialog.getByRole('region', { name: 'Relations' }).waitFor();
    return dialog;
  };

  it('sets up a project with tasks on the board', async () => {
    await register(owner, 'Ada Lovelace', `ada-${run}@example.com`);
    const { page } = owner;
    await page.getByLabel('Project name').fill('Engine');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Engine', level: 1 }).waitFor();
    boardUrl = new URL(page.url()).pathname;
    for (const title of ['Design the mill', 'Build the mill', 'Notes on the mill']) {
      await column(page, 'To do').getByRole('button', { name: 'New task in To do' }).click();
      const form = page.getByRole('dialog', { name: 'New task' });
      await form.getByLabel('Title').fill(title);
      await form.getByRole('button', { name: 'Create task' }).click();
      await card(page, title).waitFor();
    }
    expect(await page.locator('.task-card .blocked-mark').count()).toBe(0);
  });

  it('adds relations by searching titles, lists them grouped, and marks the blocked card', async () => {
    const { page } = owner;
    const dialog = await openTask('Build the mill');
    const relations = dialog.getByRole('region', { name: 'Relations' });
    await relations.getByText('No relations.').waitFor();

    const add = relations.getByRole('form', { name: 'Add a relation' });
    await add.getByLabel('Relation').selectOption({ label: 'Blocked by' });
    await add.getByLabel('Find a task').fill('design');
    await add.getByRole('button', { name: 'Search' }).click();
    await add.getByRole('button', { name: 'Blocked by: Design the mill' }).click();
    await relations.getByRole('group', { name: 'Blocked by' }).getByRole('link', { name: 'Design the mill' }).waitFor();
    await relations.getByText(/^Blocked: /).waitFor();

    await add.getByLabel('Relation').selectOption({ label: 'Relates to' });
    await add.getByLabel('Find a task').fill('mill');
    await add.getByRole('button', { name: 'Search' }).click();
    // The task itself is no candidate.
    await add.getByRole('list', { name: 'Matching tasks' }).waitFor();
    expect(await add.getByRole('button', { name: /Build the mill/ }).count()).toBe(0);
    await add.getByRole('button', { name: 'Relates to: Notes on the mill' }).click();
    await relations.getByRole('group', { name: 'Relates to' }).getByRole('link', { name: 'Notes on the mill' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    await dialog.getByRole('button', { name: 'Close' }).click();
    const blocked = card(page, 'Build the mill');
    await expect.poll(() => blocked.locator('.blocked-mark').textContent()).toBe('Blocked');
    expect(await card(page, 'Design the mill').locator('.blocked-mark').count()).toBe(0);

    // The other side lists it the other way round.
    const design = await openTask('Design the mill');
    await design.getByRole('group', { name: 'Blocks' }).getByRole('link', { name: 'Build the mill' }).waitFor();
    await design.getByRole('button', { name: 'Close' }).click();
  });

  it('removes a relation, and the card is no longer blocked, also after a reload', async () => {
    const { page } = owner;
    const dialog = await openTask('Build the mill');
    const relations = dialog.getByRole('region', { name: 'Relations' });
    await relations.getByRole('button', { name: 'Remove relation to Design the mill' }).click();
    await expect.poll(() => relations.getByRole('group', { name: 'Blocked by' }).count()).toBe(0);
    await expect.poll(() => relations.getByText(/^Blocked: /).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => card(page, 'Build the mill').locator('.blocked-mark').count()).toBe(0);

    await page.goto(boardUrl);
    await card(page, 'Build the mill').waitFor();
    expect(await page.locator('.task-card .blocked-mark').count()).toBe(0);
    const reopened = await openTask('Build the mill');
    await reopened.getByRole('group', { name: 'Relates to' }).getByRole('link', { name: 'Notes on the mill' }).waitFor();
    expect(owner.pageErrors).toEqual([]);
    expect(owner.foreignRequests).toEqual([]);
  });
});
