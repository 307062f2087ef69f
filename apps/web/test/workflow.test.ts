import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Task } from '@tasklane/schemas';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, card, column, launchChromium, newPerson, type Person, screenshot, type Server, startServer } from './harness';

/**
 * The board as a keyboard-first team uses it: every shortcut, the command palette, both themes,
 * drag and drop by touch and by keyboard, the list view's bulk edit, optimistic changes the server
 * refuses, and an offline period followed by catch-up from the live stream. The data is set up
 * through the SDK (what this file tests is the board, not registration); every check is made on
 * what the browser shows, and on the server where a change must have landed.
 */
describe('the keyboard-first board in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let ada: Person;
  const run = Date.now().toString(36);
  const api: Record<'ada' | 'grace' | 'alan', TasklaneClient> = {} as never;
  const ids: Record<'ada' | 'grace' | 'alan', string> = {} as never;
  const tokens: Record<string, string> = {};
  let projectId: string;
  let boardUrl: string;
  const tasks: Record<string, Task> = {};
  const labels: Record<string, string> = {};

  /** A browser profile signed in with a token, on the board. */
  async function signedIn(person: Person, who: 'ada' | 'grace' | 'alan', path = boardUrl) {
    await person.page.goto('/login');
    await person.page.evaluate((token) => localStorage.setItem('tasklane.token', token), tokens[who]!);
    await person.page.goto(path);
  }
  const focusedTaskId = (page: Page) => page.evaluate(() => document.activeElement?.closest<HTMLElement>('[data-task-id]')?.dataset.taskId);
  const serverTask = (id: string) => api.ada.tasks.get({ id });
  const live = (page: Page) => page.getByText('Live', { exact: true }).waitFor();

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
      ids[who] = session.user.id;
      tokens[who] = session.access_token;
    }
    const project = await api.ada.projects.create({ name: `Orbit ${run}`, description: 'The launch' });
    projectId = project.id;
    boardUrl = `/projects/${projectId}`;
    await api.ada.members.invite({ id: projectId, email: `grace-${run}@example.com`, role: 'EDITOR' });
    await api.ada.members.invite({ id: projectId, email: `alan-${run}@example.com`, role: 'VIEWER' });
    for (const [key, input] of Object.entries({
      plan: { title: 'Draft the plan', status: 'TODO' },
      budget: { title: 'Review the budget', status: 'TODO', priority: 'HIGH' },
      beta: { title: 'Ship the beta', status: 'IN_PROGRESS', priority: 'URGENT', assigneeId: ids.grace, dueDate: '2020-01-31T12:00:00.000Z' },
      docs: { title: 'Write the docs', status: 'IN_REVIEW' },
    } as const)) {
      tasks[key] = await api.ada.tasks.create({ projectId, ...input });
    }
    await api.grace.comments.create({ id: tasks.beta!.id, text: 'Build is green.' });
    labels.bug = (await api.ada.labels.create({ id: projectId, name: 'Bug', color: '#d73a4a' })).id;
    labels.design = (await api.ada.labels.create({ id: projectId, name: 'Design', color: '#0e8a16' })).id;
    await api.ada.tasks.update({ id: tasks.beta!.id, labelIds: [labels.bug] });
    ada = await newPerson(browser, server.baseUrl);
    await signedIn(ada, 'ada');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows cards with an initials avatar (full name on hover), priority, an overdue due date; one "New task" per column, no status select', async () => {
    const { page } = ada;
    const beta = card(page, 'Ship the beta');
    await beta.waitFor();
    const avatar = beta.locator('.avatar');
    expect(await avatar.textContent()).toBe('GH');
    expect(await avatar.getAttribute('title')).toBe('Grace Hopper');
    expect(await beta.textContent()).toContain('Urgent');
    expect(await beta.locator('.due').textContent()).toMatch(/^Overdue · /);
    expect(await beta.getAttribute('class')).toContain('overdue');
    expect(await beta.getByRole('list', { name: 'Labels' }).textContent()).toBe('Bug');
    expect(await beta.locator('.comment-count').textContent()).toBe('1 comment');
    expect(await page.getByRole('button', { name: /^New task in / }).count()).toBe(5);
    expect(await page.locator('.task-card select').count()).toBe(0);
    // The status moved into the card's menu.
    await beta.getByRole('button', { name: 'Actions for Ship the beta' }).click();
    await beta.getByRole('button', { name: 'In review' }).click();
    await card(column(page, 'In review'), 'Ship the beta').waitFor();
    await expect.poll(async () => (await serverTask(tasks.beta!.id)).status).toBe('IN_REVIEW');
  });

  it('c opens the one "New task" form; the new card takes the focus', async () => {
    const { page } = ada;
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('c');
    const dialog = page.getByRole('dialog', { name: 'New task' });
    await dialog.getByLabel('Title').fill('Book the venue');
    await dialog.getByLabel('Title').press('Enter');
    await card(column(page, 'To do'), 'Book the venue').waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Book the venue');
  });

  it('/ goes to the search; j/k and the arrows move between cards; Enter opens, e edits', async () => {
    const { page } = ada;
    await page.keyboard.press('/');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).type)).toBe('search');
    await page.keyboard.type('budget');
    await expect.poll(() => page.locator('.task-card').count()).toBe(1);
    await page.keyboard.press('Escape'); // clears the search
    await expect.poll(() => page.locator('.task-card').count()).toBe(5);

    await page.keyboard.press('j');
    expect(await focusedTaskId(page)).toBe(tasks.plan!.id);
    await page.keyboard.press('j');
    expect(await focusedTaskId(page)).toBe(tasks.budget!.id);
    await page.keyboard.press('k');
    expect(await focusedTaskId(page)).toBe(tasks.plan!.id);
    await page.keyboard.press('ArrowDown');
    expect(await focusedTaskId(page)).toBe(tasks.budget!.id);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowRight'); // In progress is empty now: the next column with cards is In review
    expect(await focusedTaskId(page)).toBe(tasks.beta!.id);
    await page.keyboard.press('ArrowLeft');
    expect(await focusedTaskId(page)).toBe(tasks.plan!.id);
    // The focused card shows a visible focus ring.
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');

    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByLabel('Title').inputValue()).toBe('Draft the plan');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => focusedTaskId(page)).toBe(tasks.plan!.id);

    await page.keyboard.press('e');
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value)).toBe('Draft the plan');
    expect(await page.evaluate(() => window.getSelection()?.toString() || (document.activeElement as HTMLInputElement).selectionEnd)).toBeTruthy();
    await page.keyboard.type('Draft the launch plan');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await serverTask(tasks.plan!.id)).title).toBe('Draft the launch plan');
    await page.keyboard.press('Escape');
    await card(page, 'Draft the launch plan').waitFor();
  });

  it('a assigns the focused task to me and 1–5 set its status; the focus stays on the card', async () => {
    const { page } = ada;
    await page.locator('[data-task-id] .task-title', { hasText: 'Review the budget' }).focus();
    await page.keyboard.press('a');
    await expect.poll(() => card(page, 'Review the budget').locator('.avatar').getAttribute('title')).toBe('Ada Lovelace');
    await expect.poll(async () => (await serverTask(tasks.budget!.id)).assigneeId).toBe(ids.ada);
    for (const [key, status, label] of [
      ['2', 'IN_PROGRESS', 'In progress'],
      ['4', 'DONE', 'Done'],
      ['5', 'CANCELLED', 'Cancelled'],
      ['3', 'IN_REVIEW', 'In review'],
      ['1', 'TODO', 'To do'],
    ] as const) {
      await page.keyboard.press(key);
      await card(column(page, label), 'Review the budget').waitFor();
      expect(await focusedTaskId(page)).toBe(tasks.budget!.id);
      await expect.poll(async () => (await serverTask(tasks.budget!.id)).status).toBe(status);
    }
  });

  it('keeps the focus on a card that another member moves meanwhile', async () => {
    const { page } = ada;
    await live(page);
    await page.locator('[data-task-id] .task-title', { hasText: 'Write the docs' }).focus();
    await api.grace.tasks.update({ id: tasks.docs!.id, status: 'DONE' });
    await card(column(page, 'Done'), 'Write the docs').waitFor();
    await expect.poll(() => focusedTaskId(page)).toBe(tasks.docs!.id);
  });

  it('? lists every shortcut', async () => {
    const { page } = ada;
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    const text = await help.textContent();
    for (const key of ['Ctrl K', '?', 'c', '/', 'j', 'k', 'Enter', 'e', 'a', '1 – 9']) expect(text).toContain(key);
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
  });

  it('the command palette (Ctrl K) finds actions, projects and tasks', async () => {
    const { page } = ada;
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });

    const input = palette.getByRole('combobox');
    await input.fill('show the list');
    await input.press('Enter');
    await page.waitForURL(`**${boardUrl}/list`);
    await page.getByRole('table').waitFor();

    await page.keyboard.press('Control+k');
    await input.fill('projects');
    await input.press('Enter');
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();

    await page.keyboard.press('Control+k');
    await input.fill(`orbit ${run}`);
    await expect.poll(() => palette.getByRole('option').first().textContent()).toContain(`Orbit ${run}`);
    await input.press('Enter');
    await page.waitForURL(`**${boardUrl}`);

    await page.keyboard.press('Meta+k');
    await input.fill('ship beta');
    await palette.getByRole('option', { name: /Ship the beta/ }).waitFor();
    await input.press('ArrowDown');
    await input.press('ArrowUp');
    await input.press('Enter');
    await expect.poll(() => page.getByRole('dialog').getByLabel('Title').inputValue()).toBe('Ship the beta');
    await page.keyboard.press('Escape');
  });

  it('drags a card by touch (emulated touch screen)', async () => {
    const phone = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1280, height: 800 }, hasTouch: true });
    const person: Person = { context: phone, page: await phone.newPage(), foreignRequests: [], pageErrors: [] };
    await signedIn(person, 'grace');
    const { page } = person;
    const source = card(page, 'Write the docs');
    await source.waitFor();
    const from = (await source.locator('.meta').boundingBox())!;
    const to = (await column(page, 'In progress').boundingBox())!;
    const cdp = await phone.newCDPSession(page);
    const point = (x: number, y: number) => [{ x: Math.round(x), y: Math.round(y) }];
    const [x0, y0] = [from.x + 10, from.y + from.height / 2];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: point(x0, y0) });
    await page.waitForTimeout(500); // a press held past the 200 ms that tells a drag from a scroll
    const [x1, y1] = [to.x + to.width / 2, to.y + 60];
    for (let step = 1; step <= 12; step += 1) {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: point(x0 + ((x1 - x0) * step) / 12, y0 + ((y1 - y0) * step) / 12) });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await card(column(page, 'In progress'), 'Write the docs').waitFor();
    await expect.poll(async () => (await serverTask(tasks.docs!.id)).status).toBe('IN_PROGRESS');
    await phone.close();
  });

  it('drags a card with the keyboard: Space lifts it, arrows move it, Space drops it', async () => {
    const { page } = ada;
    await page.goto(boardUrl);
    const handle = card(page, 'Write the docs').getByRole('button', { name: 'Move Write the docs' });
    await handle.focus();
    await page.keyboard.press('Space');
    await page.locator('body[data-dragging]').waitFor();
    // Each press aims at the next column, which shows it is the drop target.
    await page.keyboard.press('ArrowRight');
    await column(page, 'In review').and(page.locator('.drop-target')).waitFor();
    await page.keyboard.press('ArrowRight');
    await column(page, 'Done').and(page.locator('.drop-target')).waitFor();
    await page.keyboard.press('Space');
    await card(column(page, 'Done'), 'Write the docs').waitFor();
    await expect.poll(async () => (await serverTask(tasks.docs!.id)).status).toBe('DONE');
    // Escape puts a lifted card back.
    await card(page, 'Write the docs').getByRole('button', { name: 'Move Write the docs' }).focus();
    await page.keyboard.press('Space');
    await page.locator('body[data-dragging]').waitFor();
    await page.keyboard.press('ArrowLeft');
    await column(page, 'In review').and(page.locator('.drop-target')).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('body:not([data-dragging])').waitFor();
    expect(await card(column(page, 'Done'), 'Write the docs').count()).toBe(1);
  });

  it('the list view sorts the same filtered tasks and changes several at once', async () => {
    const { page } = ada;
    await page.getByRole('link', { name: 'List', exact: true }).click();
    const table = page.getByRole('table');
    await table.waitFor();
    const titles = () => table.locator('tbody .task-title').allTextContents();
    await table.getByRole('button', { name: /^Title/ }).click();
    expect(await titles()).toEqual(['Book the venue', 'Draft the launch plan', 'Review the budget', 'Ship the beta', 'Write the docs']);
    await table.getByRole('button', { name: /^Title/ }).click();
    expect((await titles())[0]).toBe('Write the docs');
    await page.getByLabel('Priority').selectOption('HIGH');
    await expect.poll(titles).toEqual(['Review the budget']);
    await page.getByLabel('Priority').selectOption('');

    await table.getByLabel('Select Book the venue').check();
    await table.getByLabel('Select Draft the launch plan').check();
    const bulk = page.getByRole('group', { name: 'Change the selected tasks' });
    expect(await bulk.textContent()).toContain('2 selected');
    await bulk.getByLabel('Set status').selectOption('IN_REVIEW');
    await expect.poll(async () => [(await serverTask(tasks.plan!.id)).status]).toEqual(['IN_REVIEW']);
    // The selection clears once the browser has both answers, after the server has the change.
    await expect.poll(() => bulk.textContent()).toContain('0 selected');
    await table.getByLabel('Select Book the venue').check();
    await table.getByLabel('Select Draft the launch plan').check();
    await bulk.getByLabel('Set assignee').selectOption({ label: 'Grace Hopper' });
    await expect.poll(async () => (await serverTask(tasks.plan!.id)).assigneeId).toBe(ids.grace);
    const row = table.locator('tr', { hasText: 'Draft the launch plan' });
    expect(await row.textContent()).toContain('In review');
    expect(await row.textContent()).toContain('Grace Hopper');
    await screenshot(page, 'list.png', { fullPage: true });
  });

  it('rolls back a move the server refuses as stale (412), saying why, and shows the latest version', async () => {
    const { page } = ada;
    await page.goto(boardUrl);
    await card(page, 'Draft the launch plan').waitFor();
    // Grace saves the task just before Ada's move reaches the server: the server refuses Ada's as stale.
    let raced = false;
    await page.route('**/api/trpc/tasks.update*', async (route) => {
      if (!raced) {
        raced = true;
        await api.grace.tasks.update({ id: tasks.plan!.id, priority: 'LOW' });
      }
      await route.continue();
    });
    const menu = card(page, 'Draft the launch plan');
    await menu.getByRole('button', { name: 'Actions for Draft the launch plan' }).click();
    await menu.getByRole('button', { name: 'Done' }).click();
    const alert = page.locator('.toast');
    await expect.poll(() => alert.textContent()).toContain('was not changed: someone else changed it first');
    await card(column(page, 'In review'), 'Draft the launch plan').waitFor();
    await expect.poll(() => card(page, 'Draft the launch plan').textContent()).toContain('Low');
    expect((await serverTask(tasks.plan!.id)).status).toBe('IN_REVIEW');
    await page.unroute('**/api/trpc/tasks.update*');
    await alert.getByRole('button', { name: 'Dismiss' }).click();
  });

  it('says when it is offline, rolls back a move that cannot reach the server, and catches up from the stream on reconnect', async () => {
    const { page, context } = ada;
    await live(page);
    const listLoads: string[] = [];
    const streams: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (request.url().includes('tasks.listForProject')) listLoads.push(request.url());
      if (request.url().includes('/events')) streams.push(request.headers()['last-event-id']);
    });
    await context.setOffline(true);
    await page.getByText('You are offline.').waitFor();
    const plan = card(page, 'Draft the launch plan');
    await plan.getByRole('button', { name: 'Actions for Draft the launch plan' }).click();
    await plan.getByRole('button', { name: 'Cancelled' }).click();
    await expect.poll(() => page.locator('.toast').textContent()).toContain('the server could not be reached');
    await card(column(page, 'In review'), 'Draft the launch plan').waitFor();

    // Meanwhile, others work on.
    await api.grace.tasks.update({ id: tasks.beta!.id, status: 'DONE' });
    const added = await api.grace.tasks.create({ projectId, title: 'Print the posters' });
    await context.setOffline(false);
    await card(column(page, 'Done'), 'Ship the beta').waitFor();
    await card(column(page, 'To do'), 'Print the posters').waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    expect(await page.getByText('You are offline.').count()).toBe(0);
    // Caught up from the stream's resume point, without reading the task list again.
    expect(listLoads).toEqual([]);
    expect(streams.at(-1)).toMatch(/^\d+$/);
    tasks.posters = added;
  });

  it('filters by label, picks labels in the task dialog and adds one to several tasks in the list', async () => {
    const { page } = ada;
    await page.goto(boardUrl);
    await card(page, 'Ship the beta').waitFor();
    await page.getByRole('search').getByLabel('Label').selectOption({ label: 'Bug' });
    await expect.poll(() => page.locator('.task-card .task-title').allTextContents()).toEqual(['Ship the beta']);
    await page.getByRole('search').getByLabel('Label').selectOption('');
    await card(page, 'Write the docs').getByRole('link').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('group', { name: 'Labels' }).getByLabel('Design').check();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await serverTask(tasks.docs!.id)).labelIds).toEqual([labels.design]);
    await page.keyboard.press('Escape');
    await expect.poll(() => card(page, 'Write the docs').getByRole('list', { name: 'Labels' }).textContent()).toBe('Design');

    await page.getByRole('link', { name: 'List', exact: true }).click();
    const table = page.getByRole('table');
    await table.getByLabel('Select Write the docs').check();
    await table.getByLabel('Select Ship the beta').check();
    await page.getByRole('group', { name: 'Change the selected tasks' }).getByLabel('Add label').selectOption({ label: 'Design' });
    await expect.poll(async () => (await serverTask(tasks.beta!.id)).labelIds.length).toBe(2);
    expect((await serverTask(tasks.docs!.id)).labelIds).toEqual([labels.design]);
  });

  it("completes @ mentions over the members and sends mentionIds; the mentioned member's bell and inbox update live", async () => {
    const grace = await newPerson(browser, server.baseUrl);
    await signedIn(grace, 'grace', '/');
    const bell = grace.page.getByRole('link', { name: /^Notifications, \d+ unread$/ });
    await bell.waitFor();
    const before = Number((await bell.getAttribute('aria-label'))!.match(/\d+/)![0]);

    const { page } = ada;
    await page.goto(`${boardUrl}/tasks/${tasks.beta!.id}`);
    const box = page.getByRole('dialog').getByLabel('Add a comment');
    await box.fill('');
    await box.pressSequentially('Thanks @Gra');
    await page.getByRole('listbox', { name: 'Members to mention' }).getByRole('option', { name: 'Grace Hopper' }).waitFor();
    await box.press('Enter');
    await box.pressSequentially('ready to ship.');
    expect(await box.inputValue()).toBe('Thanks @Grace Hopper ready to ship.');
    await page.getByRole('dialog').getByRole('button', { name: 'Comment' }).click();
    await page.getByRole('dialog').locator('.comment-list li', { hasText: 'ready to ship' }).waitFor();
    const comments = await api.ada.comments.list({ id: tasks.beta!.id });
    expect(comments.items.at(-1)?.mentionIds).toEqual([ids.grace]);

    await expect.poll(async () => Number((await bell.getAttribute('aria-label'))!.match(/\d+/)![0])).toBeGreaterThan(before);
    await bell.click();
    const inbox = grace.page.locator('.inbox li', { hasText: 'Ada Lovelace mentioned you on Ship the beta' });
    await inbox.waitFor();
    await grace.page.getByRole('button', { name: 'Mark all as read' }).click();
    await expect.poll(() => bell.getAttribute('aria-label')).toBe('Notifications, 0 unread');
    expect((await api.grace.notifications.unreadCount()).count).toBe(0);
    expect(grace.pageErrors).toEqual([]);
    await grace.context.close();
  });

  it('sets how notifications arrive by email on the account page', async () => {
    const { page } = ada;
    await page.goto('/account');
    await page.getByLabel('One digest a day').check();
    await page.getByText('Saved.').waitFor();
    expect((await api.ada.notificationSettings.get()).email).toBe('daily');
    await page.reload();
    expect(await page.getByLabel('One digest a day').isChecked()).toBe(true);
  });

  it('follows the system theme, keeps a chosen one per browser; both themes have no axe violation on every page', async () => {
    const dark = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    const person: Person = { context: dark, page: await dark.newPage(), foreignRequests: [], pageErrors: [] };
    const { page } = person;
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const clean = async (what: string) => {
      expect(await accessibilityViolations(page), what).toEqual([]);
    };
    const pages = async (theme: string) => {
      await page.goto('/login');
      await page.evaluate(() => localStorage.removeItem('tasklane.token'));
      await page.reload();
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      await clean(`login, ${theme}`);
      await page.evaluate((token) => localStorage.setItem('tasklane.token', token), tokens.ada!);
      await page.goto(boardUrl);
      await card(page, 'Ship the beta').waitFor();
      await clean(`board, ${theme}`);
      await screenshot(page, theme === 'dark' ? 'board-dark.png' : 'board.png', { fullPage: true });
      await page.goto(`${boardUrl}/list`);
      await page.getByRole('table').waitFor();
      await clean(`list, ${theme}`);
      await page.goto(`${boardUrl}/tasks/${tasks.beta!.id}`);
      await page.getByRole('dialog').getByText('Build is green.').waitFor();
      await clean(`task dialog, ${theme}`);
      await page.goto(`${boardUrl}/members`);
      await page.locator('table.members tbody tr').first().waitFor();
      await clean(`members, ${theme}`);
      await page.goto('/inbox');
      await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
      await page.locator('.inbox li').first().waitFor();
      await clean(`inbox, ${theme}`);
      if (theme === 'light') await screenshot(page, 'inbox.png');
      await page.goto('/account');
      await page.getByLabel('No email').waitFor();
      await clean(`account, ${theme}`);
      // The other pages a person reaches from the header and a project's navigation, and the board's three editors.
      const others: [string, string, () => Promise<unknown>][] = [
        ['projects', '/', () => page.locator('.project').first().waitFor()],
        ['my tasks', '/my-tasks', () => page.getByRole('heading', { name: 'My tasks', level: 1 }).waitFor()],
        ['import', '/import', () => page.getByLabel('Exported file').waitFor()],
        ['webhooks', `${boardUrl}/webhooks`, () => page.getByText('No webhooks yet', { exact: true }).waitFor()],
        ['calendar', `${boardUrl}/calendar`, () => page.locator('.calendar-grid td').first().waitFor()],
        ['timeline', `${boardUrl}/timeline`, () => page.locator('.timeline').waitFor()],
        ['time report', `${boardUrl}/time`, () => page.getByLabel('Group by').waitFor()],
      ];
      for (const [what, path, shown] of others) {
        await page.goto(path);
        await shown();
        await clean(`${what}, ${theme}`);
      }
      await page.goto(boardUrl);
      for (const [button, dialog] of [['Edit labels', 'Labels'], ['Edit workflow', 'Workflow'], ['Edit fields', 'Custom fields']]) {
        await page.getByRole('button', { name: button }).click();
        const editor = page.getByRole('dialog', { name: dialog });
        await editor.getByRole('button', { name: 'Close' }).waitFor();
        await clean(`${dialog} editor, ${theme}`);
        await editor.getByRole('button', { name: 'Close' }).click();
      }
    };

    await page.goto('/login');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await background()).toBe('rgb(22, 26, 34)');
    await pages('dark');

    await page.getByRole('button', { name: 'Dark theme' }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await page.reload();
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    expect(await background()).toBe('rgb(244, 245, 247)');
    await pages('light');
    await dark.close();
  });

  it('loaded nothing from anywhere but the server, and threw no errors', () => {
    expect(ada.foreignRequests).toEqual([]);
    expect(ada.pageErrors).toEqual([]);
  });
});
