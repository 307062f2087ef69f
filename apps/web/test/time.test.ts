import { readFile } from 'node:fs/promises';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, card, column, launchChromium, register, type Server, startServer, screenshot } from './harness';

/**
 * Estimates and time as a person tracks them: an estimate on the card and in the dialog, time logged
 * ("1h 30m") and its total, the timer started and stopped from the dialog, the header and the
 * command palette (one timer at a time: starting another stops the first), and the project's time
 * report with its CSV download. A timer stopped under a minute logs nothing, as the API documents
 * (DELETE /auth/me/timer → { entry: null }). Time logged elsewhere reaches the card live. The browser
 * runs in UTC, as entries are dated.
 */
describe('estimates, time entries, the timer and the time report in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const run = Date.now().toString(36);

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1280, height: 900 }, timezoneId: 'UTC', acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const summary = (title: string) => card(page, title).locator('.time-summary');
  const header = () => page.getByRole('group', { name: 'Running timer' });
  const timeSection = (dialog: Locator) => dialog.getByRole('region', { name: 'Time' });
  const openCard = async (title: string) => {
    await card(page, title).getByRole('link', { name: title }).click();
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.getByRole('form', { name: 'Task fields' }).waitFor();
    return dialog;
  };
  const closeDialog = (dialog: Locator) => dialog.getByRole('button', { name: 'Close' }).click();
  const palette = async (choice: string) => {
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Command palette' });
    await dialog.getByRole('combobox').fill(choice);
    await dialog.getByRole('option', { name: choice }).click();
    await dialog.waitFor({ state: 'hidden' });
  };

  it('an estimate set in the dialog shows on the card; no estimate and no time shows nothing', async () => {
    await register({ page } as never, 'Ada Lovelace', `ada-${run}@example.com`);
    await page.getByLabel('Project name').fill('Orchard');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Orchard', level: 1 }).waitFor();
    const todo = column(page, 'To do');
    for (const title of ['Prune the trees', 'Water the roses']) {
      await todo.getByRole('button', { name: 'New task in To do' }).click();
      const form = page.getByRole('dialog', { name: 'New task' });
      await form.getByLabel('Title').fill(title);
      await form.getByRole('button', { name: 'Create task' }).click();
      await card(todo, title).waitFor();
    }
    expect(await summary('Prune the trees').count()).toBe(0);

    const dialog = await openCard('Prune the trees');
    await dialog.getByLabel('Estimate (points)').fill('3');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => summary('Prune the trees').textContent()).toBe('Estimate 3 pts');
    expect(await summary('Water the roses').count()).toBe(0);
  });

  it('logs time as "1h 30m", lists the entry, totals it in the dialog and on the card; edits and deletes own entries', async () => {
    const dialog = page.getByRole('dialog', { name: 'Prune the trees' });
    const time = timeSection(dialog);
    await expect.poll(() => time.getByTestId('time-spent').textContent()).toBe('0m');
    const log = time.getByRole('form', { name: 'Log time' });
    await log.getByLabel('Time spent').fill('1h 30m');
    await log.getByLabel('Note').fill('Apple trees');
    await log.getByRole('button', { name: 'Log time' }).click();
    await expect.poll(() => time.getByTestId('time-spent').textContent()).toBe('1h 30m');
    const rows = time.getByRole('table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const cells = await rows.first().locator('td').allTextContents();
    expect(cells.slice(0, 4)).toEqual(['Ada Lovelace', expect.stringMatching(/\d{4}/), '1h 30m', 'Apple trees']);
    await expect.poll(() => summary('Prune the trees').textContent()).toBe('Estimate 3 pts · Time spent 1h 30m');

    // A duration it cannot read is said, not sent.
    await log.getByLabel('Time spent').fill('soon');
    await log.getByRole('button', { name: 'Log time' }).click();
    await log.getByText('"soon" is not a duration').waitFor();

    // A second entry, deleted; the first, changed to 2 hours.
    await log.getByLabel('Time spent').fill('45');
    await log.getByRole('button', { name: 'Log time' }).click();
    await expect.poll(() => time.getByTestId('time-spent').textContent()).toBe('2h 15m');
    await time.getByRole('button', { name: /^Delete 45m of / }).click();
    await expect.poll(() => time.getByTestId('time-spent').textContent()).toBe('1h 30m');
    await time.getByRole('button', { name: /^Edit 1h 30m of / }).click();
    const edit = time.getByRole('form', { name: /^Change Ada Lovelace's entry/ });
    await edit.getByLabel('Time spent').fill('2h');
    await edit.getByRole('button', { name: 'Save entry' }).click();
    await expect.poll(() => time.getByTestId('time-spent').textContent()).toBe('2h');
    await expect.poll(() => summary('Prune the trees').textContent()).toBe('Estimate 3 pts · Time spent 2h');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('the timer: started in the dialog, shown ticking there and in the header, stopped from the palette', async () => {
    const dialog = page.getByRole('dialog', { name: 'Prune the trees' });
    const time = timeSection(dialog);
    await time.getByRole('button', { name: 'Start timer' }).click();
    await time.getByText('Timer running').waitFor();
    await header().getByRole('link', { name: 'Prune the trees' }).waitFor();
    // It ticks: the elapsed time moves on from where it was.
    const first = await header().locator('time.elapsed').textContent();
    await expect.poll(() => header().locator('time.elapsed').textContent(), { timeout: 10_000 }).not.toBe(first);
    expect(await accessibilityViolations(page)).toEqual([]);

    await palette('Stop timer (Prune the trees)');
    // Under a minute: the server logs nothing ({ entry: null }), and says so.
    await page.getByRole('alert').getByText('Timer stopped after less than a minute: nothing logged.').waitFor();
    await header().waitFor({ state: 'detached' });
    await time.getByRole('button', { name: 'Start timer' }).waitFor();
    expect(await time.getByRole('table').locator('tbody tr').count()).toBe(1);
    await expect.poll(() => time.getByTestId('time-spent').textContent()).toBe('2h');
  });

  it('the palette starts the timer on the open task; starting one on another task stops the first', async () => {
    await palette('Start timer on this task');
    await header().getByRole('link', { name: 'Prune the trees' }).waitFor();
    const first = page.getByRole('dialog', { name: 'Prune the trees' });
    await timeSection(first).getByRole('button', { name: 'Stop timer' }).waitFor();
    await closeDialog(first);

    const second = await openCard('Water the roses');
    await timeSection(second).getByRole('button', { name: 'Start timer' }).click();
    await header().getByRole('link', { name: 'Water the roses' }).waitFor();
    await timeSection(second).getByRole('button', { name: 'Stop timer' }).waitFor();

    // The header's link opens the task it times; its Stop button stops it (the header is inert under a dialog).
    await closeDialog(second);
    await header().getByRole('link', { name: 'Water the roses' }).click();
    const reopened = page.getByRole('dialog', { name: 'Water the roses' });
    await timeSection(reopened).getByRole('button', { name: 'Stop timer' }).waitFor();
    await closeDialog(reopened);
    await header().getByRole('button', { name: 'Stop timer' }).click();
    await header().waitFor({ state: 'detached' });
    await page.getByRole('alert').getByText('Timer stopped after less than a minute: nothing logged.').waitFor();
  });

  it('the time report: rows and total for this month, by person and by task; the CSV downloaded; the estimate unit and totals', async () => {
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Time', exact: true }).click();
    await page.getByRole('heading', { name: 'Orchard: time', level: 1 }).waitFor();
    const table = page.locator('table.report-table');
    await expect.poll(() => table.locator('tbody tr').allInnerTexts()).toEqual(['Ada Lovelace\t2h']);
    await expect.poll(() => table.locator('tfoot tr').innerText()).toBe('Total\t2h');
    await screenshot(page, 'time-report.png', { fullPage: true });

    await page.getByLabel('Group by').selectOption('task');
    await expect.poll(() => table.locator('tbody tr').allInnerTexts()).toEqual([expect.stringMatching(/Prune the trees\t2h$/)]);

    await page.getByLabel('Group by').selectOption('user');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^Orchard-time-\d{4}-\d{2}-01-to-\d{4}-\d{2}-\d{2}-by-user\.csv$/);
    const csv = await readFile((await download.path())!, 'utf8');
    expect(csv).toMatch(/^key,label,minutes\r\n[0-9a-f-]{36},Ada Lovelace,120\r\n$/);

    // A range with nothing in it.
    await page.getByLabel('From').fill('2020-01-01');
    await page.getByLabel('To').fill('2020-01-31');
    await page.getByText('No time logged in these dates', { exact: true }).waitFor();

    const totals = page.getByRole('region', { name: 'Estimates' }).getByRole('table');
    await expect.poll(() => totals.locator('tbody tr').first().innerText()).toBe('To do\t3 pts');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByLabel('Estimate unit').selectOption('hours');
    await expect.poll(() => totals.locator('tbody tr').first().innerText()).toBe('To do\t3 h');
    await page.reload();
    await expect.poll(() => page.getByLabel('Estimate unit').inputValue()).toBe('hours');

    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Board' }).click();
    await expect.poll(() => summary('Prune the trees').textContent()).toBe('Estimate 3 h · Time spent 2h');

    // Time logged elsewhere (another device, through the API) reaches the card through the live stream.
    const href = await card(page, 'Prune the trees').getByRole('link', { name: 'Prune the trees' }).getAttribute('href');
    const taskId = href!.split('/').at(-1)!;
    await page.getByRole('navigation', { name: 'Project' }).getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const status = await page.evaluate(async (id) => {
      const response = await fetch(`/api/v1/tasks/${id}/time-entries`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${localStorage.getItem('tasklane.token')}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ minutes: 30 }),
      });
      return response.status;
    }, taskId);
    expect(status).toBe(201);
    await expect.poll(() => summary('Prune the trees').textContent()).toBe('Estimate 3 h · Time spent 2h 30m');
    expect(pageErrors).toEqual([]);
  });
});
