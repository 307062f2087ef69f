import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase, type Database } from '@tasklane/db';
import { buildApp, loadConfig } from '@tasklane/server';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const JWT_SECRET = 'e2e-secret-that-is-long-enough-for-hs256-signing';
const SCREENSHOTS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));
const WEB_DIST = fileURLToPath(new URL('../dist/index.html', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Server {
  baseUrl: string;
  /** The server's own database, for a test that seeds many rows directly (big-board.test.ts). */
  database: Database;
  close(): Promise<void>;
}

/**
 * The real server (buildApp) on a fresh PGlite database, serving apps/web/dist as in production.
 * `env` adds configuration (single sign-on, mail); `port` is where to listen (0: any free one).
 */
export async function startServer(env: Record<string, string> = {}, port = 0): Promise<Server> {
  if (!existsSync(WEB_DIST)) throw new Error(`Build the web app first (${WEB_DIST} is missing): npx vite build`);
  const dataDir = await mkdtemp(join(tmpdir(), 'tasklane-e2e-'));
  const database: Database = await createDatabase({ kind: 'pglite' });
  await database.migrate();
  const config = loadConfig({
    JWT_SECRET,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    BCRYPT_COST: '4',
    AUTH_RATE_LIMIT: '1000',
    HOST: '127.0.0.1',
    ...env,
  });
  const app = await buildApp(config, { database, logger: false });
  // Port 0: the port the system gives, so several runs can share a machine.
  const baseUrl = await app.listen({ port, host: config.host });
  return {
    baseUrl,
    database,
    async close() {
      await app.close();
      await database.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface Person {
  context: BrowserContext;
  page: Page;
  /** Requests to anywhere but the server: the app must load nothing from the internet. */
  foreignRequests: string[];
  /** Uncaught page errors and console errors other than failed API calls the test provoked. */
  pageErrors: string[];
}

/**
 * A person with a browser profile of their own (own localStorage, own token). `alsoAllowed`: other
 * origins the browser may visit (a test's identity provider).
 */
export async function newPerson(
  browser: Browser,
  baseUrl: string,
  viewport = { width: 1280, height: 800 },
  alsoAllowed: string[] = [],
  /** The browser's language (`navigator.languages`, `Accept-Language`); Chromium's own (en-US) when left out. */
  locale?: string,
): Promise<Person> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport, ...(locale ? { locale } : {}) });
  const foreignRequests: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(baseUrl) || url.startsWith('data:') || alsoAllowed.some((origin) => url.startsWith(origin))) return route.continue();
    foreignRequests.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { context, page, foreignRequests, pageErrors };
}

/**
 * A person whose browser keeps a profile on disk (a temporary one, removed by `close`), as an
 * installed app needs: Chromium offers to install nothing from an incognito context, which
 * `newPerson`'s are. The same checks as newPerson's: nothing loaded from elsewhere, page errors kept.
 */
export async function newProfilePerson(baseUrl: string, viewport = { width: 1280, height: 800 }): Promise<Person & { close: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'tasklane-profile-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    baseURL: baseUrl,
    viewport,
  });
  const foreignRequests: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(baseUrl) || url.startsWith('data:')) return route.continue();
    foreignRequests.push(url);
    return route.abort();
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  const close = async () => {
    await context.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { context, page, foreignRequests, pageErrors, close };
}

export async function register(person: Person, name: string, email: string, password = 'password-123') {
  const { page } = person;
  await page.goto('/register');
  await page.getByLabel('Full name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
}

/** The board column of a status, found by its heading as a person would. */
export const column = (page: Page, label: string) => page.getByRole('region', { name: new RegExp(`^${label}\\b`) });
export const card = (page: Page | Locator, title: string) => page.locator('.task-card', { hasText: title });

/** The axe-core violations of the page as it is now (WCAG 2.1 A and AA rules). */
export async function accessibilityViolations(page: Page): Promise<{ id: string; impact: string | null; help: string; nodes: number }[]> {
  // Evaluated through the browser's debugging protocol, which the app's content security policy does not govern.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const results = await (window as unknown as { axe: { run(options: object): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: unknown[] }[] }> } }).axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return results.violations.map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, nodes: violation.nodes.length }));
  });
}

/**
 * A screenshot of the page, saved as docs/screenshots/`name` only when UPDATE_SCREENSHOTS=1 (to
 * refresh the docs' images): otherwise taken and dropped, so a test run leaves the tracked files as they are.
 */
export const screenshot = (page: Page, name: string, options: { fullPage?: boolean } = {}) =>
  page.screenshot({ ...options, ...(process.env.UPDATE_SCREENSHOTS === '1' ? { path: join(SCREENSHOTS, name) } : {}) });

/** Signs a person in with a token set up through the SDK, and opens `path` (their localStorage holds it, as after a login). */
export async function signInWithToken(person: Person, token: string, path: string) {
  await person.page.goto('/login');
  await person.page.evaluate((value) => localStorage.setItem('tasklane.token', value), token);
  await person.page.goto(path);
}

/** Opens a task's dialog from its card on the board, once its fields have loaded. */
export async function openTask(page: Page, title: string): Promise<Locator> {
  await card(page, title).getByRole('link', { name: title }).click();
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.getByRole('form', { name: 'Task fields' }).waitFor();
  return dialog;
}
