import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, newPerson, register, screenshot, type Server, signInWithToken, startServer } from './harness';

/**
 * The calendar (issue 37) as a person uses it: a month and a week of the project's tasks by due
 * date, previous/next/today, a task dragged to another day or moved with Alt+arrows (its time of
 * day kept, saved through the API), the tasks without a due date in a paged side list, and a change
 * made elsewhere arriving live. The browser runs in UTC with its clock fixed on 18 November 2026, so
 * the grid's dates are known; it reads only the tasks due in the visible range, a page at a time.
 */
describe('the calendar in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  let token: string;
  let projectId: string;
  const pageErrors: string[] = [];
  /** Every task list's input the page sent since the calendar opened (tRPC queries carry it in the address). */
  const listInputs: Record<string, unknown>[] = [];
  const run = Date.now().toString(36);
  const ids = new Map<string, string>();

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1400, height: 1000 }, timezoneId: 'UTC', locale: 'en-GB' });
    await context.clock.setFixedTime(new Date('2026-11-18T10:00:00Z'));
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (!url.pathname.startsWith('/api/trpc/')) return;
      const paths = url.pathname.slice('/api/trpc/'.length).split(',');
      const input = JSON.parse(url.searchParams.get('input') ?? '{}') as Record<string, Record<string, unknown>>;
      paths.forEach((path, index) => {
        if (path === 'tasks.listForProject') listInputs.push(url.searchParams.has('batch') ? input[String(index)]! : (input as never));
      });
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.baseUrl}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const dueDateOf = async (title: string) => (await api('GET', `/tasks/${ids.get(title)!}`)).body.dueDate;
  const day = (date: string) => page.locator(`td[data-day="${date}"]`);
  const chip = (scope: Page | Locator, title: string) => scope.locator('.calendar-task', { hasText: title });
  const undated = () => page.getByRole('region', { name: 'No due date' });
  const dragTo = async (source: Locator, target: Locator) => {
    const from = (await source.boundingBox())!;
    const to = (await target.boundingBox())!;
    await page.mouse.move(from.x + 6, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
    await page.mouse.up();
  };

  it('the month grid shows each task on its day, and nothing due outside it', async () => {
    await register({ page } as never, 'Ada Lovelace', `ada-${run}@example.com`);
    await page.getByLabel('Project name').fill('Orchard');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Orchard', level: 1 }).waitFor();
    projectId = /\/projects\/([^/?]+)/.exec(page.url())![1]!;
    token = (await page.evaluate(() => localStorage.getItem('tasklane.token')))!;
    const dated: [string, string][] = [
      ['Prune the trees', '2026-11-10T09:30:00.000Z'],
      ['Water the roses', '2026-11-10T15:00:00.000Z'],
      ['Harvest the apples', '2026-11-20T17:00:00.000Z'],
      ['Plant the bulbs', '2026-12-15T12:00:00.000Z'],
      ['Order the seeds', '2026-08-01T12:00:00.000Z'],
    ];
    for (const [title, dueDate] of dated) ids.set(title, (await api('POST', '/tasks', { projectId, title, dueDate })).body.id as string);
    // More undated tasks than one page of the side list.
    for (let index = 1; index <= 22; index += 1) {
      const title = `Idea ${String(index).padStart(2, '0')}`;
      ids.set(title, (await api('POST', '/tasks', { projectId, title })).body.id as string);
    }

    // The board links to the calendar beside its other views. (The board itself reads the whole project.)
    listInputs.length = 0;
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Calendar' }).click();
    await page.getByRole('heading', { name: 'Orchard: calendar', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'November 2026' }).waitFor();
    await chip(day('2026-11-20'), 'Harvest the apples').waitFor();
    expect(await day('2026-11-10').locator('.calendar-task').allTextContents()).toEqual(['Prune the trees', 'Water the roses']);
    expect(await page.getByText('Plant the bulbs').count()).toBe(0);
    expect(await page.getByText('Order the seeds').count()).toBe(0);
    // The grid is whole weeks, Monday first: 26 October to 6 December.
    expect(await page.locator('td[data-day]').count()).toBe(42);
    expect(await page.locator('td[data-day]').first().getAttribute('data-day')).toBe('2026-10-26');
    expect(await day('2026-11-18').getAttribute('aria-current')).toBe('date');

    // Only the visible range was asked for (or undated pages), each request one page.
    expect(listInputs.some((input) => input.dueAfter !== undefined)).toBe(true);
    expect(listInputs.some((input) => input.sort === '-dueDate')).toBe(true);
    for (const input of listInputs) {
      expect(Number(input.limit)).toBeLessThanOrEqual(100);
      if (input.sort === '-dueDate') continue;
      expect(input).toMatchObject({ projectId, dueAfter: '2026-10-25T23:59:59.999Z', dueBefore: '2026-12-07T00:00:00.000Z' });
    }
  });

  it('is axe-clean in the light and the dark theme, and fits a 360 px screen', async () => {
    await screenshot(page, 'calendar.png');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Dark theme' }).click();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Dark theme' }).click();
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1400, height: 1000 });
  });

  it('the week grid, and previous, next and today', async () => {
    await page.getByRole('button', { name: 'Week', exact: true }).click();
    await page.getByRole('heading', { name: '16 Nov 2026 – 22 Nov 2026' }).waitFor();
    expect(await page.locator('td[data-day]').count()).toBe(7);
    await chip(day('2026-11-20'), 'Harvest the apples').waitFor();
    expect(await page.getByText('Prune the trees').count()).toBe(0);

    await page.getByRole('button', { name: 'Previous week' }).click();
    await chip(day('2026-11-10'), 'Prune the trees').waitFor();
    expect(await page.getByText('Harvest the apples').count()).toBe(0);
    await page.getByRole('button', { name: 'Today' }).click();
    await chip(day('2026-11-20'), 'Harvest the apples').waitFor();

    await page.getByRole('button', { name: 'Month', exact: true }).click();
    await page.getByRole('button', { name: 'Next month' }).click();
    await page.getByRole('heading', { name: 'December 2026' }).waitFor();
    await chip(day('2026-12-15'), 'Plant the bulbs').waitFor();
    // A task opens in its dialog; closing it comes back to the calendar where it was.
    await chip(day('2026-12-15'), 'Plant the bulbs').getByRole('link', { name: 'Plant the bulbs' }).click();
    const dialog = page.getByRole('dialog', { name: 'Plant the bulbs' });
    await dialog.getByRole('form', { name: 'Task fields' }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('heading', { name: 'December 2026' }).waitFor();
    await chip(day('2026-12-15'), 'Plant the bulbs').waitFor();
    await page.getByRole('button', { name: 'Today' }).click();
    await page.getByRole('heading', { name: 'November 2026' }).waitFor();
    await chip(day('2026-11-20'), 'Harvest the apples').waitFor();
  });

  it('dragging a task to another day changes its dueDate through the API, keeping its time of day', async () => {
    await dragTo(chip(day('2026-11-20'), 'Harvest the apples'), day('2026-11-24'));
    await chip(day('2026-11-24'), 'Harvest the apples').waitFor();
    await expect.poll(() => dueDateOf('Harvest the apples')).toBe('2026-11-24T17:00:00.000Z');
    expect(await chip(day('2026-11-20'), 'Harvest the apples').count()).toBe(0);
  });

  it('moves a focused task a day with Alt+→ and a week with Alt+↓, the focus staying on it', async () => {
    await chip(day('2026-11-10'), 'Prune the trees').getByRole('link', { name: 'Prune the trees' }).focus();
    await page.keyboard.press('Alt+ArrowRight');
    await chip(day('2026-11-11'), 'Prune the trees').waitFor();
    await expect.poll(() => dueDateOf('Prune the trees')).toBe('2026-11-11T09:30:00.000Z');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Prune the trees');
    await page.keyboard.press('Alt+ArrowDown');
    await chip(day('2026-11-18'), 'Prune the trees').waitFor();
    await expect.poll(() => dueDateOf('Prune the trees')).toBe('2026-11-18T09:30:00.000Z');
    await page.getByRole('status').filter({ hasText: /“Prune the trees” is now due Wednesday,? 18 November 2026/ }).waitFor({ state: 'attached' });

    // Past the edge of the week shown, the view follows the task (and the focus stays on it).
    await page.getByRole('button', { name: 'Week', exact: true }).click();
    await page.getByRole('heading', { name: '16 Nov 2026 – 22 Nov 2026' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await chip(day('2026-11-18'), 'Prune the trees').getByRole('link', { name: 'Prune the trees' }).focus();
    await page.keyboard.press('Alt+ArrowDown');
    await page.getByRole('heading', { name: '23 Nov 2026 – 29 Nov 2026' }).waitFor();
    await chip(day('2026-11-25'), 'Prune the trees').waitFor();
    await expect.poll(() => dueDateOf('Prune the trees')).toBe('2026-11-25T09:30:00.000Z');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Prune the trees');
    await page.getByRole('button', { name: 'Month', exact: true }).click();
    await page.getByRole('heading', { name: 'November 2026' }).waitFor();
  });

  it('lists the tasks without a due date a page at a time; one dragged onto a day gets that day', async () => {
    const list = undated();
    await expect.poll(() => list.locator('.calendar-task').count()).toBe(20);
    await list.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => list.locator('.calendar-task').count()).toBe(22);
    expect(await list.getByRole('button', { name: 'Show more' }).count()).toBe(0);
    expect(await list.getByText('Prune the trees').count()).toBe(0);

    await dragTo(chip(list, 'Idea 01'), day('2026-11-26'));
    await chip(day('2026-11-26'), 'Idea 01').waitFor();
    await expect.poll(() => dueDateOf('Idea 01')).toBe('2026-11-26T23:59:59.999Z');
    expect(await chip(list, 'Idea 01').count()).toBe(0);
  });

  it('a change made elsewhere arrives live, and a refused stale change reloads the task and says so', async () => {
    await page.getByText('Live', { exact: true }).waitFor();
    const current = await api('GET', `/tasks/${ids.get('Water the roses')!}`);
    await api('PATCH', `/tasks/${ids.get('Water the roses')!}`, { dueDate: '2026-11-27T15:00:00.000Z' }, { 'If-Match': `"${new Date(current.body.updatedAt as string).getTime().toString(36)}"` });
    await chip(day('2026-11-27'), 'Water the roses').waitFor();
    expect(await chip(day('2026-11-10'), 'Water the roses').count()).toBe(0);
    // An undated task given a date elsewhere leaves the side list.
    await api('PATCH', `/tasks/${ids.get('Idea 02')!}`, { dueDate: '2026-11-05T08:00:00.000Z' });
    await chip(day('2026-11-05'), 'Idea 02').waitFor();
    expect(await chip(undated(), 'Idea 02').count()).toBe(0);

    // Someone else's change lands just before the drag is saved: the server answers 412.
    await page.route('**/api/trpc/tasks.update**', async (route) => {
      await api('PATCH', `/tasks/${ids.get('Water the roses')!}`, { title: 'Water the roses well' });
      await route.continue();
    });
    await dragTo(chip(day('2026-11-27'), 'Water the roses'), day('2026-11-23'));
    await page.getByRole('alert').filter({ hasText: 'someone else changed it first' }).waitFor();
    await page.unroute('**/api/trpc/tasks.update**');
    await chip(day('2026-11-27'), 'Water the roses well').waitFor();
    expect(await dueDateOf('Water the roses')).toBe('2026-11-27T15:00:00.000Z');
    expect(pageErrors).toEqual([]);
  });

  it('a viewer sees the calendar but cannot move a task', async () => {
    const email = `grace-${run}@example.com`;
    const registered = await fetch(`${server.baseUrl}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Grace Hopper', email, password: 'password-123' }),
    });
    const { access_token: viewerToken } = (await registered.json()) as { access_token: string };
    expect((await api('POST', `/projects/${projectId}/members/invite`, { email, role: 'VIEWER' })).status).toBe(201);
    const viewer = await newPerson(browser, server.baseUrl);
    await viewer.context.clock.setFixedTime(new Date('2026-11-18T10:00:00Z'));
    await signInWithToken(viewer, viewerToken, `/projects/${projectId}/calendar`);
    const link = viewer.page.locator('td[data-day="2026-11-24"] .calendar-task').getByRole('link', { name: 'Harvest the apples' });
    await link.waitFor();
    expect(await link.getAttribute('aria-keyshortcuts')).toBeNull();
    expect(await viewer.page.getByText('Drag a task to another day').count()).toBe(0);
    await link.focus();
    await viewer.page.keyboard.press('Alt+ArrowRight');
    // A move would show at once (optimistic): after a frame the task is still on its day.
    await viewer.page.evaluate(() => new Promise(requestAnimationFrame));
    expect(await viewer.page.locator('td[data-day="2026-11-25"] .calendar-task', { hasText: 'Harvest the apples' }).count()).toBe(0);
    expect(await dueDateOf('Harvest the apples')).toBe('2026-11-24T17:00:00.000Z');
    expect(viewer.pageErrors).toEqual([]);
    await viewer.context.close();
  });
});
