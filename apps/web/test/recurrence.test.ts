import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, card, column, launchChromium, register, type Server, startServer } from './harness';

/**
 * Recurring tasks as a person uses them: the task dialog's recurrence picker makes the rule and
 * says it in words ("every 2 weeks on Monday and Thursday"); completing the task puts its next
 * occurrence in To do, due at the rule's next date, carrying the rule. The browser runs in UTC, as
 * the server steps rules (a due date picked as a day is the end of that day, local time).
 */
describe('the recurrence picker in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const run = Date.now().toString(36);

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const words = (dialog: ReturnType<Page['getByRole']>) => dialog.getByTestId('recurrence-words').textContent();

  it('makes a weekly rule on chosen weekdays, says it in words, and saves it', async () => {
    await register({ page } as never, 'Ada Lovelace', `ada-${run}@example.com`);
    await page.getByLabel('Project name').fill('Garden');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Garden', level: 1 }).waitFor();

    const todo = column(page, 'To do');
    await todo.getByRole('button', { name: 'New task in To do' }).click();
    const form = page.getByRole('dialog', { name: 'New task' });
    await form.getByLabel('Title').fill('Water the plants');
    await form.getByRole('button', { name: 'Create task' }).click();
    await card(todo, 'Water the plants').getByRole('link', { name: 'Water the plants' }).click();
    const dialog = page.getByRole('dialog', { name: 'Water the plants' });
    await dialog.waitFor();

    // 2 March 2026 is a Monday.
    await dialog.getByLabel('Due date').fill('2026-03-02');
    await dialog.getByLabel('Repeats').selectOption('WEEKLY');
    await expect.poll(() => words(dialog)).toBe('Repeats every week');
    await dialog.getByLabel('Every how many weeks').fill('2');
    await dialog.getByLabel('Monday').check();
    await dialog.getByLabel('Thursday').check();
    await expect.poll(() => words(dialog)).toBe('Repeats every 2 weeks on Monday and Thursday');
    expect(await accessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => dialog.getByRole('button', { name: 'Save changes' }).isEnabled()).toBe(true);
    await page.reload();
    const reopened = page.getByRole('dialog', { name: 'Water the plants' });
    await expect.poll(() => words(reopened)).toBe('Repeats every 2 weeks on Monday and Thursday');
    await expect.poll(() => reopened.getByLabel('Thursday').isChecked()).toBe(true);
  });

  it('completing the task puts its next occurrence in To do, due on the Thursday, with the rule', async () => {
    const dialog = page.getByRole('dialog', { name: 'Water the plants' });
    await dialog.getByLabel('Status').selectOption({ label: 'Done' });
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await card(column(page, 'Done'), 'Water the plants').waitFor();
    const next = card(column(page, 'To do'), 'Water the plants');
    await next.getByRole('link', { name: 'Water the plants' }).click();
    const nextDialog = page.getByRole('dialog', { name: 'Water the plants' });
    await expect.poll(() => nextDialog.getByLabel('Due date').inputValue()).toBe('2026-03-05');
    await expect.poll(() => words(nextDialog)).toBe('Repeats every 2 weeks on Monday and Thursday');
    await nextDialog.getByText('The next occurrence of a recurring task.').waitFor();
  });

  it('monthly on the last Friday, ending after a number of times; and back to not repeating', async () => {
    const dialog = page.getByRole('dialog', { name: 'Water the plants' });
    await dialog.getByLabel('Repeats').selectOption('MONTHLY');
    await dialog.getByLabel('Monthly on').selectOption('weekday');
    await dialog.getByLabel('Which').selectOption({ label: 'last' });
    await dialog.getByLabel('Day of the week').selectOption({ label: 'Friday' });
    await dialog.getByLabel('Ends').selectOption('count');
    await dialog.getByLabel('Occurrences').fill('6');
    await expect.poll(() => words(dialog)).toBe('Repeats every month on the last Friday, 6 times');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => dialog.getByRole('button', { name: 'Save changes' }).isEnabled()).toBe(true);
    await dialog.getByLabel('Repeats').selectOption('');
    await expect.poll(() => dialog.getByTestId('recurrence-words').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => dialog.getByLabel('Repeats').inputValue()).toBe('');
    expect(pageErrors).toEqual([]);
  });
});
