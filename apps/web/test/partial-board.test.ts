import { createTasklaneClient } from '@tasklane/sdk';
import { generateNKeysBetween } from 'fractional-indexing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { column, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer } from './harness';

/** The board's page size (data.ts COLUMN_PAGE): no response the page reads may hold more. */
const PAGE = 50;
/** Tasks 1…200 in To do, 201…280 in In progress, 281…290 in Done. */
const TODO = 200;
const IN_PROGRESS = 80;
const DONE = 10;

/**
 * Task n's id: ids in the order of n (so ties of a sort, broken by id, go by n). Its creation is
 * n seconds ago, the reverse: a list in creation order is told from one sorted by status.
 */
const idOf = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;

/**
 * Issue 37: a project the board reads only in part (a column's first page of 50) is sorted in the
 * list, by status and by assignee, and filtered on the board by the server, never over the cards read.
 * Each column's board order is the reverse of its tasks' numbers, so the board's first pages hold
 * the highest numbers of each column, and the lowest (first by id) are not read until asked for.
 */
describe('a project read in part: sorted and filtered by the server', () => {
  let server: Server;
  let browser: Browser;
  let person: Person;
  let projectId: string;
  const pageSizes: number[] = [];
  const grace = [3, 7, 11, 190, 205];
  const rush = [5, 170, 210, 215];

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    const run = Date.now().toString(36);
    const api = createTasklaneClient({ baseUrl: server.baseUrl });
    const token = (await api.auth.register({ name: 'Ada Lovelace', email: `ada-${run}@example.com`, password: 'password-123' })).access_token;
    const me = await api.auth.me();
    const other = createTasklaneClient({ baseUrl: server.baseUrl });
    await other.auth.register({ name: 'Grace Hopper', email: `grace-${run}@example.com`, password: 'password-123' });
    const graceId = (await other.auth.me()).id;
    const project = await api.projects.create({ name: `Partial ${run}` });
    projectId = project.id;
    await api.members.invite({ id: projectId, email: `grace-${run}@example.com`, role: 'EDITOR' });
    const label = await api.labels.create({ id: projectId, name: 'Rush', color: '#dc2626' });
    // Seeded straight into the database, as big-board.test.ts does. Every value is made here (ids,
    // numbers, keys, the statuses): no quoting needed.
    const positions = generateNKeysBetween(null, null, TODO + IN_PROGRESS + DONE);
    const rows: string[] = [];
    const statusOf = (n: number) => (n <= TODO ? 'TODO' : n <= TODO + IN_PROGRESS ? 'IN_PROGRESS' : 'DONE');
    for (let n = 1; n <= TODO + IN_PROGRESS + DONE; n += 1) {
      const assignee = grace.includes(n) ? `'${graceId}'` : n === 2 ? `'${me.id}'` : 'null';
      const labels = rush.includes(n) ? `'{${label.id}}'` : `'{}'`;
      // Low priority: To do's first 120 by number, none of them on its first page.
      const priority = n <= 120 ? 'LOW' : 'MEDIUM';
      rows.push(`('${idOf(n)}'::uuid, 'Bulk task ${n}', '${statusOf(n)}', '${priority}'::task_priority, ${assignee}::uuid, ${labels}::uuid[], ${n}, '${positions[TODO + IN_PROGRESS + DONE - n]}')`);
    }
    await server.database.db.execute(`
      insert into tasks (id, project_id, title, status, priority, assignee_id, label_ids, created_by_id, number, position, created_at, updated_at)
      select id, '${projectId}', title, status, priority, assignee, labels, '${me.id}', n, p, now() - n * interval '1 second', now() - n * interval '1 second'
      from (values ${rows.join(',\n')}) as seed(id, title, status, priority, assignee, labels, n, p)`);
    await server.database.db.execute(`update projects set next_task_number = ${TODO + IN_PROGRESS + DONE + 1} where id = '${projectId}'`);
    person = await newPerson(browser, server.baseUrl);
    person.page.on('response', async (response) => {
      if (!response.url().includes('/trpc/') && !response.url().includes('/api/')) return;
      const body = await response.json().catch(() => undefined);
      const walk = (value: unknown) => {
        if (!value || typeof value !== 'object') return;
        if (Array.isArray((value as { items?: unknown }).items)) pageSizes.push((value as { items: unknown[] }).items.length);
        for (const child of Object.values(value)) walk(child);
      };
      walk(body);
    });
    await signInWithToken(person, token, `/projects/${projectId}`);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const titlesIn = (page: Page, label: string) => column(page, label).locator('.task-card .task-title').allTextContents();
  const sorted = (titles: string[]) => [...titles].sort();
  const names = (numbers: number[]) => numbers.map((n) => `Bulk task ${n}`);

  it('opens the board with each column\'s first page only', async () => {
    const { page } = person;
    const todo = column(page, 'To do');
    await todo.getByRole('link', { name: 'Bulk task 200', exact: true }).waitFor();
    await expect.poll(() => todo.locator('.count').textContent()).toBe(String(TODO));
    // Not read: the column's end (by board order), where the lowest numbers are.
    expect(await todo.getByRole('link', { name: 'Bulk task 3', exact: true }).count()).toBe(0);
  });

  it('sorts the list by status in the workflow order, and by assignee by name, through the server', async () => {
    const { page } = person;
    await page.getByRole('link', { name: 'List', exact: true }).click();
    const rows = page.locator('table.task-table tbody tr');
    const titles = async (count: number) => (await rows.locator('.task-title').allTextContents()).slice(0, count);
    const caption = page.locator('table.task-table caption');
    // By status, the default: To do first, by id, so Bulk task 1, which the board has not read.
    await expect.poll(() => titles(3)).toEqual(names([1, 2, 3]));
    expect(await caption.textContent()).toBe('Tasks, sorted by Status');
    const status = page.getByRole('columnheader', { name: /^Status/ });
    expect(await status.getAttribute('aria-sort')).toBe('ascending');
    await status.getByRole('button').click();
    // Descending: Done (the last state with tasks) first, its highest id first.
    await expect.poll(() => titles(2)).toEqual(names([290, 289]));
    expect(await status.getAttribute('aria-sort')).toBe('descending');
    expect(await rows.count()).toBeLessThanOrEqual(PAGE);

    const assignee = page.getByRole('columnheader', { name: /^Assignee/ });
    await assignee.getByRole('button').click();
    // Ada's task, then Grace's (by id), then the unassigned: none of the first six is on a page the board read but 190.
    await expect.poll(() => titles(7)).toEqual(names([2, ...grace, 1]));
    expect(await caption.textContent()).toBe('Tasks, sorted by Assignee');
    expect(await assignee.getAttribute('aria-sort')).toBe('ascending');
    await assignee.getByRole('button').click();
    // Descending: the unassigned first (highest id first), Ada's last.
    await expect.poll(() => titles(1)).toEqual(names([290]));
    expect(await assignee.getAttribute('aria-sort')).toBe('descending');
    await page.getByRole('button', { name: 'Show more tasks', exact: true }).waitFor();
    expect(pageSizes.filter((items) => items > PAGE)).toEqual([]);
  });

  it('filters the board by assignee and by label through the server, column by column', async () => {
    const { page } = person;
    await page.getByRole('link', { name: 'Board', exact: true }).click();
    await column(page, 'To do').getByRole('link', { name: 'Bulk task 200', exact: true }).waitFor();
    const filters = page.getByRole('search', { name: 'Filter tasks' });
    await filters.getByLabel('Assignee').selectOption({ label: 'Grace Hopper' });
    // Grace's tasks far past the pages read show, in board order (the reverse of their numbers).
    await expect.poll(() => titlesIn(page, 'To do')).toEqual(names([190, 11, 7, 3]));
    await expect.poll(() => titlesIn(page, 'In progress')).toEqual(names([205]));
    expect(await titlesIn(page, 'Done')).toEqual([]);
    expect(await column(page, 'To do').locator('.count').textContent()).toBe('4');

    await filters.getByLabel('Assignee').selectOption({ label: 'Anyone' });
    await filters.getByLabel('Label').selectOption({ label: 'Rush' });
    await expect.poll(async () => sorted(await titlesIn(page, 'To do'))).toEqual(sorted(names([170, 5])));
    await expect.poll(() => titlesIn(page, 'In progress')).toEqual(names([215, 210]));

    // And with both: Grace's Rush tasks (none).
    await filters.getByLabel('Assignee').selectOption({ label: 'Grace Hopper' });
    await expect.poll(() => page.locator('.task-card').count()).toBe(0);
    await filters.getByLabel('Label').selectOption({ label: 'Any' });
    await filters.getByLabel('Assignee').selectOption({ label: 'Anyone' });
    await expect.poll(() => column(page, 'To do').locator('.count').textContent()).toBe(String(TODO));
    expect(pageSizes.filter((items) => items > PAGE)).toEqual([]);
  });

  it('pages a filtered column by cursor as its end scrolls into view', async () => {
    const { page } = person;
    const filters = page.getByRole('search', { name: 'Filter tasks' });
    await filters.getByLabel('Priority').selectOption({ label: 'Low' });
    const todo = column(page, 'To do');
    // The first filtered page: 50 of To do's 120 low tasks, none of which the unfiltered board read.
    await expect.poll(() => todo.locator('.count').textContent()).toBe(`${PAGE}+`);
    await todo.getByRole('link', { name: 'Bulk task 120', exact: true }).waitFor();
    await expect
      .poll(
        async () => {
          await page.evaluate(() => document.querySelector('[data-status="TODO"] .column-more')?.scrollIntoView());
          return todo.locator('.count').textContent();
        },
        { timeout: 60_000 },
      )
      .toBe('120');
    expect(await column(page, 'In progress').locator('.task-card').count()).toBe(0);
    expect(pageSizes.filter((items) => items > PAGE)).toEqual([]);
  });
});
