import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, column, launchChromium, newPerson, type Person, register, type Server, startServer } from './harness';

/**
 * Task keys and subtasks as a person uses them: the card shows the task's key, the task dialog adds
 * subtasks by title, ticks one off and opens one, the subtask links back to its parent, and the
 * parent's card shows the progress ("1/2"). Nothing is set up behind the UI.
 */
describe('task keys and subtasks in Chromium', () => {
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

  it('shows the task key on the card', async () => {
    await register(owner, 'Ada Lovelace', `ada-${run}@example.com`);
    const { page } = owner;
    await page.getByLabel('Project name').fill('Launch Plan');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Launch Plan', level: 1 }).waitFor();
    boardUrl = new URL(page.url()).pathname;

    const todo = column(page, 'To do');
    await todo.getByRole('button', { name: 'New task in To do' }).click();
    const form = page.getByRole('dialog', { name: 'New task' });
    await form.getByLabel('Title').fill('Ship the launch');
    await form.getByRole('button', { name: 'Create task' }).click();
    await card(todo, 'Ship the launch').waitFor();
    // "Launch Plan" → LP: the first task of the project is LP-1.
    await expect.poll(() => card(todo, 'Ship the launch').locator('.task-key').textContent()).toBe('LP-1');
  });

  it('adds subtasks in the task dialog, ticks one off, and the card shows the progress', async () => {
    const { page } = owner;
    await card(page, 'Ship the launch').getByRole('link', { name: 'Ship the launch' }).click();
    const dialog = page.getByRole('dialog', { name: 'Ship the launch' });
    await dialog.waitFor();
    for (const title of ['Write the post', 'Record the demo']) {
      await dialog.getByLabel('New subtask').fill(title);
      await dialog.getByRole('button', { name: 'Add subtask' }).click();
      await dialog.locator('.subtask-list li', { hasText: title }).waitFor();
    }
    await expect.poll(() => dialog.locator('#subtasks-heading').textContent()).toBe('Subtasks 0/2');

    await dialog.getByLabel('Done: Write the post').check();
    await expect.poll(() => dialog.locator('#subtasks-heading').textContent()).toBe('Subtasks 1/2');
    await expect.poll(() => dialog.getByLabel('Done: Write the post').isChecked()).toBe(true);

    await dialog.getByRole('button', { name: 'Close' }).click();
    // The parent's card counts its subtasks; the ticked one is in Done, the other in To do.
    await expect.poll(() => card(column(page, 'To do'), 'Ship the launch').locator('.subtask-progress').textContent()).toBe('1/2 subtasks done');
    await card(column(page, 'Done'), 'Write the post').waitFor();
    await card(column(page, 'To do'), 'Record the demo').waitFor();
  });

  it('opens a subtask from its parent, and goes back to the parent from it', async () => {
    const { page } = owner;
    await page.goto(boardUrl);
    await card(page, 'Ship the launch').getByRole('link', { name: 'Ship the launch' }).click();
    const parent = page.getByRole('dialog', { name: 'Ship the launch' });
    await parent.getByRole('link', { name: 'Record the demo' }).click();
    const child = page.getByRole('dialog', { name: 'Record the demo' });
    await child.waitFor();
    await expect.poll(() => child.locator('.parent-link').textContent()).toBe('Subtask of LP-1 Ship the launch');
    await child.getByRole('link', { name: 'LP-1 Ship the launch' }).click();
    await page.getByRole('dialog', { name: 'Ship the launch' }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/\/tasks\/[0-9a-f-]{36}$/);
  });
});
