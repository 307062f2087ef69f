import { SignJWT } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card, column, JWT_SECRET, launchChromium, newPerson, type Person, register, screenshot, type Server, startServer } from './harness';

/**
 * One team in three browsers: the owner sets up a project, an editor works the board, a viewer
 * watches. Each step is what a person does: click, type, drag; nothing is set up behind the UI.
 */
describe('the Kanban board in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let owner: Person;
  let editor: Person;
  let viewer: Person;
  let boardUrl: string;
  const run = Date.now().toString(36);
  const emails = { owner: `ada-${run}@example.com`, editor: `grace-${run}@example.com`, viewer: `alan-${run}@example.com` };

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    owner = await newPerson(browser, server.baseUrl);
    editor = await newPerson(browser, server.baseUrl);
    viewer = await newPerson(browser, server.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lets everyone register; the owner creates a project and sees their role', async () => {
    await register(owner, 'Ada Lovelace', emails.owner);
    await register(editor, 'Grace Hopper', emails.editor);
    await register(viewer, 'Alan Turing', emails.viewer);

    const { page } = owner;
    // A new person's empty list says what is missing and what to do about it.
    const empty = page.locator('.empty-state');
    await empty.getByText('No projects yet', { exact: true }).waitFor();
    expect(await empty.textContent()).toContain('Create your first project above');
    await page.getByLabel('Project name').fill('Launch');
    await page.getByLabel('Description').fill('Everything for the launch');
    await page.getByRole('button', { name: 'Create project' }).click();
    // A new project opens on its board at once.
    await page.getByRole('heading', { name: 'Launch', level: 1 }).waitFor();
    boardUrl = new URL(page.url()).pathname;
    expect(boardUrl).toMatch(/^\/projects\/[0-9a-f-]{36}$/);
    await page.getByRole('link', { name: 'Projects' }).click();
    const item = page.locator('.project', { hasText: 'Launch' });
    await expect.poll(() => item.locator('.role-badge').textContent()).toBe('Owner');
    await screenshot(page, 'projects.png');
    await item.getByRole('link', { name: 'Launch' }).click();
    await page.getByRole('heading', { name: 'Launch', level: 1 }).waitFor();
  });

  it('invites an editor and a viewer; a refusal shows the server message', async () => {
    const { page } = owner;
    await page.getByRole('link', { name: 'Members' }).click();
    const invite = page.getByRole('form', { name: 'Invite a member' });
    await invite.getByLabel('Email').fill(emails.owner);
    await invite.getByRole('button', { name: 'Invite' }).click();
    await expect.poll(() => invite.getByRole('alert').textContent()).toBe('This user is already a member of the project');

    for (const [email, role] of [
      [emails.editor, 'EDITOR'],
      [emails.viewer, 'VIEWER'],
    ] as const) {
      await invite.getByLabel('Email').fill(email);
      await invite.getByLabel('Role').selectOption(role);
      await invite.getByRole('button', { name: 'Invite' }).click();
      await expect.poll(() => invite.getByLabel('Email').inputValue()).toBe('');
    }
    const rows = page.locator('table.members tbody tr');
    await expect.poll(() => rows.allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('Grace Hopper'), expect.stringContaining('Alan Turing')]),
    );
    await expect.poll(() => page.getByLabel('Role of Grace Hopper').inputValue()).toBe('EDITOR');
    await screenshot(page, 'members.png', { fullPage: true });
  });

  it("creates tasks in columns from each column's New task button", async () => {
    const { page } = owner;
    await page.goto(boardUrl);
    for (const [title, columnLabel] of [
      ['Write the launch post', 'To do'],
      ['Record the demo', 'To do'],
      ['Fix the signup form', 'In progress'],
    ] as const) {
      const target = column(page, columnLabel);
      await target.getByRole('button', { name: `New task in ${columnLabel}` }).click();
      const form = page.getByRole('dialog', { name: 'New task' });
      expect(await form.getByLabel('Column').inputValue()).toBe(columnLabel === 'To do' ? 'TODO' : 'IN_PROGRESS');
      await form.getByLabel('Title').fill(title);
      await form.getByRole('button', { name: 'Create task' }).click();
      await card(target, title).waitFor();
    }
    expect(await column(page, 'To do').locator('.task-card').count()).toBe(2);
  });

  it("narrows the board by the search box: a title's words, or a task's whole key in any case", async () => {
    const { page } = owner;
    await page.goto(boardUrl);
    const cards = page.locator('.task-card');
    await expect.poll(() => cards.count()).toBe(3);
    const key = (await card(page, 'Fix the signup form').locator('.task-key').textContent())!;
    const search = page.getByRole('searchbox');
    await search.fill('launch post');
    await expect.poll(() => cards.locator('.task-title').allTextContents()).toEqual(['Write the launch post']);
    await search.fill(key.toLowerCase());
    await expect.poll(() => cards.locator('.task-title').allTextContents()).toEqual(['Fix the signup form']);
    // Esc clears the search: every card again.
    await search.press('Escape');
    await expect.poll(() => cards.count()).toBe(3);
  });

  it("the editor drags a card to Done, and the owner's open board shows it move without a reload", async () => {
    await owner.page.getByText('Live', { exact: true }).waitFor();
    const ownerLoads: string[] = [];
    owner.page.on('load', () => ownerLoads.push(owner.page.url()));

    const { page } = editor;
    await page.goto(boardUrl);
    const source = card(page, 'Write the launch post');
    await source.waitFor();
    // Drag with the mouse, as a person does: press, move across in steps, release.
    const from = (await source.locator('.meta').boundingBox())!;
    const to = (await column(page, 'Done').boundingBox())!;
    await page.mouse.move(from.x + 10, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + 60, { steps: 12 });
    await page.mouse.up();
    await card(column(page, 'Done'), 'Write the launch post').waitFor();

    await card(column(owner.page, 'Done'), 'Write the launch post').waitFor();
    expect(await card(column(owner.page, 'To do'), 'Write the launch post').count()).toBe(0);
    expect(ownerLoads).toEqual([]);
  });

  it("moves a card with the keyboard alone (the card's menu)", async () => {
    const { page } = owner;
    await page.goto(boardUrl);
    const menu = page.getByRole('button', { name: 'Actions for Record the demo' });
    await menu.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('In review');
    await page.keyboard.press('Enter');
    await card(column(page, 'In review'), 'Record the demo').waitFor();
  });

  it('shows the viewer no drag handles, no task forms and no delete button', async () => {
    const { page } = viewer;
    await page.goto(boardUrl);
    await card(page, 'Fix the signup form').waitFor();
    expect(await page.locator('.drag-handle').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Actions for / }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^New task in / }).count()).toBe(0);
    await card(page, 'Fix the signup form').getByRole('link').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Title').waitFor();
    expect(await dialog.getByLabel('Title').isDisabled()).toBe(true);
    expect(await dialog.getByRole('button', { name: /delete/i }).count()).toBe(0);
    expect(await dialog.getByRole('button', { name: 'Save changes' }).count()).toBe(0);
  });

  it('edits every field of a task in the detail dialog', async () => {
    const { page } = owner;
    await page.goto(boardUrl);
    await card(page, 'Fix the signup form').getByRole('link').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Title').fill('Fix the signup form on mobile');
    await dialog.getByLabel('Description').fill('The button is hidden below 400 px.');
    await dialog.getByLabel('Priority').selectOption('URGENT');
    await dialog.getByLabel('Assignee').selectOption({ label: 'Ada Lovelace' });
    await dialog.getByLabel('Due date').fill('2020-01-31');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => dialog.getByRole('heading', { level: 2 }).textContent()).toBe('Fix the signup form on mobile');
    const history = dialog.getByRole('region', { name: 'History' });
    await expect.poll(() => history.textContent()).toContain('changed the priority from Medium to Urgent');
    expect(await history.textContent()).toContain('changed the title from “Fix the signup form” to “Fix the signup form on mobile”');
    expect(await history.textContent()).toContain('created the task');

    await dialog.getByLabel('Add a comment').fill('The button moved into view; checked at 360 px.');
    await dialog.getByRole('button', { name: 'Comment' }).click();
    await dialog.locator('.comment-list', { hasText: 'checked at 360 px' }).waitFor();
    await expect.poll(() => history.textContent()).toContain('commented');
    await screenshot(page, 'task-detail.png');
    await dialog.getByRole('button', { name: 'Close' }).click();
    const updated = card(page, 'Fix the signup form on mobile');
    await expect.poll(() => updated.getAttribute('class')).toContain('overdue');
    expect(await updated.textContent()).toContain('Urgent');
    expect(await updated.locator('.avatar').getAttribute('title')).toBe('Ada Lovelace');
  });

  it("lists the caller's tasks across projects in My tasks", async () => {
    const { page } = owner;
    await page.getByRole('link', { name: 'My tasks' }).click();
    const item = page.locator('.my-tasks li', { hasText: 'Fix the signup form on mobile' });
    await item.waitFor();
    expect(await item.textContent()).toMatch(/Launch.*In progress.*Urgent.*Overdue/);
    // Grouped by when they are due.
    expect(await page.getByRole('region', { name: /^Overdue/ }).textContent()).toContain('Fix the signup form on mobile');
    expect(await page.locator('.my-tasks li').count()).toBe(1);
    await screenshot(page, 'my-tasks.png');
  });

  it('shows comments added in one browser in the other, without a reload', async () => {
    const openTask = async (person: Person) => {
      await person.page.goto(boardUrl);
      await card(person.page, 'Record the demo').getByRole('link').click();
      const dialog = person.page.getByRole('dialog');
      await dialog.getByText('No comments yet.').or(dialog.locator('.comment-list li').first()).waitFor();
      await person.page.getByText('Live', { exact: true }).waitFor();
      return dialog;
    };
    const ownerDialog = await openTask(owner);
    const editorDialog = await openTask(editor);

    await editorDialog.getByLabel('Add a comment').fill('Demo recorded, the link is in the drive.');
    await editorDialog.getByRole('button', { name: 'Comment' }).click();
    await ownerDialog.locator('.comment-list li', { hasText: 'Demo recorded' }).waitFor();
    expect(await ownerDialog.locator('.comment-list li', { hasText: 'Demo recorded' }).textContent()).toContain('Grace Hopper');

    await ownerDialog.getByLabel('Add a comment').fill('Thanks, watching it now.');
    await ownerDialog.getByRole('button', { name: 'Comment' }).click();
    await editorDialog.locator('.comment-list li', { hasText: 'watching it now' }).waitFor();
  });

  it('explains a stale edit (412) and shows the fresh task', async () => {
    // Both still have "Record the demo" open. The owner starts typing; the editor saves first.
    const ownerDialog = owner.page.getByRole('dialog');
    const editorDialog = editor.page.getByRole('dialog');
    await ownerDialog.getByLabel('Title').fill('Record the demo video');
    await editorDialog.getByLabel('Priority').selectOption('HIGH');
    await editorDialog.getByRole('button', { name: 'Save changes' }).click();

    // The owner's typing is kept, with a word that the task changed meanwhile.
    await ownerDialog.getByText('Someone else changed this task while you were editing it.').waitFor();
    expect(await ownerDialog.getByLabel('Title').inputValue()).toBe('Record the demo video');

    await ownerDialog.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => ownerDialog.getByRole('alert').textContent()).toContain('Not saved: someone else saved this task');
    await expect.poll(() => ownerDialog.getByLabel('Priority').inputValue()).toBe('HIGH');
    expect(await ownerDialog.getByLabel('Title').inputValue()).toBe('Record the demo');
    await editor.page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  });

  it('reads well at 360 px wide', async () => {
    const phone = await newPerson(browser, server.baseUrl, { width: 360, height: 740 });
    await phone.page.goto('/login');
    await phone.page.getByLabel('Email').fill(emails.owner);
    await phone.page.getByLabel('Password').fill('password-123');
    await phone.page.getByRole('button', { name: 'Log in' }).click();
    await phone.page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await phone.page.goto(boardUrl);
    await card(phone.page, 'Record the demo').waitFor();
    const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(phone.page, 'board-360px.png', { fullPage: true });
    await phone.context.close();
  });

  it('sends someone with an expired token back to the login page, saying why', async () => {
    const { page } = viewer;
    const userId = await page.evaluate(() => JSON.parse(atob(localStorage.getItem('tasklane.token')!.split('.')[1]!)).sub as string);
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .setJti(`expired-${run}`)
      .sign(new TextEncoder().encode(JWT_SECRET));
    await page.evaluate((token) => localStorage.setItem('tasklane.token', token), expired);
    await page.goto(boardUrl);
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(await page.getByRole('status').textContent()).toMatch(/session has expired/i);
    expect(await page.evaluate(() => localStorage.getItem('tasklane.token'))).toBeNull();
  });

  it('logs out, and a reload keeps a signed-in person signed in', async () => {
    const { page } = editor;
    await page.goto('/');
    await page.reload();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
  });

  it('removes a member: they leave the list and lose the project', async () => {
    const { page } = owner;
    await page.goto(`${boardUrl}/members`);
    const row = page.locator('table.members tbody tr', { hasText: 'Alan Turing' });
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByRole('button', { name: 'Remove member' }).click();
    await row.waitFor({ state: 'detached' });
    expect(await page.locator('table.members tbody tr').count()).toBe(2);
  });

  it('loaded nothing from anywhere but the server, and threw no errors', () => {
    for (const person of [owner, editor, viewer]) {
      expect(person.foreignRequests).toEqual([]);
      expect(person.pageErrors).toEqual([]);
    }
  });
});
