import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, newPerson, type Person, type Server, signInWithToken, startServer } from './harness';

/**
 * Invitations of people without an account (issue 39), with email off: the owner invites an
 * unknown email on the members page and sees the pending invitation with its expiry, its link and
 * a Revoke button; a newcomer opens the link signed out, creates an account there and lands in the
 * project; a signed-in person opening a link joins at once; a used link says so.
 */
describe('invitations in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let ada: Person;
  const run = Date.now().toString(36);
  let api: TasklaneClient;
  let adaToken: string;
  let projectId: string;
  /** The link's path, `/invite/<token>` (the server's PUBLIC_URL is not this test server's address). */
  let invitePath: string;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
    api = createTasklaneClient({ baseUrl: server.baseUrl });
    adaToken = (await api.auth.register({ name: 'Ada Lovelace', email: `ada-${run}@example.com`, password: 'password-123' })).access_token;
    projectId = (await api.projects.create({ name: 'Difference engine' })).id;
    ada = await newPerson(browser, server.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('inviting an unknown email lists the pending invitation with its expiry and link; Revoke removes one', async () => {
    const { page } = ada;
    await signInWithToken(ada, adaToken, `/projects/${projectId}/members`);
    const invite = page.getByRole('form', { name: 'Invite a member' });
    const invitations = page.getByRole('region', { name: 'Invitations' });
    for (const email of [`charles-${run}@example.com`, `mistake-${run}@example.com`]) {
      await invite.getByLabel('Email').fill(email);
      await invite.getByLabel('Role').selectOption('EDITOR');
      await invite.getByRole('button', { name: 'Invite' }).click();
      await invitations.getByText(email).waitFor();
    }
    const charles = invitations.locator('li', { hasText: `charles-${run}@example.com` });
    await expect.poll(() => charles.textContent()).toContain('Editor');
    await expect.poll(() => charles.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    const link = await charles.getByLabel(/Link to pass on/).inputValue();
    expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
    invitePath = new URL(link).pathname;
    expect(await accessibilityViolations(page)).toEqual([]);

    await invitations.getByRole('button', { name: `Revoke the invitation of mistake-${run}@example.com` }).click();
    await expect.poll(() => invitations.locator('li').count()).toBe(1);
    // The list as the server has it, after a reload: the revoked one is gone, the link is not shown again.
    await page.reload();
    await invitations.getByText(`charles-${run}@example.com`).waitFor();
    expect(await invitations.getByText(`mistake-${run}@example.com`).count()).toBe(0);
    expect(await invitations.getByLabel(/Link to pass on/).count()).toBe(0);
  });

  it('signed out, the link offers to create an account (or log in) and then joins the project', async () => {
    const charles = await newPerson(browser, server.baseUrl);
    const { page } = charles;
    await page.goto(invitePath);
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByText('You were invited to a project').waitFor();
    // Switching to the login form and back keeps the invitation's address.
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(invitePath);
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByLabel('Full name').fill('Charles Babbage');
    await page.getByLabel('Email').fill(`charles-${run}@example.com`);
    await page.getByLabel('Password').fill('password-123');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('heading', { name: 'Difference engine', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/projects/${projectId}`);
    const members = await api.members.list({ id: projectId });
    expect(members.items.map((member) => [member.name, member.role])).toContainEqual(['Charles Babbage', 'EDITOR']);

    // The link worked once.
    await page.goto(invitePath);
    await page.getByRole('alert').getByText(/invalid, expired, revoked or already used/).waitFor();
    await charles.context.close();
  });

  it('signed in, a link joins at once and opens the project; the pending list empties', async () => {
    const invited = await api.members.invite({ id: projectId, email: `lovelace-fan-${run}@example.com`, role: 'VIEWER' });
    expect('acceptUrl' in invited && invited.acceptUrl).toBeTruthy();
    const path = new URL((invited as { acceptUrl: string }).acceptUrl).pathname;
    // Someone with an account under another email, holding the link.
    const other = createTasklaneClient({ baseUrl: server.baseUrl });
    const session = await other.auth.register({ name: 'Mary Somerville', email: `mary-${run}@example.com`, password: 'password-123' });
    const mary = await newPerson(browser, server.baseUrl);
    await signInWithToken(mary, session.access_token, path);
    await mary.page.getByRole('heading', { name: 'Difference engine', level: 1 }).waitFor();
    expect((await api.invitations.list({ id: projectId })).items).toEqual([]);
    expect(mary.pageErrors).toEqual([]);
    await mary.context.close();
  });
});
