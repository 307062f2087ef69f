import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer, screenshot } from './harness';

/**
 * The import page as a person uses it: the source and the file, the columns of a CSV mapped, the
 * check's counts and warnings, the import started and followed to its project, which opens.
 */
describe('import in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let ada: Person;
  let api: TasklaneClient;
  let token = '';
  const run = Date.now().toString(36);

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    api = createTasklaneClient({ baseUrl: server.baseUrl });
    token = (await api.auth.register({ name: 'Ada Lovelace', email: `ada-${run}@example.com`, password: 'password-123' })).access_token;
    ada = await newPerson(browser, server.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('imports a CSV: columns chosen, checked, started, followed, opened', async () => {
    const { page } = ada;
    await signInWithToken(ada, token, '/');
    await page.getByRole('link', { name: /^Import from/ }).click();
    await page.getByRole('heading', { name: 'Import a project' }).waitFor();
    await page.getByLabel('From').selectOption('csv');
    const csv = ['Task,Notes,Column,Due', 'Punch the cards,Bernoulli numbers,Doing,2027-03-01', 'Write Note G,,Done,', 'Stray row,,,not a date'].join('\n');
    await page.getByLabel('Exported file').setInputFiles({ name: 'engine.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const columns = page.getByRole('group', { name: 'Which column holds what' });
    await columns.waitFor();
    // "Due" was not guessed: chosen by hand, as the title, description and status are.
    await columns.getByLabel('Title (required)').selectOption('Task');
    await columns.getByLabel('Description').selectOption('Notes');
    await columns.getByLabel('Status').selectOption('Column');
    await columns.getByLabel('Due date').selectOption('Due');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Check the file' }).click();

    const preview = page.getByRole('region', { name: /would have/ });
    await preview.waitFor();
    expect(await preview.getByRole('heading', { level: 2 }).textContent()).toBe('“Imported CSV” would have');
    expect(await preview.locator('dt:text-is("Tasks") + dd').textContent()).toBe('3');
    expect(await preview.textContent()).toContain('Columns: Doing, Done, To do');
    expect(await preview.getByRole('listitem').allTextContents()).toEqual(['Row 4: "not a date" is not a date, so it has no due date']);
    await screenshot(page, 'import.png', { fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    // Nothing written yet.
    expect((await api.projects.list({})).items).toEqual([]);

    await preview.getByRole('button', { name: 'Start the import' }).click();
    const open = page.getByRole('link', { name: 'Open the project' });
    await open.waitFor();
    await open.click();
    await page.getByRole('region', { name: /^Doing\b/ }).locator('.task-card', { hasText: 'Punch the cards' }).waitFor();
    const [project] = (await api.projects.list({})).items;
    expect(project).toMatchObject({ name: 'Imported CSV' });
    const tasks = (await api.tasks.list({ projectId: project!.id, sort: 'position' })).items;
    expect(tasks.map((task) => [task.title, task.status, task.dueDate])).toEqual([
      ['Punch the cards', 'DOING', '2027-03-01T00:00:00.000Z'],
      ['Write Note G', 'DONE', null],
      ['Stray row', 'TODO', null],
    ]);
    expect(ada.pageErrors).toEqual([]);
  });

  it('shows why a file is refused, and keeps nothing', async () => {
    const { page } = ada;
    await page.goto('/import');
    await page.getByLabel('From').selectOption('trello');
    await page.getByLabel('Exported file').setInputFiles({ name: 'board.json', mimeType: 'application/json', buffer: Buffer.from('{"cards": "not a board"}') });
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.getByRole('alert').filter({ hasText: "not a Trello board's JSON export" }).waitFor();
    expect(await page.getByRole('button', { name: 'Start the import' }).count()).toBe(0);
    expect(ada.pageErrors).toEqual([]);
  });
});
