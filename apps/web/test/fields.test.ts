import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, column, launchChromium, newPerson, openTask, type Person, screenshot, type Server, signInWithToken, startServer } from './harness';

/**
 * Custom fields as people use them in the web app: the owner makes fields of several types in the
 * fields editor (a select with coloured options among them), sets values in the task dialog, sees
 * them as list columns, filters and sorts the list by a field (the server's query, paged), deletes
 * an option and sees it cleared; a viewer reads the values and edits nothing. The project and its
 * tasks are set up through the SDK; every check is on what Chromium shows.
 */
describe('custom fields in Chromium', () => {
  let server: Server;
  let browser: Browser;
  const people: Record<'ada' | 'victor', Person> = {} as never;
  const tokens: Record<'ada' | 'victor', string> = {} as never;
  let api: TasklaneClient;
  let projectId: string;
  const run = Date.now().toString(36);
  /** The task list's requests for tasks, as the browser sent them. */
  const listRequests: string[] = [];

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    for (const [who, name] of [
      ['ada', 'Ada Lovelace'],
      ['victor', 'Victor Viewer'],
    ] as const) {
      const client = createTasklaneClient({ baseUrl: server.baseUrl });
      tokens[who] = (await client.auth.register({ name, email: `${who}-${run}@example.com`, password: 'password-123' })).access_token;
      if (who === 'ada') api = client;
    }
    const project = await api.projects.create({ name: `Fields ${run}` });
    projectId = project.id;
    await api.members.invite({ id: projectId, email: `victor-${run}@example.com`, role: 'VIEWER' });
    for (const title of ['Alpha', 'Beta', 'Gamma']) await api.tasks.create({ projectId, title });
    for (const who of ['ada', 'victor'] as const) {
      people[who] = await newPerson(browser, server.baseUrl);
      await signInWithToken(people[who], tokens[who], `/projects/${projectId}`);
      await column(people[who].page, 'To do').waitFor();
    }
    people.ada.page.on('request', (request) => {
      if (request.url().includes(`/tasks/project/${projectId}`) || request.url().includes('tasks.listForProject')) listRequests.push(decodeURIComponent(request.url()));
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const fieldNames = (editor: Locator) => editor.locator('.field-row > .row > input.grow').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
  const rowTitles = (page: Page) => page.locator('.task-table tbody .task-title').allTextContents();
  const headers = (page: Page) => page.locator('.task-table thead th').allTextContents();
  const cell = (page: Page, title: string, field: string) =>
    page.locator('.task-table tbody tr', { has: page.getByRole('link', { name: title, exact: true }) }).locator(`td[data-field-id="${field}"]`);
  /** The `fields` of every task write in a request's JSON body (the SDK may batch calls). */
  const fieldWrites = (body: unknown): unknown[] => {
    if (!body || typeof body !== 'object') return [];
    const own = 'fields' in body ? [(body as { fields: unknown }).fields] : [];
    return [...own, ...Object.values(body).flatMap(fieldWrites)];
  };
  /** Whether the list asked the server to sort by a field (`sort=` over REST, `"sort":` in a tRPC query's input). */
  const askedSort = (sort: string) => listRequests.some((url) => url.includes(`sort=${sort}`) || url.includes(`"sort":"${sort}"`));
  /** The dialog's save of its fields came back: nothing left to save (no "N changed") and the button idle. */
  const savedAll = async (fields: Locator) => {
    await expect.poll(() => fields.getByText(/^\d+ changed$/).count()).toBe(0);
    await expect.poll(() => fields.getByRole('button', { name: 'Save fields' }).isDisabled()).toBe(true);
  };
  const fieldId = async (name: string) => (await api.fields.list({ id: projectId })).find((field) => field.name === name)!.id;

  it('lets the owner add, rename, reorder fields and a select with coloured options; the editor passes axe', async () => {
    const { page } = people.ada;
    await page.getByRole('button', { name: 'Edit fields' }).click();
    const editor = page.getByRole('dialog', { name: 'Custom fields' });
    await editor.getByText('No custom fields yet', { exact: true }).waitFor();
    const add = editor.getByRole('form', { name: 'Add a field' });

    await add.getByLabel('New field').fill('Points');
    await add.getByLabel('Type').selectOption('number');
    await add.getByRole('button', { name: 'Add field' }).click();
    await editor.getByLabel('Name of Points').waitFor();

    await add.getByLabel('New field').fill('Tier');
    await add.getByLabel('Type').selectOption('select');
    await add.getByRole('button', { name: 'Add an option' }).click();
    await add.getByLabel('Option 1', { exact: true }).fill('Gold');
    await add.getByLabel('Colour of option 1').fill('#f59e0b');
    await add.getByRole('button', { name: 'Add an option' }).click();
    await add.getByLabel('Option 2', { exact: true }).fill('Silver');
    await add.getByRole('button', { name: 'Add field' }).click();
    await editor.getByLabel('Name of option Gold').waitFor();
    // A third option, added to the field as it stands.
    await editor.getByLabel('New option of Tier').fill('Bronze');
    await editor.getByRole('button', { name: 'Add option' }).click();
    await editor.getByLabel('Name of option Bronze').waitFor();

    await add.getByLabel('New field').fill('Site');
    await add.getByLabel('Type').selectOption('url');
    await add.getByRole('button', { name: 'Add field' }).click();
    await editor.getByLabel('Name of Site').waitFor();
    await add.getByLabel('New field').fill('Reviewed');
    await add.getByLabel('Type').selectOption('checkbox');
    await add.getByRole('button', { name: 'Add field' }).click();
    await editor.getByLabel('Name of Reviewed').waitFor();
    await expect.poll(() => fieldNames(editor)).toEqual(['Points', 'Tier', 'Site', 'Reviewed']);

    // A name the project has, in another case: the server's FIELD_EXISTS, shown.
    await add.getByLabel('New field').fill('points');
    await add.getByRole('button', { name: 'Add field' }).click();
    await expect.poll(() => editor.getByRole('alert').first().textContent()).toMatch(/already has a field named/);

    const site = editor.getByLabel('Name of Site');
    await site.fill('Website');
    await site.press('Enter');
    await editor.getByLabel('Name of Website').waitFor();
    await editor.getByRole('button', { name: 'Move Tier up' }).click();
    await expect.poll(() => fieldNames(editor)).toEqual(['Tier', 'Points', 'Website', 'Reviewed']);
    expect((await api.fields.list({ id: projectId })).map((field) => field.name)).toEqual(['Tier', 'Points', 'Website', 'Reviewed']);
    const tier = (await api.fields.list({ id: projectId }))[0]!;
    expect(tier.options.map(({ name, color }) => [name, color])).toEqual([
      ['Gold', '#f59e0b'],
      ['Silver', '#6b7280'],
      ['Bronze', '#6b7280'],
    ]);

    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'fields-editor.png');
    await editor.getByRole('button', { name: 'Close' }).click();
    expect(people.ada.pageErrors).toEqual([]);
  });

  it('sets values in the task dialog, sends only what changed, and shows a refused value beside its field', async () => {
    const { page } = people.ada;
    const sent: string[] = [];
    const record = (request: { method(): string; postData(): string | null }) => {
      if (request.method() === 'PATCH' || request.method() === 'POST') sent.push(request.postData() ?? '');
    };
    page.on('request', record);
    const values: Record<string, [string, string]> = { Alpha: ['5', 'Gold'], Beta: ['2', 'Silver'], Gamma: ['8', ''] };
    for (const [title, [points, tier]] of Object.entries(values)) {
      const dialog = await openTask(page, title);
      const fields = dialog.getByRole('form', { name: 'Custom fields' });
      await fields.getByLabel('Points').fill(points);
      if (tier) await fields.getByLabel('Tier').selectOption({ label: tier });
      await fields.getByRole('button', { name: 'Save fields' }).click();
      await savedAll(fields);
      if (title === 'Alpha') {
        // A URL the server refuses (not http or https): its message next to Website, nothing saved.
        await fields.getByLabel('Website').fill('ftp://example.com/engine');
        await fields.getByRole('button', { name: 'Save fields' }).click();
        await expect.poll(() => fields.locator('.field-input', { hasText: 'Website' }).locator('.error').textContent()).toMatch(/http or https/);
        expect(await fields.getByLabel('Website').getAttribute('aria-invalid')).toBe('true');
        await fields.getByLabel('Website').fill('https://example.com/engine');
        await fields.getByLabel('Reviewed').check();
        await fields.getByRole('button', { name: 'Save fields' }).click();
        await savedAll(fields);
        expect(await accessibilityViolations(page)).toEqual([]);
      }
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'hidden' });
    }
    page.off('request', record);
    const [tierId, pointsId, siteId, reviewedId] = await Promise.all(['Tier', 'Points', 'Website', 'Reviewed'].map(fieldId));
    const alpha = (await api.tasks.list({ projectId })).items.find((task) => task.title === 'Alpha')!;
    const gold = (await api.fields.list({ id: projectId }))[0]!.options[0]!.id;
    expect(alpha.fields).toEqual({ [tierId!]: gold, [pointsId!]: 5, [siteId!]: 'https://example.com/engine', [reviewedId!]: true });
    // Each save carried only the fields changed since the last: the last of Alpha's, Website and Reviewed.
    const bodies = sent.flatMap((body) => fieldWrites(JSON.parse(body)));
    expect(bodies[0]).toEqual({ [pointsId!]: 5, [tierId!]: gold });
    expect(bodies[2]).toEqual({ [siteId!]: 'https://example.com/engine', [reviewedId!]: true });

    // Cleared: null sent, the value gone.
    const dialog = await openTask(page, 'Gamma');
    const fields = dialog.getByRole('form', { name: 'Custom fields' });
    await fields.getByLabel('Points').fill('');
    await fields.getByRole('button', { name: 'Save fields' }).click();
    await savedAll(fields);
    await expect.poll(async () => (await api.tasks.list({ projectId })).items.find((task) => task.title === 'Gamma')!.fields).toEqual({});
    // The main form being edited meanwhile: the fields save is this dialog's own, so its save is not refused as stale.
    const form = dialog.getByRole('form', { name: 'Task fields' });
    await form.locator('input[name="title"]').fill('Gamma ray');
    await fields.getByLabel('Points').fill('8');
    await fields.getByRole('button', { name: 'Save fields' }).click();
    await savedAll(fields);
    await expect.poll(async () => (await api.tasks.list({ projectId })).items.find((task) => task.title === 'Gamma')!.fields).toEqual({ [pointsId!]: 8 });
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await api.tasks.list({ projectId })).items.find((task) => task.title === 'Gamma ray')?.fields).toEqual({ [pointsId!]: 8 });
    // The browser puts the saved task back in the form when it reads the answer, after the server has it.
    await expect.poll(() => form.getByRole('button', { name: 'Save changes' }).isEnabled()).toBe(true);
    expect(await form.getByRole('alert').count()).toBe(0);
    await form.locator('input[name="title"]').fill('Gamma');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await api.tasks.list({ projectId })).items.some((task) => task.title === 'Gamma')).toBe(true);
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(people.ada.pageErrors).toEqual([]);
  });

  it('shows fields as chosen list columns, and filters and sorts by a field through the server', async () => {
    const { page } = people.ada;
    await page.getByRole('link', { name: 'List', exact: true }).click();
    const [tierId, pointsId] = await Promise.all(['Tier', 'Points'].map(fieldId));
    // The first three fields until chosen otherwise.
    await expect.poll(() => headers(page)).toEqual(expect.arrayContaining(['Tier', 'Points', 'Website']));
    expect(await headers(page)).not.toContain('Reviewed');
    await expect.poll(() => cell(page, 'Alpha', tierId!).textContent()).toBe('Gold');
    expect(await cell(page, 'Beta', pointsId!).textContent()).toBe('2');

    const chooser = page.locator('.column-chooser');
    await chooser.getByText('Field columns').click();
    await chooser.getByLabel('Website').uncheck();
    await chooser.getByLabel('Reviewed').check();
    await expect.poll(() => headers(page)).toContain('Reviewed');
    expect(await headers(page)).not.toContain('Website');
    // Remembered in this browser for the project.
    await page.reload();
    await expect.poll(() => headers(page)).toContain('Reviewed');
    expect(await headers(page)).not.toContain('Website');

    const filter = page.getByRole('search', { name: 'Filter by a custom field' });
    await filter.getByLabel('Field').selectOption({ label: 'Tier' });
    await filter.getByLabel('Value').selectOption({ label: 'Gold' });
    await expect.poll(() => rowTitles(page)).toEqual(['Alpha']);
    expect(listRequests.some((url) => url.includes(`field.${tierId}`))).toBe(true);

    await filter.getByLabel('Field').selectOption({ label: 'Points' });
    await filter.getByLabel('From').fill('3');
    await expect.poll(() => rowTitles(page)).toEqual(expect.arrayContaining(['Alpha', 'Gamma']));
    expect(await rowTitles(page)).toHaveLength(2);
    await filter.getByLabel('From').fill('');
    await filter.getByLabel('Field').selectOption({ label: 'None' });
    await expect.poll(() => rowTitles(page)).toHaveLength(3);

    await page.getByRole('button', { name: 'Points', exact: true }).click();
    await expect.poll(() => rowTitles(page)).toEqual(['Beta', 'Alpha', 'Gamma']);
    expect(askedSort(`field.${pointsId}`)).toBe(true);
    await page.getByRole('button', { name: 'Points', exact: true }).click();
    await expect.poll(() => rowTitles(page)).toEqual(['Gamma', 'Alpha', 'Beta']);
    expect(askedSort(`-field.${pointsId}`)).toBe(true);
    expect(await page.locator('th[aria-sort="descending"]').textContent()).toContain('Points');
    expect(people.ada.pageErrors).toEqual([]);
  });

  it("deletes an option after a confirmation, which clears it from the tasks in the list", async () => {
    const { page } = people.ada;
    const tierId = await fieldId('Tier');
    await expect.poll(() => cell(page, 'Alpha', tierId).textContent()).toBe('Gold');
    await page.getByRole('button', { name: 'Edit fields' }).click();
    const editor = page.getByRole('dialog', { name: 'Custom fields' });
    await editor.getByRole('button', { name: 'Delete option Gold' }).click();
    await editor.getByRole('group', { name: /Delete Gold\? It is cleared from every task/ }).waitFor();
    await editor.getByRole('button', { name: 'Delete option', exact: true }).click();
    await expect.poll(() => editor.getByLabel('Name of option Gold').count()).toBe(0);
    await editor.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => cell(page, 'Alpha', tierId).textContent()).toBe('—');
    expect(await cell(page, 'Beta', tierId).textContent()).toBe('Silver');

    // Deleting a field asks first too.
    await page.getByRole('button', { name: 'Edit fields' }).click();
    await editor.getByRole('button', { name: 'Delete Website' }).click();
    await editor.getByRole('button', { name: 'Delete field' }).click();
    await expect.poll(() => fieldNames(editor)).toEqual(['Tier', 'Points', 'Reviewed']);
    await editor.getByRole('button', { name: 'Close' }).click();
    expect(people.ada.pageErrors).toEqual([]);
  });

  it('refuses an option change made from a stale copy (412): says so, reloads, and keeps the option added elsewhere', async () => {
    const { page } = people.ada;
    const tierId = await fieldId('Tier');
    await page.getByRole('button', { name: 'Edit fields' }).click();
    const editor = page.getByRole('dialog', { name: 'Custom fields' });
    await editor.getByLabel('Name of option Bronze').waitFor();
    // Another admin adds an option just before this editor's PATCH reaches the server (its If-Match is then stale).
    let raced = false;
    await page.route(
      (url) => url.href.includes('fields.update') || url.pathname.endsWith(`/fields/${tierId}`),
      async (route) => {
        if (!raced && route.request().method() !== 'GET') {
          raced = true;
          const tier = (await api.fields.list({ id: projectId })).find((field) => field.id === tierId)!;
          await api.fields.update({ id: projectId, fieldId: tierId, options: [...tier.options.map(({ id, name, color }) => ({ id, name, color })), { name: 'Platinum', color: '#6b7280' }] });
        }
        await route.continue();
      },
    );
    const bronze = editor.getByLabel('Name of option Bronze');
    await bronze.fill('Copper');
    await bronze.press('Enter');
    await expect.poll(() => editor.getByRole('alert').first().textContent()).toMatch(/Someone else changed this field/);
    await editor.getByLabel('Name of option Platinum').waitFor();
    await page.unrouteAll();
    expect(raced).toBe(true);
    expect((await api.fields.list({ id: projectId })).find((field) => field.id === tierId)!.options.map((option) => option.name)).toEqual(['Silver', 'Bronze', 'Platinum']);
    // Tried again (the typed name is kept) on the reloaded field: saved, and the option added elsewhere stays.
    await editor.getByLabel('Name of option Bronze').press('Enter');
    await editor.getByLabel('Name of option Copper').waitFor();
    const tier = (await api.fields.list({ id: projectId })).find((field) => field.id === tierId)!;
    expect(tier.options.map((option) => option.name)).toEqual(['Silver', 'Copper', 'Platinum']);
    await editor.getByRole('button', { name: 'Close' }).click();
    expect(people.ada.pageErrors).toEqual([]);
  });

  it('shows a viewer the values read-only, without the fields editor', async () => {
    const { page } = people.victor;
    await page.reload();
    await column(page, 'To do').waitFor();
    expect(await page.getByRole('button', { name: 'Edit fields' }).count()).toBe(0);
    const dialog = await openTask(page, 'Alpha');
    const fields = dialog.getByRole('form', { name: 'Custom fields' });
    await expect.poll(() => fields.locator('dl').textContent()).toContain('5');
    expect(await fields.locator('dl dt').allTextContents()).toEqual(['Tier', 'Points', 'Reviewed']);
    expect(await fields.getByRole('button', { name: 'Save fields' }).count()).toBe(0);
    expect(await fields.locator('input, select').count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);

    // Live: the owner renames a field elsewhere (another browser), the open dialog shows it at once.
    await api.fields.update({ id: projectId, fieldId: await fieldId('Reviewed'), name: 'Checked' });
    await expect.poll(() => fields.locator('dl dt').allTextContents()).toEqual(['Tier', 'Points', 'Checked']);
    expect(people.victor.pageErrors).toEqual([]);
  });
  it('pages a list sorted by a field: the next page on asking', async () => {
    const pointsId = await fieldId('Points');
    for (let index = 0; index < 50; index += 1) await api.tasks.create({ projectId, title: `Extra ${index}`, fields: { [pointsId]: 100 + index } });
    const { page } = people.ada;
    // Sorted by Points, most first: the first page holds the 50 extras.
    await page.reload();
    await page.getByRole('button', { name: 'Points', exact: true }).click();
    await page.getByRole('button', { name: 'Points', exact: true }).click();
    // The first click's answer (fewest first) also fills a page: wait for the second's order.
    await expect.poll(async () => (await rowTitles(page)).slice(0, 2)).toEqual(['Extra 49', 'Extra 48']);
    expect(await rowTitles(page)).toHaveLength(50);
    await page.getByRole('button', { name: 'Show more tasks' }).click();
    await expect.poll(() => rowTitles(page)).toHaveLength(53);
    expect((await rowTitles(page)).slice(-3)).toEqual(['Gamma', 'Alpha', 'Beta']);
    expect(await page.getByRole('button', { name: 'Show more tasks' }).count()).toBe(0);
    expect(people.ada.pageErrors).toEqual([]);
  });
});
