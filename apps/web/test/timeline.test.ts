import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, type Server, startServer, screenshot } from './harness';

const DAY = 86_400_000;

/** Monday 00:00 UTC of this week: where the timeline's window starts when opened. */
function thisMonday(): number {
  const today = Math.floor(Date.now() / DAY) * DAY;
  return today - ((new Date(today).getUTCDay() + 6) % 7) * DAY;
}

/**
 * The project timeline as a person uses it (issue 37): bars from start to due in a four-week window,
 * one-date tasks as markers, undated ones under "Not scheduled", grouping by state or assignee, an
 * arrow for a `blocks` relation, and an end of a bar moved by keyboard and by dragging, each change
 * PATCHed and read back through the API. The browser runs in UTC, as the window's days are.
 */
describe('the timeline in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  let api: TasklaneClient;
  let projectId: string;
  const ids: Record<string, string> = {};
  const run = Date.now().toString(36);
  const monday = thisMonday();
  const at = (days: number, hour = 9) => new Date(monday + days * DAY + hour * 3_600_000).toISOString();
  /** The inputs of the timeline's task list calls (tRPC batches several calls in one request). */
  const listInputs: Record<string, unknown>[] = [];
  let recording = false;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    api = createTasklaneClient({ baseUrl: server.baseUrl });
    const token = (await api.auth.register({ name: 'Ada Lovelace', email: `ada-${run}@example.com`, password: 'password-123' })).access_token;
    const grace = createTasklaneClient({ baseUrl: server.baseUrl });
    const graceId = (await grace.auth.register({ name: 'Grace Hopper', email: `grace-${run}@example.com`, password: 'password-123' })).user.id;
    const project = await api.projects.create({ name: `Launch ${run}` });
    projectId = project.id;
    await api.members.invite({ id: projectId, email: `grace-${run}@example.com`, role: 'EDITOR' });
    const me = await api.auth.me();
    const make = async (title: string, body: Record<string, unknown>) => {
      ids[title] = (await api.tasks.create({ projectId, title, ...body })).id;
    };
    await make('Design the rocket', { startDate: at(1), dueDate: at(4, 17), assigneeId: me.id });
    await make('Build the rocket', { startDate: at(7), dueDate: at(10, 17), status: 'IN_PROGRESS', assigneeId: graceId });
    await make('Press release', { dueDate: at(12, 17) });
    await make('Someday maybe', {});
    await make('Far future', { startDate: at(60), dueDate: at(62) });
    await api.relations.create({ id: ids['Design the rocket']!, type: 'blocks', taskId: ids['Build the rocket']! });

    const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1400, height: 900 }, timezoneId: 'UTC' });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (!recording || !url.pathname.startsWith('/api/trpc/')) return;
      const procedures = url.pathname.slice('/api/trpc/'.length).split(',');
      const inputs = JSON.parse(url.searchParams.get('input') ?? '{}') as Record<string, Record<string, unknown>>;
      procedures.forEach((procedure, index) => procedure === 'tasks.listForProject' && listInputs.push(inputs[index] ?? {}));
    });
    await page.goto('/login');
    await page.evaluate((value) => localStorage.setItem('tasklane.token', value), token);
    await page.goto(`/projects/${projectId}`);
    await page.getByRole('region', { name: /^To do\b/ }).waitFor();
    // The board read the whole project; from here on, the timeline's reads only.
    recording = true;
    await page.getByRole('link', { name: 'Timeline', exact: true }).click();
    await page.getByRole('heading', { name: `Launch ${run}: timeline`, level: 1 }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const row = (title: string) => page.locator('.timeline-row', { has: page.getByRole('link', { name: title, exact: true }) });
  const group = (name: string) => page.getByRole('region', { name, exact: true });
  const groupTitles = (name: string) => group(name).locator('.timeline-title').allTextContents();
  const stored = async (title: string) => api.tasks.get({ id: ids[title]! });

  it('shows a bar per scheduled task in the window, grouped by state, a marker for a one-date task and the undated ones apart', async () => {
    await row('Design the rocket').locator('.timeline-bar').waitFor();
    expect(await groupTitles('To do')).toEqual(['Design the rocket', 'Press release']);
    expect(await groupTitles('In progress')).toEqual(['Build the rocket']);
    // Outside the window: not shown, and not read.
    expect(await row('Far future').count()).toBe(0);
    expect(await page.locator('.timeline-bar:not(.timeline-marker)').count()).toBe(2);
    expect(await row('Press release').locator('.timeline-marker').count()).toBe(1);
    await expect.poll(() => row('Press release').getByRole('slider').getAttribute('aria-label')).toBe('Due date of Press release');
    const unscheduled = page.getByRole('region', { name: 'Not scheduled' });
    expect(await unscheduled.getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('Someday maybe')]);
    // A bar spans its days: Tuesday to Friday of the first week is 4 of 28 days.
    const track = await row('Design the rocket').locator('.timeline-track').boundingBox();
    const bar = await row('Design the rocket').locator('.timeline-bar').boundingBox();
    expect(Math.round(((bar!.x - track!.x) / track!.width) * 28)).toBe(1);
    expect(Math.round((bar!.width / track!.width) * 28)).toBe(4);
    await screenshot(page, 'timeline.png');
  });

  it('draws an arrow from the blocking task to the blocked one', async () => {
    const arrows = page.getByRole('img', { name: /^Dependencies:/ });
    await arrows.waitFor();
    expect(await arrows.getAttribute('aria-label')).toBe('Dependencies: Design the rocket blocks Build the rocket');
    expect(await page.locator('[data-arrow]').count()).toBe(1);
  });

  it('reads only the window (date filters, paged) and one page of tasks without dates, never the whole project', async () => {
    const windowReads = listInputs.filter((input) => input.startBefore || input.startAfter || input.dueAfter);
    const undated = listInputs.filter((input) => input.sort === '-dueDate');
    expect(windowReads.length).toBeGreaterThan(0);
    expect(undated).toHaveLength(1);
    expect(undated[0]!.cursor).toBeUndefined();
    expect(windowReads.length + undated.length, JSON.stringify(listInputs)).toBe(listInputs.length);
  });

  it('is accessible (axe-core) with the grid shown', async () => {
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('moves the end of a bar with ← and → on its focused handle, through the API', async () => {
    const due = row('Design the rocket').getByRole('slider', { name: 'Due date of Design the rocket' });
    await due.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await stored('Design the rocket')).dueDate).toBe(at(5, 17));
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(async () => (await stored('Design the rocket')).dueDate).toBe(at(3, 17));
    // The start cannot pass the due date: refused in place, nothing sent.
    const start = row('Build the rocket').getByRole('slider', { name: 'Start of Build the rocket' });
    await start.focus();
    // A day at a time, each saved before the next press (as a person sees each move land).
    for (const day of [8, 9, 10]) {
      await page.keyboard.press('ArrowRight');
      await expect.poll(async () => (await stored('Build the rocket')).startDate).toBe(at(day));
    }
    await page.keyboard.press('ArrowRight');
    expect((await stored('Build the rocket')).dueDate).toBe(at(10, 17));
    await page.getByRole('alert').getByText('cannot be after its due date').waitFor();
    // Keys pressed faster than the server answers: the first answer lands between the second press
    // and the third. Each press moves on from the last one shown, not from that answer (which would
    // step the bar back a day under the third press).
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    await page.route('**/api/trpc/tasks.update*', async (route) => {
      if (first) {
        first = false;
        await held;
      }
      await route.continue();
    });
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    const answered = page.waitForResponse((response) => response.url().includes('/api/trpc/tasks.update'));
    release();
    await answered;
    await page.keyboard.press('ArrowLeft');
    await expect.poll(async () => (await stored('Build the rocket')).startDate).toBe(at(7));
    await expect.poll(() => start.getAttribute('aria-valuenow')).toBe('7');
    await page.unrouteAll({ behavior: 'wait' });
  });

  it('moves an end by dragging its handle, whole days at a time', async () => {
    const handle = row('Build the rocket').getByRole('slider', { name: 'Start of Build the rocket' });
    const track = (await row('Build the rocket').locator('.timeline-track').boundingBox())!;
    const box = (await handle.boundingBox())!;
    const dayWidth = track.width / 28;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - dayWidth, box.y + box.height / 2, { steps: 4 });
    await page.mouse.move(box.x + box.width / 2 - 2 * dayWidth, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    await expect.poll(async () => (await stored('Build the rocket')).startDate).toBe(at(5));
    // A one-date marker's end drags too.
    const marker = row('Press release').getByRole('slider', { name: 'Due date of Press release' });
    const mark = (await marker.boundingBox())!;
    await page.mouse.move(mark.x + mark.width / 2, mark.y + mark.height / 2);
    await page.mouse.down();
    await page.mouse.move(mark.x + mark.width / 2 + 3 * dayWidth, mark.y + mark.height / 2, { steps: 6 });
    await page.mouse.up();
    await expect.poll(async () => (await stored('Press release')).dueDate).toBe(at(15, 17));
  });

  it('a change refused as stale (412) reloads the window with the other version, and says so', async () => {
    // Someone moves the due date just before this browser's change reaches the server.
    let raced = false;
    await page.route('**/api/trpc/tasks.update*', async (route) => {
      if (!raced) {
        raced = true;
        await api.tasks.update({ id: ids['Press release']!, dueDate: at(20, 17) });
      }
      await route.continue();
    });
    const marker = row('Press release').getByRole('slider', { name: 'Due date of Press release' });
    await marker.focus();
    await page.keyboard.press('ArrowLeft');
    const toast = page.locator('.toast');
    await expect.poll(() => toast.textContent()).toContain('someone else changed it first. The timeline has been reloaded');
    await expect.poll(() => marker.getAttribute('aria-valuenow')).toBe('20');
    expect((await stored('Press release')).dueDate).toBe(at(20, 17));
    await page.unroute('**/api/trpc/tasks.update*');
    await toast.getByRole('button', { name: 'Dismiss' }).click();
  });

  it('groups by assignee, unassigned last', async () => {
    await page.getByLabel('Group by').selectOption({ label: 'Assignee' });
    await group('Grace Hopper').waitFor();
    expect(await page.locator('.timeline-group h3').allTextContents()).toEqual(['Ada Lovelace', 'Grace Hopper', 'Unassigned']);
    expect(await groupTitles('Unassigned')).toEqual(['Press release']);
    expect(await groupTitles('Ada Lovelace')).toEqual(['Design the rocket']);
  });

  it('pages the window with previous and next', async () => {
    await page.getByRole('button', { name: 'Next 4 weeks' }).click();
    await page.getByRole('button', { name: 'Next 4 weeks' }).click();
    await row('Far future').locator('.timeline-bar').waitFor();
    expect(await row('Design the rocket').count()).toBe(0);
    await page.getByRole('button', { name: 'Previous 4 weeks' }).click();
    await page.getByRole('button', { name: 'Previous 4 weeks' }).click();
    await row('Design the rocket').locator('.timeline-bar').waitFor();
    expect(pageErrors).toEqual([]);
  });
});
