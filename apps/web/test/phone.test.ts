import { createTasklaneClient } from '@tasklane/sdk';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, launchChromium, openTask, type Server, startServer } from './harness';

/**
 * The app on a phone (issue 39): a 360 px touch screen, where every control a finger taps is at
 * least 44 px each way (links inside running text excepted) and nothing scrolls sideways.
 */
describe('the app on a phone in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let phone: BrowserContext;
  let page: Page;
  let projectId = '';
  const run = Date.now().toString(36);

  /** The visible controls smaller than a finger: what they are, and their size. */
  const smallTargets = (where: Page) =>
    where.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('button, a.button, label.button, select, input, nav a, label:has(> input[type=checkbox])')]
        .filter((element) => !(element instanceof HTMLInputElement && ['checkbox', 'radio', 'hidden', 'color', 'file'].includes(element.type)))
        .map((element) => ({ element, box: element.getBoundingClientRect() }))
        // Shown (a visually hidden element is 1 px until focused) and not inside a closed part of the page.
        .filter(({ box }) => box.width > 1 && box.height > 1)
        .filter(({ element, box }) => box.height < 43.5 || (element.matches('button, a.button, label.button') && box.width < 43.5))
        .map(({ element, box }) => `${element.tagName.toLowerCase()} "${(element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40)}" ${Math.round(box.width)}×${Math.round(box.height)}`),
    );
  const sideways = (where: Page) => where.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    const auth = await createTasklaneClient({ baseUrl: server.baseUrl }).auth.register({ name: 'Ada Lovelace', email: `ada-${run}@example.com`, password: 'password-123' });
    const api = createTasklaneClient({ baseUrl: server.baseUrl, token: auth.access_token });
    projectId = (await api.projects.create({ name: 'Pocket' })).id;
    await api.tasks.create({ projectId, title: 'Tap me', description: 'On the bus' });
    phone = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true });
    page = await phone.newPage();
    await page.goto('/login');
    await page.evaluate((token) => localStorage.setItem('tasklane.token', token), auth.access_token);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('is a touch screen to the app (a coarse pointer)', async () => {
    await page.goto('/');
    expect(await page.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
  });

  it('gives every control of the projects list, the board and a task 44 px, with nothing sideways', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    // The heading comes before the list: measure once the project's own buttons are there.
    await page.locator('.project', { hasText: 'Pocket' }).getByRole('button').first().waitFor();
    expect(await smallTargets(page)).toEqual([]);
    expect(await sideways(page)).toBeLessThanOrEqual(0);

    await page.goto(`/projects/${projectId}`);
    await card(page, 'Tap me').waitFor();
    expect(await smallTargets(page)).toEqual([]);
    expect(await sideways(page)).toBeLessThanOrEqual(0);

    await openTask(page, 'Tap me');
    expect(await smallTargets(page)).toEqual([]);
  });

  it('gives the account page 44 px controls too', async () => {
    await page.goto('/account');
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    // The heading comes before the feed and the token form's projects: measure once they are there.
    await page.getByRole('button', { name: 'Make a calendar address' }).waitFor();
    await page.getByLabel('Pocket').waitFor();
    expect(await smallTargets(page)).toEqual([]);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
  });
});
