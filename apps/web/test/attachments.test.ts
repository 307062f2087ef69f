import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, card, column, launchChromium, newPerson, openTask, type Person, screenshot, type Server, signInWithToken, startServer } from './harness';

/**
 * Files on a task as people use them: dropped on the task dialog (with progress), previewed in the
 * gallery, downloaded through the signed link, pasted into a comment, deleted after a confirmation by
 * their uploader or an admin; an editor may not delete another's file, a viewer uploads nothing.
 * The project is set up through the SDK; every check is on what Chromium shows.
 */
describe('attachments in Chromium', () => {
  let server: Server;
  let browser: Browser;
  const people: Record<'ada' | 'grace' | 'victor', Person> = {} as never;
  const tokens: Record<'ada' | 'grace' | 'victor', string> = {} as never;
  let api: TasklaneClient;
  let boardPath: string;
  const run = Date.now().toString(36);
  const TASK = 'Draw the engine';

  beforeAll(async () => {
    // A small limit, so a refused upload is quick to provoke.
    server = await startServer({ ATTACHMENT_MAX_BYTES: '200000' });
    browser = await launchChromium();
    for (const [who, name] of [
      ['ada', 'Ada Lovelace'],
      ['grace', 'Grace Hopper'],
      ['victor', 'Victor Viewer'],
    ] as const) {
      const client = createTasklaneClient({ baseUrl: server.baseUrl });
      tokens[who] = (await client.auth.register({ name, email: `${who}-${run}@example.com`, password: 'password-123' })).access_token;
      if (who === 'ada') api = client;
    }
    const project = await api.projects.create({ name: `Engine ${run}` });
    await api.members.invite({ id: project.id, email: `grace-${run}@example.com`, role: 'EDITOR' });
    await api.members.invite({ id: project.id, email: `victor-${run}@example.com`, role: 'VIEWER' });
    await api.tasks.create({ projectId: project.id, title: TASK });
    boardPath = `/projects/${project.id}`;
    for (const who of ['ada', 'grace', 'victor'] as const) {
      people[who] = await newPerson(browser, server.baseUrl);
      await signInWithToken(people[who], tokens[who], boardPath);
      await column(people[who].page, 'To do').waitFor();
    }
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Drops files made in the page (a canvas drawn as PNG, a text file) on `target`, as a file manager's drag does. */
  async function dropFiles(page: Page, target: Locator, files: { name: string; kind: 'png' | 'text'; text?: string }[]) {
    const handle = await target.elementHandle();
    await page.evaluate(
      async ({ element, files: wanted }) => {
        const transfer = new DataTransfer();
        for (const file of wanted) {
          if (file.kind === 'png') {
            const canvas = document.createElement('canvas');
            canvas.width = 640;
            canvas.height = 480;
            const context = canvas.getContext('2d')!;
            context.fillStyle = '#0b57d0';
            context.fillRect(0, 0, 640, 480);
            const blob = await new Promise<Blob>((resolve) => canvas.toBlob((made) => resolve(made!), 'image/png'));
            transfer.items.add(new File([blob], file.name, { type: 'image/png' }));
          } else transfer.items.add(new File([file.text ?? ''], file.name, { type: 'text/plain' }));
        }
        for (const type of ['dragenter', 'dragover', 'drop']) element!.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
      },
      { element: handle, files },
    );
  }

  /** Watches the page for a progress bar appearing (an upload's, shown from its first byte). */
  const watchProgress = (page: Page) =>
    page.evaluate(() => {
      const seen = window as unknown as { progressSeen: string[] };
      seen.progressSeen = [];
      new MutationObserver(() => {
        for (const bar of document.querySelectorAll('progress')) if (!seen.progressSeen.includes(bar.getAttribute('aria-label')!)) seen.progressSeen.push(bar.getAttribute('aria-label')!);
      }).observe(document.body, { childList: true, subtree: true });
    });

  const gallery = (dialog: Locator) => dialog.getByRole('region', { name: /^Attachments/ }).getByRole('list', { name: 'Files' });
  const thumbnailLoaded = (tile: Locator) => tile.locator('img.thumbnail').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0);

  it('drops files on the task dialog: progress while they go up, then a gallery with a preview, name and size; a refusal is shown', async () => {
    const { page } = people.ada;
    const dialog = await openTask(page, TASK);
    await dialog.getByText('No files yet.').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    await watchProgress(page);
    await dropFiles(page, dialog.getByRole('heading', { name: TASK }), [
      { name: 'engine.png', kind: 'png' },
      { name: 'notes.txt', kind: 'text', text: 'The engine weaves algebraic patterns.' },
    ]);
    const png = gallery(dialog).getByRole('listitem').filter({ hasText: 'engine.png' });
    const text = gallery(dialog).getByRole('listitem').filter({ hasText: 'notes.txt' });
    await png.waitFor();
    await text.waitFor();
    expect(await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen)).toEqual(['Uploading engine.png', 'Uploading notes.txt']);
    await expect.poll(() => thumbnailLoaded(png)).toBe(true);
    expect(await text.locator('.file-type').textContent()).toBe('TXT');
    expect(await text.textContent()).toContain('37 bytes');
    // The history says which file was attached.
    await dialog.getByRole('region', { name: 'History' }).getByText('attached “engine.png”').waitFor();

    // The name links to the signed download, which serves the bytes without the token.
    const href = (await text.getByRole('link', { name: 'notes.txt' }).getAttribute('href'))!;
    expect(href).toMatch(/^\/api\/v1\/attachments\/[0-9a-f-]{36}\/content\?/);
    expect(await page.evaluate((url) => fetch(url).then((response) => response.text()), href)).toBe('The engine weaves algebraic patterns.');
    expect(await accessibilityViolations(page)).toEqual([]);

    // A file over ATTACHMENT_MAX_BYTES: the server's refusal in place of its progress bar, until dismissed.
    await dropFiles(page, dialog, [{ name: 'big.txt', kind: 'text', text: 'x'.repeat(300_000) }]);
    const refusal = dialog.getByRole('list', { name: 'Uploads' }).getByRole('alert');
    await expect.poll(() => refusal.textContent()).toMatch(/^big\.txt: (?!The server could not be reached)(?!The upload could not reach)/);
    await dialog.getByRole('list', { name: 'Uploads' }).getByRole('button', { name: 'Dismiss' }).click();
    await refusal.waitFor({ state: 'detached' });
    expect(await gallery(dialog).getByRole('listitem').filter({ hasText: 'big.txt' }).count()).toBe(0);
  });

  it('pastes an image into a comment box: it is uploaded, sent with the comment and shown under it', async () => {
    const { page } = people.ada;
    const dialog = page.getByRole('dialog', { name: TASK });
    const box = dialog.getByLabel('Add a comment');
    await box.fill('The punched cards, as drawn');
    const handle = await box.elementHandle();
    await page.evaluate(async (element) => {
      const canvas = document.createElement('canvas');
      canvas.width = 300;
      canvas.height = 200;
      canvas.getContext('2d')!.fillRect(0, 0, 300, 200);
      const blob = await new Promise<Blob>((resolve) => canvas.toBlob((made) => resolve(made!), 'image/png'));
      const transfer = new DataTransfer();
      transfer.items.add(new File([blob], 'image.png', { type: 'image/png' }));
      element!.dispatchEvent(new ClipboardEvent('paste', { bubbles: true, cancelable: true, clipboardData: transfer }));
    }, handle);
    const pending = dialog.getByRole('list', { name: 'Files of this comment' });
    await pending.getByRole("listitem").filter({ hasText: /^Pasted image .*\.png/ }).waitFor();
    await dialog.getByRole('button', { name: 'Comment', exact: true }).click();
    const comment = dialog.locator('.comment-list li', { hasText: 'The punched cards, as drawn' });
    const files = comment.getByRole('list', { name: "Files of Ada Lovelace's comment" });
    const tile = files.getByRole('listitem');
    await tile.waitFor();
    await expect.poll(() => thumbnailLoaded(tile)).toBe(true);
    expect(await pending.count()).toBe(0);
    await dialog.getByRole('heading', { name: /^Attachments/ }).scrollIntoViewIfNeeded();
    await screenshot(page, 'attachments.png');
    // The task's gallery holds the comment's file too.
    await expect.poll(() => gallery(dialog).getByRole('listitem').count()).toBe(3);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it("lets an editor upload and delete her own file but not another's; a viewer sees the files and no upload or delete control", async () => {
    const grace = await openTask(people.grace.page, TASK);
    await gallery(grace).getByRole('listitem').filter({ hasText: 'engine.png' }).waitFor();
    await grace.getByText('Attach files').waitFor();
    expect(await gallery(grace).getByRole('button', { name: /^Delete / }).count()).toBe(0);
    // Her own file she may delete.
    await dropFiles(people.grace.page, grace, [{ name: 'grace.txt', kind: 'text', text: 'Compilers first.' }]);
    await gallery(grace).getByRole('button', { name: 'Delete grace.txt' }).click();
    await people.grace.page.getByRole('alertdialog').getByRole('button', { name: 'Delete file' }).click();
    await expect.poll(() => gallery(grace).getByRole('listitem').filter({ hasText: 'grace.txt' }).count()).toBe(0);

    const victor = await openTask(people.victor.page, TASK);
    const png = gallery(victor).getByRole('listitem').filter({ hasText: 'engine.png' });
    await png.waitFor();
    await expect.poll(() => thumbnailLoaded(png)).toBe(true);
    expect(await victor.getByText('Attach files').count()).toBe(0);
    expect(await victor.getByRole('button', { name: /^Delete / }).count()).toBe(0);
    expect(await victor.getByRole('button', { name: 'Delete task' }).count()).toBe(0);
    expect(await victor.getByLabel('Add a comment').count()).toBe(0);
  });

  it('deletes a file only after confirming in a dialog; Cancel keeps it', async () => {
    const { page } = people.ada;
    const dialog = page.getByRole('dialog', { name: TASK });
    await dialog.getByRole('button', { name: 'Delete notes.txt' }).click();
    const confirm = page.getByRole('alertdialog', { name: /Delete “notes\.txt”\?/ });
    await confirm.waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await gallery(dialog).getByRole('listitem').filter({ hasText: 'notes.txt' }).count()).toBe(1);

    await dialog.getByRole('button', { name: 'Delete notes.txt' }).click();
    await confirm.getByRole('button', { name: 'Delete file' }).click();
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(() => gallery(dialog).getByRole('listitem').filter({ hasText: 'notes.txt' }).count()).toBe(0);
    // The editor's open dialog follows through the live stream.
    await expect.poll(() => gallery(people.grace.page.getByRole('dialog', { name: TASK })).getByRole('listitem').filter({ hasText: 'notes.txt' }).count()).toBe(0);
    // The card counts the task's files (two images left), kept current by the live stream.
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => card(page, TASK).locator('.attachment-count').textContent()).toBe('2 files');
    for (const who of ['ada', 'grace', 'victor'] as const) expect(people[who].pageErrors).toEqual([]);
  });
});
