import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, card, column, launchChromium, newPerson, type Person, register, screenshot, type Server, startServer } from './harness';

/**
 * The owner shapes the board's workflow in the web app as a person would: adds a column, renames,
 * recolours and moves it, deletes another column moving its task; an editor sees the new columns
 * and no editor of them.
 */
describe('workflow states in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let owner: Person;
  let editor: Person;
  let boardUrl: string;
  const run = Date.now().toString(36);
  const emails = { owner: `ada-${run}@example.com`, editor: `grace-${run}@example.com` };
  const headings = (person: Person) => person.page.locator('.board .column h2').allTextContents();
  const columnNames = async (person: Person) => (await headings(person)).map((text) => text.replace(/\s*\d+$/, '').trim());

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    owner = await newPerson(browser, server.baseUrl);
    editor = await newPerson(browser, server.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows a new project the five default columns, and a task made in one', async () => {
    await register(owner, 'Ada Lovelace', emails.owner);
    await register(editor, 'Grace Hopper', emails.editor);
    const { page } = owner;
    await page.getByLabel('Project name').fill('Flow');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Flow', level: 1 }).waitFor();
    boardUrl = new URL(page.url()).pathname;
    await expect.poll(() => columnNames(owner)).toEqual(['To do', 'In progress', 'In review', 'Done', 'Cancelled']);

    const review = column(page, 'In review');
    await review.getByRole('button', { name: 'New task in In review' }).click();
    const form = page.getByRole('dialog', { name: 'New task' });
    expect(await form.getByLabel('Column').inputValue()).toBe('IN_REVIEW');
    await form.getByLabel('Title').fill('Check the copy');
    await form.getByRole('button', { name: 'Create task' }).click();
    await card(review, 'Check the copy').waitFor();

    // The editor joins, through the members page.
    await page.getByRole('link', { name: 'Members' }).click();
    const invite = page.getByRole('form', { name: 'Invite a member' });
    await invite.getByLabel('Email').fill(emails.editor);
    await invite.getByLabel('Role').selectOption('EDITOR');
    await invite.getByRole('button', { name: 'Invite' }).click();
    await expect.poll(() => invite.getByLabel('Email').inputValue()).toBe('');
  });

  it('lets the owner add, rename, recolour and reorder a column; the editor dialog passes axe', async () => {
    const { page } = owner;
    await page.goto(boardUrl);
    await page.getByRole('button', { name: 'Edit workflow' }).click();
    const editorDialog = page.getByRole('dialog', { name: 'Workflow' });
    await editorDialog.getByLabel('Name of To do').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    const add = editorDialog.getByRole('form', { name: 'Add a column' });
    await add.getByLabel('New column').fill('In QA');
    await add.getByLabel('Category').selectOption('started');
    await add.getByRole('button', { name: 'Add column' }).click();
    await editorDialog.getByLabel('Name of In QA').waitFor();
    await expect.poll(() => columnNames(owner)).toEqual(['To do', 'In progress', 'In review', 'Done', 'Cancelled', 'In QA']);

    const name = editorDialog.getByLabel('Name of In QA');
    await name.fill('Quality check');
    await name.press('Enter');
    await editorDialog.getByLabel('Name of Quality check').waitFor();
    await editorDialog.getByLabel('Colour of Quality check').fill('#f59e0b');
    await expect
      .poll(() => page.locator('.board .column', { hasText: 'Quality check' }).locator('.state-dot').evaluate((dot) => getComputedStyle(dot).backgroundColor))
      .toBe('rgb(245, 158, 11)');
    for (let step = 0; step < 3; step += 1) {
      await editorDialog.getByRole('button', { name: 'Move Quality check left' }).click();
      await expect.poll(() => columnNames(owner)).toContain('Quality check');
      await expect.poll(async () => (await columnNames(owner)).indexOf('Quality check')).toBe(4 - step);
    }
    expect(await columnNames(owner)).toEqual(['To do', 'In progress', 'Quality check', 'In review', 'Done', 'Cancelled']);
    await screenshot(page, 'workflow-editor.png');
  });

  it('deletes a column only with somewhere for its tasks to go, and moves them there', async () => {
    const { page } = owner;
    const editorDialog = page.getByRole('dialog', { name: 'Workflow' });
    await editorDialog.getByRole('button', { name: 'Delete In review' }).click();
    await editorDialog.getByRole('button', { name: 'Confirm delete' }).click();
    await expect.poll(() => editorDialog.getByRole('alert').textContent()).toMatch(/still holds tasks/);

    await editorDialog.getByLabel('Move its tasks to').selectOption({ label: 'Quality check' });
    await editorDialog.getByRole('button', { name: 'Confirm delete' }).click();
    await expect.poll(() => columnNames(owner)).toEqual(['To do', 'In progress', 'Quality check', 'Done', 'Cancelled']);
    // The last completed column cannot go.
    await editorDialog.getByRole('button', { name: 'Delete Done' }).click();
    await editorDialog.getByRole('button', { name: 'Confirm delete' }).click();
    await expect.poll(() => editorDialog.getByRole('alert').textContent()).toMatch(/at least one completed/);
    await editorDialog.getByRole('button', { name: 'Close' }).click();
    await card(column(page, 'Quality check'), 'Check the copy').waitFor();
    expect(owner.pageErrors).toEqual([]);
  });

  it("shows the editor the project's columns, in their statuses everywhere, without the workflow editor", async () => {
    const { page } = editor;
    await page.goto(boardUrl);
    await expect.poll(() => columnNames(editor)).toEqual(['To do', 'In progress', 'Quality check', 'Done', 'Cancelled']);
    expect(await page.getByRole('button', { name: 'Edit workflow' }).count()).toBe(0);
    await card(column(page, 'Quality check'), 'Check the copy').getByRole('link', { name: 'Check the copy' }).click();
    const dialog = page.getByRole('dialog', { name: 'Check the copy' });
    const status = dialog.getByLabel('Status');
    await expect.poll(() => status.locator('option').allTextContents()).toEqual(['To do', 'In progress', 'Quality check', 'Done', 'Cancelled']);
    // The status is the state's key, which a rename leaves as it was made.
    expect(await status.inputValue()).toBe('IN_QA');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('link', { name: 'List' }).click();
    await expect.poll(() => page.locator('table tbody tr', { hasText: 'Check the copy' }).textContent()).toContain('Quality check');
    expect(editor.pageErrors).toEqual([]);
  });
});
