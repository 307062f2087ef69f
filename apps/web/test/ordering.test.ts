import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, column, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer } from './harness';

/**
 * The order a team gives its board: a card dragged within a column (by mouse, by keyboard) stays
 * where it was dropped, after a reload and in another person's browser; a card dragged to another
 * column lands where it was dropped there. The data is set up through the SDK; every check is on
 * what the browsers show, and on the server's `sort=position` order.
 */
describe('ordering cards on the board in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let ada: Person;
  let grace: Person;
  let api: TasklaneClient;
  let projectId: string;
  const tokens: Record<'ada' | 'grace', string> = {} as never;
  const run = Date.now().toString(36);

  const titles = (page: Page, label: string) => column(page, label).locator('.task-card .task-title').allTextContents();
  /** The column's titles in the server's order. */
  const serverOrder = async (status: string) =>
    (await api.tasks.list({ projectId, status: [status as 'TODO'], sort: 'position' })).items.map((task) => task.title);

  async function signedIn(person: Person, who: 'ada' | 'grace') {
    await signInWithToken(person, tokens[who], `/projects/${projectId}`);
    await column(person.page, 'To do').waitFor();
  }

  /** Drags a card by mouse, as a person does, and releases it `offset` pixels below the top of `onto`'s card. */
  async function drag(page: Page, title: string, onto: string, offset: number) {
    const from = (await card(page, title).locator('.meta').boundingBox())!;
    const to = (await card(page, onto).boundingBox())!;
    await page.mouse.move(from.x + 10, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + offset, { steps: 15 });
    await page.mouse.up();
  }

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    const clients: Record<string, TasklaneClient> = {};
    for (const [who, name] of [
      ['ada', 'Ada Lovelace'],
      ['grace', 'Grace Hopper'],
    ] as const) {
      clients[who] = createTasklaneClient({ baseUrl: server.baseUrl });
      tokens[who] = (await clients[who].auth.register({ name, email: `${who}-${run}@example.com`, password: 'password-123' })).access_token;
    }
    api = clients.ada!;
    projectId = (await api.projects.create({ name: `Ranked ${run}` })).id;
    await api.members.invite({ id: projectId, email: `grace-${run}@example.com`, role: 'EDITOR' });
    for (const title of ['First', 'Second', 'Third', 'Fourth']) await api.tasks.create({ projectId, title });
    for (const title of ['Review one', 'Review two']) await api.tasks.create({ projectId, title, status: 'IN_REVIEW' });
    ada = await newPerson(browser, server.baseUrl);
    grace = await newPerson(browser, server.baseUrl);
    await signedIn(ada, 'ada');
    await signedIn(grace, 'grace');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows each column in the order of its positions', async () => {
    await expect.poll(() => titles(ada.page, 'To do')).toEqual(['First', 'Second', 'Third', 'Fourth']);
    expect(await serverOrder('TODO')).toEqual(['First', 'Second', 'Third', 'Fourth']);
  });

  it('reorders a card by dragging it within its column; the order survives a reload and shows in another browser', async () => {
    const { page } = ada;
    // Third dropped on the top edge of First: it takes First's place, at the top.
    await drag(page, 'Third', 'First', 4);
    await expect.poll(() => titles(page, 'To do')).toEqual(['Third', 'First', 'Second', 'Fourth']);
    await expect.poll(() => serverOrder('TODO')).toEqual(['Third', 'First', 'Second', 'Fourth']);

    // First dragged down onto Fourth: it goes after it, at the bottom.
    await drag(page, 'First', 'Fourth', 20);
    await expect.poll(() => serverOrder('TODO')).toEqual(['Third', 'Second', 'Fourth', 'First']);
    expect(await titles(page, 'To do')).toEqual(['Third', 'Second', 'Fourth', 'First']);

    await page.reload();
    await expect.poll(() => titles(page, 'To do')).toEqual(['Third', 'Second', 'Fourth', 'First']);
    // The other browser follows live, and after its own reload.
    await expect.poll(() => titles(grace.page, 'To do')).toEqual(['Third', 'Second', 'Fourth', 'First']);
    await grace.page.reload();
    await expect.poll(() => titles(grace.page, 'To do')).toEqual(['Third', 'Second', 'Fourth', 'First']);
    expect(ada.pageErrors).toEqual([]);
  });

  it('reorders with the keyboard: Space lifts the card, Up aims at the card above, Space drops it in that card’s place', async () => {
    const { page } = grace;
    await card(page, 'Fourth').getByRole('button', { name: 'Move Fourth' }).focus();
    await page.keyboard.press('Space');
    await page.locator('body[data-dragging]').waitFor();
    // The card aimed at shows it is the drop target.
    await page.keyboard.press('ArrowUp');
    await card(page, 'Second').and(page.locator('.drop-target')).waitFor();
    await page.keyboard.press('Space');
    await page.locator('body:not([data-dragging])').waitFor();
    await expect.poll(() => serverOrder('TODO')).toEqual(['Third', 'Fourth', 'Second', 'First']);
    await expect.poll(() => titles(page, 'To do')).toEqual(['Third', 'Fourth', 'Second', 'First']);
    await expect.poll(() => titles(ada.page, 'To do')).toEqual(['Third', 'Fourth', 'Second', 'First']);
  });

  it('drops a card into another column where it is dropped, with its new status', async () => {
    const { page } = ada;
    // Second dropped on the top edge of "Review two": between the two reviews.
    await drag(page, 'Second', 'Review two', 4);
    await expect.poll(() => serverOrder('IN_REVIEW')).toEqual(['Review one', 'Second', 'Review two']);
    await expect.poll(() => titles(page, 'In review')).toEqual(['Review one', 'Second', 'Review two']);
    expect(await titles(page, 'To do')).toEqual(['Third', 'Fourth', 'First']);
    await expect.poll(() => titles(grace.page, 'In review')).toEqual(['Review one', 'Second', 'Review two']);
    expect(ada.pageErrors).toEqual([]);
    expect(grace.pageErrors).toEqual([]);
  });
});
