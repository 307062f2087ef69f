import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestApp, type TestApp, type TestUser } from '../support/harness';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost']);

describe('Swagger UI at /docs, offline in headless Chromium', () => {
  let t: TestApp;
  let user: TestUser;
  let browser: Browser;
  let page: Page;
  let origin: string;
  /** Requests to anything but this machine: refused, and listed so the test can show there were none. */
  const outside: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    user = await registerUser(t, 'Swagger User');
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const context = await browser.newContext();
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (LOCAL_HOSTS.has(url.hostname)) return route.continue();
      outside.push(url.href);
      return route.abort('internetdisconnected');
    });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${origin}/docs`);
    await page.locator('.opblock').first().waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  it('lists every operation of the document, loading nothing from the internet', async () => {
    const document = (await t.request('GET', '/api/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const expected = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    const listed = await page.locator('.opblock-summary').evaluateAll((summaries) =>
      summaries.map(
        (summary) =>
          `${summary.querySelector('.opblock-summary-method')?.textContent} ${summary.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
      ),
    );
    expect(listed.sort()).toEqual(expected.sort());
    expect(await page.locator('.opblock-tag').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('tasks')]));
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('"Try it out" works after pasting a token once into Authorize', async () => {
    await page.locator('.auth-wrapper .authorize').click();
    // Two schemes are offered (a login token, a personal access token): the login token's form.
    const scheme = page.locator('.modal-ux .auth-container').filter({ hasText: 'bearerAuth' });
    await scheme.locator('input').fill(user.token);
    await scheme.locator('.auth-btn-wrapper .authorize').click();
    await page.locator('.modal-ux .btn-done').first().click();

    const operation = page.locator('#operations-auth-authMe');
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toContain('200');
    const body = await operation.locator('.live-responses-table .microlight').first().textContent();
    expect(JSON.parse(body ?? '{}')).toEqual({ id: user.id, name: 'Swagger User', email: user.email, locale: null });
    expect(outside).toEqual([]);
  });
});
