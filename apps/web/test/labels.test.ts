import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Task } from '@tasklane/schemas';
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, card, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer, screenshot } from './harness';

/**
 * The labels editor on the board (issue 39): an EDITOR adds, renames, recolours and deletes (after
 * a confirmation) the project's labels; a change from a stale copy is refused (412) and says so; a
 * VIEWER has no editor.
 */
describe('the labels editor in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let grace: Person;
  let alan: Person;
  const run = Date.now().toString(36);
  const api: Record<'ada' | 'grace' | 'alan', TasklaneClient> = {} as never;
  const tokens: Record<string, string> = {};
  let projectId: string;
  let boardUrl: string;
  let bugId: string;
  let task: Task;

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
    boardUrl = `/projects/${projectId}`;
    await api.ada.members.invite({ id: projectId, email: `grace-${run}@example.com`, role: 'EDITOR' });
    await api.ada.members.invite({ id: projectId, email: `alan-${run}@example.com`, role: 'VIEWER' });
    bugId = (await api.ada.labels.create({ id: projectId, name: 'Bug', color: '#d73a4a' })).id;
    task = await api.ada.tasks.create({ projectId, title: 'Fix the carry', labelIds: [bugId] });
    grace = await newPerson(browser, server.baseUrl);
    alan = await newPerson(browser, server.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const serverLabels = async () => (await api.ada.labels.list({ id: projectId })).items.map(({ name, color }) => ({ name, color }));
  const chips = (person: Person) => card(person.page, 'Fix the carry').getByRole('list', { name: 'Labels' });

  it('lets an editor add, rename and recolour labels; the dialog passes axe', async () => {
    const { page } = grace;
    await signInWithToken(grace, tokens.grace!, boardUrl);
    await chips(grace).getByText('Bug').waitFor();
    await page.getByRole('button', { name: 'Edit labels' }).click();
    const editor = page.getByRole('dialog', { name: 'Labels' });
    await editor.getByLabel('Name of Bug').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    const add = editor.getByRole('form', { name: 'Add a label' });
    await add.getByLabel('New label').fill('Docs');
    await add.getByLabel('Colour').fill('#0e8a16');
    await add.getByRole('button', { name: 'Add label' }).click();
    await editor.getByLabel('Name of Docs').waitFor();
    expect(await add.getByLabel('New label').inputValue()).toBe('');

    // A name the project has (regardless of case) is refused with the server's message.
    await add.getByLabel('New label').fill('bug');
    await add.getByRole('button', { name: 'Add label' }).click();
    await editor.getByRole('alert').filter({ hasText: /already/i }).waitFor();

    // Enter sends the new name once: the field, disabled while it is on its way, loses its focus, and
    // that blur must not send it again with the version the first change used (a 412 shown as someone else's).
    const renames: string[] = [];
    const count = (request: Request) => {
      if (request.method() !== 'GET' && request.url().includes('labels') && request.postData()?.includes('Documentation')) renames.push(request.url());
    };
    page.on('request', count);
    const name = editor.getByLabel('Name of Docs');
    await name.fill('Documentation');
    await name.press('Enter');
    await editor.getByLabel('Name of Documentation').waitFor();
    await editor.getByLabel('Colour of Bug').fill('#1d4ed8');
    await expect.poll(() => chips(grace).locator('.dot').evaluate((dot) => getComputedStyle(dot).backgroundColor)).toBe('rgb(29, 78, 216)');
    page.off('request', count);
    expect(renames).toHaveLength(1);
    expect(await editor.getByRole('alert').count()).toBe(0);
    await screenshot(page, 'labels-editor.png');
    expect(await serverLabels()).toEqual([
      { name: 'Bug', color: '#1d4ed8' },
      { name: 'Documentation', color: '#0e8a16' },
    ]);
    await editor.getByRole('button', { name: 'Close' }).click();
    expect(grace.pageErrors).toEqual([]);
  });

  it('refuses a change made from a stale copy (412) and shows the label as it now is', async () => {
    const { page } = grace;
    // No live stream: the editor keeps the copy it loaded while another editor renames the label.
    await grace.context.route('**/api/v1/projects/*/events**', (route) => route.abort());
    await page.reload();
    await page.getByRole('button', { name: 'Edit labels' }).click();
    const editor = page.getByRole('dialog', { name: 'Labels' });
    await editor.getByLabel('Name of Bug').waitFor();
    await api.ada.labels.update({ id: projectId, labelId: bugId, name: 'Defect' });

    const name = editor.getByLabel('Name of Bug');
    await name.fill('Bugfix');
    await name.press('Enter');
    await editor.getByRole('alert').filter({ hasText: 'Someone else changed this label meanwhile' }).waitFor();
    await editor.getByLabel('Name of Defect').waitFor();
    expect((await serverLabels()).map((label) => label.name)).toEqual(['Defect', 'Documentation']);
    expect(await accessibilityViolations(page)).toEqual([]);
    await grace.context.unroute('**/api/v1/projects/*/events**');
  });

  it('deletes a label only after a confirmation; it comes off its tasks', async () => {
    const { page } = grace;
    await page.reload();
    await chips(grace).getByText('Defect').waitFor();
    await page.getByRole('button', { name: 'Edit labels' }).click();
    const editor = page.getByRole('dialog', { name: 'Labels' });
    await editor.getByRole('button', { name: 'Delete Defect' }).click();
    const confirm = editor.getByRole('group', { name: 'Delete Defect? It comes off every task that has it.' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await serverLabels()).map((label) => label.name)).toEqual(['Defect', 'Documentation']);

    await editor.getByRole('button', { name: 'Delete Defect' }).click();
    await confirm.getByRole('button', { name: 'Delete label' }).click();
    await expect.poll(() => editor.getByLabel('Name of Defect').count()).toBe(0);
    expect((await serverLabels()).map((label) => label.name)).toEqual(['Documentation']);
    expect((await api.ada.tasks.get({ id: task.id })).labelIds).toEqual([]);
    await editor.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => chips(grace).count()).toBe(0);
    expect(grace.pageErrors).toEqual([]);
  });

  it('offers a viewer no labels editor', async () => {
    const { page } = alan;
    await signInWithToken(alan, tokens.alan!, boardUrl);
    await card(page, 'Fix the carry').waitFor();
    await page.getByRole('button', { name: 'Dark theme' }).waitFor();
    expect(await page.getByRole('button', { name: 'Edit labels' }).count()).toBe(0);
    expect(alan.pageErrors).toEqual([]);
  });
});
