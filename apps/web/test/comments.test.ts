import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Task } from '@tasklane/schemas';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer } from './harness';

/**
 * Comments edited and deleted in the task dialog (issue 39): the author edits in place (If-Match of
 * the version the edit started from; a change meanwhile is a 412 that shows the newer text and
 * offers to keep one's own) and deletes their own after a confirmation; the owner deletes anyone's.
 */
describe('comment edit and delete in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let grace: Person;
  let ada: Person;
  const run = Date.now().toString(36);
  const api: Record<'ada' | 'grace', TasklaneClient> = {} as never;
  const tokens: Record<string, string> = {};
  let projectId: string;
  let task: Task;
  let taskUrl: string;

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
    projectId = (await api.ada.projects.create({ name: 'Compiler' })).id;
    await api.ada.members.invite({ id: projectId, email: `grace-${run}@example.com`, role: 'EDITOR' });
    task = await api.ada.tasks.create({ projectId, title: 'Parse the input' });
    taskUrl = `/projects/${projectId}/tasks/${task.id}`;
    await api.ada.comments.create({ id: task.id, text: 'The grammar is in the wiki.' });
    grace = await newPerson(browser, server.baseUrl);
    ada = await newPerson(browser, server.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const commentsOf = (person: Person) => person.page.getByRole('dialog', { name: 'Parse the input' }).getByRole('region', { name: 'Comments' });
  const serverTexts = async () => (await api.ada.comments.list({ id: task.id })).items.map((comment) => comment.text);

  it('lets the author edit their comment in place, as Markdown; others’ comments offer no edit', async () => {
    const { page } = grace;
    await signInWithToken(grace, tokens.grace!, taskUrl);
    const comments = commentsOf(grace);
    await comments.getByLabel('Add a comment').fill('Lexer first, then the *parser*.');
    await comments.getByRole('button', { name: 'Comment', exact: true }).click();
    const mine = comments.locator('.comment-list > li', { hasText: 'Lexer first' });
    await mine.locator('em', { hasText: 'parser' }).waitFor();

    const adas = comments.locator('.comment-list > li', { hasText: 'The grammar is in the wiki.' });
    expect(await adas.getByRole('button').count()).toBe(0);

    await mine.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = comments.getByRole('form', { name: "Edit Grace Hopper's comment" });
    expect(await form.getByLabel('Comment text').inputValue()).toBe('Lexer first, then the *parser*.');
    expect(await accessibilityViolations(page)).toEqual([]);
    await form.getByLabel('Comment text').fill('Lexer first, then the **parser**.');
    await form.getByRole('button', { name: 'Save edit' }).click();
    await mine.locator('strong', { hasText: 'parser' }).waitFor();
    await mine.getByText('edited').waitFor();
    expect(await serverTexts()).toEqual(['The grammar is in the wiki.', 'Lexer first, then the **parser**.']);
  });

  it('refuses an edit when the comment changed since it began (412), shows the newer text and keeps mine on request', async () => {
    const comments = commentsOf(grace);
    const stored = (await api.grace.comments.list({ id: task.id })).items.find((comment) => comment.text.startsWith('Lexer'))!;
    // Found by its id: its text changes on the way.
    const mine = comments.locator(`.comment-list > li[data-comment-id="${stored.id}"]`);
    await mine.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = comments.getByRole('form', { name: "Edit Grace Hopper's comment" });
    await form.getByLabel('Comment text').fill('Lexer, parser, then the checker.');

    // Meanwhile the same person changes it elsewhere (another tab, the API).
    await api.grace.comments.update({ id: task.id, commentId: stored.id, text: 'Lexer done; parser next.' });

    await form.getByRole('button', { name: 'Save edit' }).click();
    const notice = form.getByRole('alert').filter({ hasText: 'changed since you started editing' });
    await notice.waitFor();
    await notice.getByRole('region', { name: 'Newer text' }).getByText('Lexer done; parser next.').waitFor();
    // What I typed is still in the box.
    expect(await form.getByLabel('Comment text').inputValue()).toBe('Lexer, parser, then the checker.');
    expect(await serverTexts()).toContain('Lexer done; parser next.');
    expect(await accessibilityViolations(grace.page)).toEqual([]);

    await notice.getByRole('button', { name: 'Keep my text over it' }).click();
    await mine.getByText('Lexer, parser, then the checker.').waitFor();
    expect(await form.count()).toBe(0);
    expect(await serverTexts()).toEqual(['The grammar is in the wiki.', 'Lexer, parser, then the checker.']);
    expect(grace.pageErrors).toEqual([]);
  });

  it('lets the author delete their own comment after a confirmation', async () => {
    const comments = commentsOf(grace);
    await comments.getByLabel('Add a comment').fill('A typo, to delete.');
    await comments.getByRole('button', { name: 'Comment', exact: true }).click();
    const typo = comments.locator('.comment-list > li', { hasText: 'A typo, to delete.' });
    await typo.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = typo.getByRole('group', { name: 'Delete your comment?' });
    // Cancel keeps it.
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await serverTexts()).toContain('A typo, to delete.');
    await typo.getByRole('button', { name: 'Delete', exact: true }).click();
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => typo.count()).toBe(0);
    expect(await serverTexts()).toEqual(['The grammar is in the wiki.', 'Lexer, parser, then the checker.']);
    expect(grace.pageErrors).toEqual([]);
  });

  it("lets the owner delete another member's comment (asking first) but not edit it", async () => {
    const { page } = ada;
    await signInWithToken(ada, tokens.ada!, taskUrl);
    const comments = commentsOf(ada);
    const graces = comments.locator('.comment-list > li', { hasText: 'Lexer, parser, then the checker.' });
    await graces.waitFor();
    expect(await graces.getByRole('button', { name: 'Edit', exact: true }).count()).toBe(0);
    await graces.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = graces.getByRole('group', { name: "Delete Grace Hopper's comment?" });
    expect(await accessibilityViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => graces.count()).toBe(0);
    expect(await serverTexts()).toEqual(['The grammar is in the wiki.']);
    // The deletion reaches the author's open dialog through the live stream.
    await expect.poll(() => commentsOf(grace).locator('.comment-list > li', { hasText: 'Lexer, parser' }).count()).toBe(0);
    expect(ada.pageErrors).toEqual([]);
  });
});
