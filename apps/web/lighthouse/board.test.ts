import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTasklaneClient } from '@tasklane/sdk';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Server } from '../test/harness';

/**
 * Lighthouse (performance, accessibility and best practices) on a board of 40 tasks, in Debian's Chromium, with
 * Lighthouse's default mobile profile (simulated slow 4G and a 4× slower CPU). Run on demand:
 * `npm run lighthouse` in apps/web (it writes lighthouse/report.json; the figures go in docs/web.md).
 */
describe('Lighthouse on the board', () => {
  let server: Server;
  let profile: string;
  let chrome: ReturnType<typeof spawn>;
  let port: number;
  let boardUrl: string;
  let token: string;

  beforeAll(async () => {
    server = await startServer();
    const api = createTasklaneClient({ baseUrl: server.baseUrl });
    const session = await api.auth.register({ name: 'Ada Lovelace', email: 'ada@example.com', password: 'password-123' });
    token = session.access_token;
    const project = await api.projects.create({ name: 'Launch', description: 'Everything for the launch' });
    const statuses = ['TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELLED'] as const;
    const priorities = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const;
    for (let index = 0; index < 40; index += 1) {
      await api.tasks.create({
        projectId: project.id,
        title: `Task ${index + 1}: ${['Write the post', 'Record the demo', 'Fix the signup form', 'Review the budget'][index % 4]}`,
        status: statuses[index % 5],
        priority: priorities[index % 4],
        ...(index % 3 === 0 ? { assigneeId: session.user.id, dueDate: new Date(Date.now() + (index - 10) * 86_400_000).toISOString() } : {}),
      });
    }
    boardUrl = `${server.baseUrl}/projects/${project.id}`;

    // Chromium with a debugging port Lighthouse can drive; the port is read from the profile.
    profile = await mkdtemp(join(tmpdir(), 'tasklane-lighthouse-'));
    // Its temporary files in the profile too (TMPDIR), so that removing the profile leaves /tmp as it was.
    chrome = spawn(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', ['--headless=new', '--no-sandbox', '--disable-gpu', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], {
      stdio: 'ignore',
      env: { ...process.env, TMPDIR: profile },
    });
    for (;;) {
      const file = await readFile(join(profile, 'DevToolsActivePort'), 'utf8').catch(() => '');
      if (file) {
        port = Number(file.split('\n')[0]);
        break;
      }
      await new Promise((done) => setTimeout(done, 100));
    }
    // Signed in: the token where the app looks for it (Lighthouse is told to keep the storage).
    const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
    const page = await browser.contexts()[0]!.newPage();
    await page.goto(`${server.baseUrl}/login`);
    await page.evaluate((value) => localStorage.setItem('tasklane.token', value), token);
    await page.close();
    await browser.close();
  });
  afterAll(async () => {
    // Gone before its profile is removed: a Chromium still exiting writes into it again.
    if (chrome && chrome.exitCode === null) await new Promise((exited) => chrome.once('exit', exited).kill());
    await server?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it('scores performance ≥ 95, accessibility ≥ 95 and best practices 100 on the board', async () => {
    const result = await lighthouse(boardUrl, {
      port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility', 'best-practices'],
      disableStorageReset: true,
    });
    const report = result!.lhr;
    await writeFile(new URL('report.json', import.meta.url), JSON.stringify(report, null, 1));
    const scores = Object.fromEntries(Object.entries(report.categories).map(([name, category]) => [name, Math.round((category.score ?? 0) * 100)]));
    const metrics = Object.fromEntries(
      ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index'].map((id) => [id, report.audits[id]?.displayValue]),
    );
    console.log('Lighthouse', report.lighthouseVersion, report.configSettings.formFactor, scores, metrics);
    expect(report.finalDisplayedUrl).toBe(boardUrl);
    expect(scores.performance).toBeGreaterThanOrEqual(95);
    expect(scores.accessibility).toBeGreaterThanOrEqual(95);
    // Best practices: what fails it (a console error, a deprecated API, a missing CSP…) by name.
    const failing = report.categories['best-practices']!.auditRefs.filter((ref) => ref.weight > 0 && (report.audits[ref.id]?.score ?? 1) < 1).map((ref) => ref.id);
    expect(failing).toEqual([]);
    expect(scores['best-practices']).toBe(100);
  });
});
