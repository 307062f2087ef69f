import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Task } from '@tasklane/schemas';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer } from './harness';

/**
 * Markdown in task descriptions and comments (issue 39), as a member sees text someone else wrote:
 * tables and task lists render; scripts, event handlers and `javascript:`/`data:` links written in
 * any form become no element and no link, and the flag each would set stays unset.
 */
const HOSTILE = [
  '<script>window.__pwned = "script"</script>',
  '<img src="x" onerror="window.__pwned = \'onerror\'">',
  '[run me](javascript:window.__pwned=\'js\')',
  '[open me](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0nZGF0YSc8L3NjcmlwdD4=)',
  '![picture](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9IndpbmRvdy5fX3B3bmVkPSdzdmcnIi8+)',
  '<a href=javascript:window.__pwned=\'raw\'>raw link</a>',
  '<javascript:window.__pwned=\'autolink\'>',
].join('\n\n');

const RICH = [
  '| Step | Owner |',
  '| ---- | ----- |',
  '| Draft | Ada |',
  '| Review | Grace |',
  '',
  '- [x] Outline written',
  '- [ ] Figures drawn',
  '',
  'Ask @Grace Hopper about MD-1, ~~not~~ see https://example.com/spec.',
].join('\n');

describe('Markdown in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let ada: Person;
  const run = Date.now().toString(36);
  const api: Record<'ada' | 'grace', TasklaneClient> = {} as never;
  const tokens: Record<string, string> = {};
  let projectId: string;
  let first: Task;
  let notes: Task;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    for (const [who, name] of [
      ['ada', 'Ada Lovelace'],
      ['grace', 'Grace Hopper'],
    ] as const) {
      const client = createTasklaneClient({ baseUrl: server.baseUrl });
      const session = await client.auth.register({ name, email: `${who}-${run}@example.com`, password: 'password-123' });
      api[who] = client;
      tokens[who] = session.access_token;
    }
    projectId = (await api.ada.projects.create({ name: 'Manuscript', key: 'MD' })).id;
    await api.ada.members.invite({ id: projectId, email: `grace-${run}@example.com`, role: 'EDITOR' });
    first = await api.ada.tasks.create({ projectId, title: 'Outline the notes' });
    // Written by the editor, read by the owner: the text of someone else.
    notes = await api.grace.tasks.create({ projectId, title: 'Write the notes', description: `${HOSTILE}\n\n${RICH}` });
    await api.grace.comments.create({ id: notes.id, text: `${HOSTILE}\n\nDone: MD-1 and @Ada Lovelace` });
    ada = await newPerson(browser, server.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const pwned = (page: Page) => page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned);

  /** Nothing of the hostile text became an element or a link; its words are still there as text. */
  async function expectInert(rendered: Locator) {
    expect(await rendered.locator('script, iframe, object, embed, svg').count()).toBe(0);
    expect(await rendered.locator('img').count()).toBe(0);
    expect(await rendered.locator('[onerror], [onload], [onclick]').count()).toBe(0);
    const hrefs = await rendered.locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
    expect(hrefs.filter((href) => /^\s*(javascript|data|vbscript):/i.test(href))).toEqual([]);
    for (const name of ['run me', 'open me', 'raw link']) expect(await rendered.getByRole('link', { name }).count()).toBe(0);
    const text = (await rendered.textContent()) ?? '';
    expect(text).toContain('<script>window.__pwned = "script"</script>');
    expect(text).toContain('[run me](javascript:');
  }

  it('renders the description as inert Markdown in the preview: a table, a task list, mentions and task keys', async () => {
    const { page } = ada;
    await signInWithToken(ada, tokens.ada!, `/projects/${projectId}/tasks/${notes.id}`);
    const dialog = page.getByRole('dialog', { name: 'Write the notes' });
    const preview = dialog.getByRole('region', { name: 'Preview' });
    await preview.getByRole('table').waitFor();
    await expectInert(preview);

    // The table, with its header.
    expect(await preview.getByRole('columnheader').allTextContents()).toEqual(['Step', 'Owner']);
    expect(await preview.getByRole('row').count()).toBe(3);
    // The task list: read-only checkboxes named by their items.
    expect(await preview.getByRole('checkbox', { name: 'Outline written' }).isChecked()).toBe(true);
    expect(await preview.getByRole('checkbox', { name: 'Figures drawn' }).isChecked()).toBe(false);
    expect(await preview.locator('s, del').textContent()).toBe('not');
    // A member's mention, a task key and a bare address are links; the address leaves the app apart.
    expect(await preview.getByRole('link', { name: '@Grace Hopper' }).getAttribute('href')).toBe(`/projects/${projectId}/members`);
    expect(await preview.getByRole('link', { name: 'MD-1' }).getAttribute('href')).toBe('/tasks/MD-1');
    const external = preview.getByRole('link', { name: 'https://example.com/spec' });
    expect(await external.getAttribute('rel')).toContain('noopener');

    // The comment with the same text is as inert.
    const comment = dialog.locator('.comment-list > li', { hasText: 'Done:' });
    await comment.getByRole('link', { name: '@Ada Lovelace' }).waitFor();
    await expectInert(comment.locator('.markdown'));
    expect(await comment.getByRole('link', { name: 'MD-1' }).getAttribute('href')).toBe('/tasks/MD-1');
    expect(await pwned(page)).toBeUndefined();
    expect(await accessibilityViolations(page)).toEqual([]);

    // Typing in the description shows the preview of what is typed.
    const description = dialog.getByLabel('Description');
    await description.fill('**bold** and <b onmouseover="x()">tag</b>');
    await expect.poll(() => preview.locator('strong').textContent()).toBe('bold');
    expect(await preview.locator('b').count()).toBe(0);
    expect(await pwned(page)).toBeUndefined();
    expect(ada.pageErrors).toEqual([]);
  });

  it('opens a task by its key from a link: /tasks/MD-1 becomes the task on its board', async () => {
    const { page } = ada;
    await page.goto(`/projects/${projectId}/tasks/${notes.id}`);
    const dialog = page.getByRole('dialog', { name: 'Write the notes' });
    await dialog.getByRole('region', { name: 'Preview' }).getByRole('link', { name: 'MD-1' }).click();
    await page.getByRole('dialog', { name: 'Outline the notes' }).getByRole('form', { name: 'Task fields' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/projects/${projectId}/tasks/${first.id}`);

    // Any case works, as the API's key lookup does; an unknown key says so.
    await page.goto('/tasks/md-1');
    await page.getByRole('dialog', { name: 'Outline the notes' }).waitFor();
    await page.goto('/tasks/MD-999');
    await page.getByRole('alert').filter({ hasText: 'No task MD-999' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await pwned(page)).toBeUndefined();
    expect(ada.pageErrors).toEqual([]);
  });
});
