import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, card, column, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer } from './harness';

/**
 * Two board bugs of issue 39, as a person meets them in Chromium: the card being dragged is drawn
 * as a card (opaque, with a shadow) in both themes, not as bare text over the cards it passes; a
 * card's menu is never cut off by the board's scroll area, near the board's bottom or the window's,
 * and still works by keyboard.
 */
describe('the board’s dragged card and card menus in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let ada: Person;
  let api: TasklaneClient;
  let token: string;
  /** Nine cards in progress (a board taller than the window), and a board of two short columns. */
  let projectId: string;
  let shortId: string;
  const run = Date.now().toString(36);
  const longColumn = Array.from({ length: 9 }, (_, index) => `Long ${index + 1}`);

  const statusOf = async (title: string, project = projectId) => (await api.tasks.list({ projectId: project, limit: 100 })).items.find((task) => task.title === title)?.status;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    api = createTasklaneClient({ baseUrl: server.baseUrl });
    token = (await api.auth.register({ name: 'Ada Lovelace', email: `ada-${run}@example.com`, password: 'password-123' })).access_token;
    projectId = (await api.projects.create({ name: `Drawn cards ${run}` })).id;
    await api.tasks.create({ projectId, title: 'Resting' });
    for (const title of longColumn) await api.tasks.create({ projectId, title, status: 'IN_PROGRESS' });
    shortId = (await api.projects.create({ name: `Short board ${run}` })).id;
    for (const title of ['Alpha', 'Beta']) await api.tasks.create({ projectId: shortId, title });
    await api.tasks.create({ projectId: shortId, title: 'Gamma', status: 'DONE' });
    ada = await newPerson(browser, server.baseUrl);
    await signInWithToken(ada, token, `/projects/${projectId}`);
    await card(ada.page, 'Resting').waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The alpha of a computed CSS colour (`rgb(…)` is opaque, `transparent` is `rgba(0, 0, 0, 0)`). */
  const alpha = (colour: string) => {
    const parts = /^rgba?\(([^)]*)\)$/.exec(colour)?.[1]?.split(/[,\s/]+/).filter(Boolean);
    if (!parts) throw new Error(`Not a computed colour: ${colour}`);
    return parts.length === 4 ? Number(parts[3]) : 1;
  };
  const style = (locator: Locator, property: 'background-color' | 'box-shadow') =>
    locator.evaluate((node, name) => getComputedStyle(node).getPropertyValue(name), property);

  /** Lifts `title`'s card by mouse and carries it over the column `to`; checks the card drawn under the pointer; drops it there. */
  async function dragAndCheck(page: Page, title: string, to: string) {
    const from = (await card(page, title).locator('.meta').boundingBox())!;
    const target = (await column(page, to).boundingBox())!;
    await page.mouse.move(from.x + 10, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(target.x + target.width / 2, target.y + 60, { steps: 12 });
    const overlay = page.locator('.card-overlay');
    await overlay.getByText(title).waitFor();
    const background = await style(overlay, 'background-color');
    expect(alpha(background), background).toBe(1);
    // The card's own colour (a card at rest), and a shadow lifting it off the board.
    expect(background).toBe(await style(card(page, 'Resting'), 'background-color'));
    expect(await style(overlay, 'box-shadow')).not.toBe('none');
    await page.mouse.up();
    await card(column(page, to), title).waitFor();
    await expect.poll(() => overlay.count()).toBe(0);
    return background;
  }

  it('draws the dragged card opaque and with a shadow, in the light and the dark theme', async () => {
    const { page } = ada;
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    const light = await dragAndCheck(page, 'Long 1', 'Done');
    await expect.poll(() => statusOf('Long 1')).toBe('DONE');

    await page.getByRole('button', { name: 'Dark theme' }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    const dark = await dragAndCheck(page, 'Long 1', 'In review');
    await expect.poll(() => statusOf('Long 1')).toBe('IN_REVIEW');
    expect(dark).not.toBe(light);
    await page.getByRole('button', { name: 'Dark theme' }).click();
    expect(ada.pageErrors).toEqual([]);
  });

  /** Every entry of an open menu shows whole inside the window, and is what is under its own centre (nothing covers or clips it). */
  async function expectWhollyShown(page: Page, menu: Locator) {
    const entries = await menu.getByRole('button').all();
    expect(entries.length).toBeGreaterThanOrEqual(6); // the five statuses and "Assign to me"
    for (const entry of entries) {
      const shown = await entry.evaluate((node) => {
        const box = node.getBoundingClientRect();
        const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
        const hit = document.elementFromPoint(x, y);
        return {
          inside: box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth && box.height > 0,
          topmost: hit !== null && node.contains(hit),
          text: node.textContent,
        };
      });
      expect(shown).toEqual({ inside: true, topmost: true, text: shown.text });
    }
  }

  it('shows the whole menu of a card in the second row, reaching past the board’s edge; it works by keyboard and passes axe', async () => {
    const { page } = ada;
    await page.goto(`/projects/${shortId}`);
    const button = page.getByRole('button', { name: 'Actions for Beta' });
    const menu = page.getByRole('group', { name: 'Actions for Beta' });
    await button.click();
    await menu.waitFor();
    // Taller than the board of short columns: drawn inside it, the board's scroll area cut it off.
    const [board, drawn] = [(await page.locator('.board').boundingBox())!, (await menu.boundingBox())!];
    expect(drawn.y < board.y || drawn.y + drawn.height > board.y + board.height).toBe(true);
    await expectWhollyShown(page, menu);
    expect(await accessibilityViolations(page)).toEqual([]);

    // By keyboard: Escape closes it and gives the focus back to its button; Tab goes from the button into it.
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    expect(await button.evaluate((node) => node === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await menu.waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('To do');
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    expect(await button.evaluate((node) => node === document.activeElement)).toBe(true);

    // Its entries answer a click where they are drawn.
    await button.click();
    await menu.getByRole('button', { name: 'Done' }).click();
    await card(column(page, 'Done'), 'Beta').waitFor();
    await expect.poll(() => statusOf('Beta', shortId)).toBe('DONE');
  });

  it('opens the menu of a column’s last card at the window’s bottom upward, whole', async () => {
    const { page } = ada;
    await page.goto(`/projects/${projectId}`);
    const last = longColumn.at(-1)!;
    const button = page.getByRole('button', { name: `Actions for ${last}` });
    await button.evaluate((node) => node.scrollIntoView({ block: 'end' }));
    const menu = page.getByRole('group', { name: `Actions for ${last}` });
    await button.click();
    await menu.waitFor();
    const [buttonBox, menuBox] = [(await button.boundingBox())!, (await menu.boundingBox())!];
    // No room below the card: the menu opened above its button.
    expect(page.viewportSize()!.height - buttonBox.y - buttonBox.height).toBeLessThan(menuBox.height);
    expect(menuBox.y + menuBox.height).toBeLessThanOrEqual(buttonBox.y);
    await expectWhollyShown(page, menu);
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    expect(await button.evaluate((node) => node === document.activeElement)).toBe(true);
    expect(ada.pageErrors).toEqual([]);
    expect(ada.foreignRequests).toEqual([]);
  });

  it('keeps an open menu by its button as the page scrolls', async () => {
    const { page } = ada;
    await page.evaluate(() => window.scrollTo(0, 0));
    const button = page.getByRole('button', { name: 'Actions for Long 3' });
    const menu = page.getByRole('group', { name: 'Actions for Long 3' });
    await button.click();
    await menu.waitFor();
    /** Whether the menu touches its button's bottom (opened below it) or its top (above it), 4 px apart. */
    const byButton = async () => {
      const [at, drawn] = [(await button.boundingBox())!, (await menu.boundingBox())!];
      return Math.abs(drawn.y - (at.y + at.height + 4)) < 0.5 || Math.abs(drawn.y + drawn.height - (at.y - 4)) < 0.5;
    };
    expect(await byButton()).toBe(true);
    const top = (await button.boundingBox())!.y;
    await page.mouse.wheel(0, 100);
    await expect.poll(async () => (await button.boundingBox())!.y).toBeLessThan(top - 50);
    await expect.poll(byButton).toBe(true);
    await expectWhollyShown(page, menu);
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    expect(ada.foreignRequests).toEqual([]);
  });
});
