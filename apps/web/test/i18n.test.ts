import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import en from '../src/locales/en';
import { accessibilityViolations, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer } from './harness';

/**
 * The app in each of its languages (issue 39): chosen from the browser (`de-AT` speaks German),
 * then from the account, kept on the server so another browser follows it. Each language renders
 * the board with no missing message, no key or {{value}} shown, dates its own way, and passes axe.
 */
describe('the web app in five languages, in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let api: TasklaneClient;
  let token: string;
  let projectId: string;
  const run = Date.now().toString(36);

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    api = createTasklaneClient({ baseUrl: server.baseUrl });
    token = (await api.auth.register({ name: 'Polyglot', email: `polyglot-${run}@example.com`, password: 'password-123' })).access_token;
    projectId = (await api.projects.create({ name: 'Babel' })).id;
    await api.tasks.create({ projectId, title: 'Laying the bricks', dueDate: '2026-03-05T12:00:00.000Z', priority: 'HIGH' });
    await api.tasks.create({ projectId, title: 'Second storey' });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A person whose browser speaks `locale`, noting every message the app could not find. */
  async function personSpeaking(locale: string): Promise<Person & { missing: string[] }> {
    const person = await newPerson(browser, server.baseUrl, undefined, [], locale);
    const missing: string[] = [];
    person.page.on('console', (message) => {
      if (message.text().startsWith('Missing translation')) missing.push(message.text());
    });
    return { ...person, missing };
  }

  // Text a person reads that names a catalogue's key ("board.title") or an unfilled value: a message not found or not filled.
  const KEY_SHOWN = new RegExp(`\\b(${Object.keys(en).join('|')})\\.[a-z][A-Za-z.]*\\b|\\{\\{`);
  const textOf = (page: Page) => page.locator('body').innerText();

  const cases = [
    { browserLocale: 'en-US', lang: 'en', projects: 'Projects', month: 'Mar' },
    { browserLocale: 'de-AT', lang: 'de', projects: 'Projekte', month: 'März' },
    { browserLocale: 'fr-FR', lang: 'fr', projects: 'Projets', month: 'mars' },
    { browserLocale: 'es-MX', lang: 'es', projects: 'Proyectos', month: 'mar' },
    { browserLocale: 'ja-JP', lang: 'ja', projects: 'プロジェクト', month: '3月' },
  ];

  for (const { browserLocale, lang, projects, month } of cases) {
    it(`a ${browserLocale} browser gets the board in ${lang}: every message found, dates its way, axe clean`, async () => {
      const person = await personSpeaking(browserLocale);
      const { page } = person;
      await signInWithToken(person, token, `/projects/${projectId}`);
      await page.locator('.task-card', { hasText: 'Laying the bricks' }).waitFor();
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(lang);
      await page.getByRole('navigation').getByRole('link', { name: projects, exact: true }).waitFor();
      const due = await page.locator('.task-card', { hasText: 'Laying the bricks' }).locator('time').innerText();
      expect(due).toContain(month);
      expect(due).toContain('2026');
      // Open the new-task form and the palette too: more of the app's messages on screen.
      await page.keyboard.press('Control+k');
      await page.getByRole('dialog').waitFor();
      expect(await textOf(page)).not.toMatch(KEY_SHOWN);
      await page.keyboard.press('Escape');
      expect(await textOf(page)).not.toMatch(KEY_SHOWN);
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(person.missing).toEqual([]);
      expect(person.pageErrors).toEqual([]);
      await person.context.close();
    });
  }

  it('the language chosen in the account is kept on the server: this browser speaks it at once, another follows it; "the browser\'s" goes back', async () => {
    const person = await personSpeaking('en-US');
    const { page } = person;
    await signInWithToken(person, token, '/account');
    const language = page.getByRole('region', { name: 'Language' }).getByLabel('Language');
    await language.selectOption({ label: 'Deutsch' });
    await page.getByRole('heading', { name: 'Konto', level: 1 }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    expect((await api.auth.me()).locale).toBe('de');
    await page.reload();
    await page.getByRole('heading', { name: 'Konto', level: 1 }).waitFor();

    // A second browser, English, with nothing kept: it follows the account once it has read it.
    const other = await personSpeaking('en-US');
    await signInWithToken(other, token, `/projects/${projectId}`);
    await other.page.locator('.task-card', { hasText: 'Laying the bricks' }).waitFor();
    await other.page.getByRole('navigation').getByRole('link', { name: 'Projekte', exact: true }).waitFor();
    expect(await other.page.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(other.missing).toEqual([]);
    await other.context.close();

    await page.getByRole('region', { name: 'Sprache' }).getByLabel('Sprache').selectOption({ label: 'Sprache des Browsers' });
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    expect((await api.auth.me()).locale).toBeNull();
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(person.missing).toEqual([]);
    expect(person.pageErrors).toEqual([]);
    await person.context.close();
  });
});
