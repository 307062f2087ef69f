import { createHmac } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTasklaneClient, type TasklaneClient } from '@tasklane/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accessibilityViolations, launchChromium, newPerson, type Person, screenshot, type Server, signInWithToken, startServer } from './harness';

/**
 * The project webhooks screen (issue 39): an ADMIN adds a webhook (URL and event types), copies its
 * secret, reads its delivery log (a real receiver answers 200 on /ok and 500 on /fail), edits it,
 * disables and enables it, sends it a test delivery and sees its result, rotates its secret (the new
 * one shown once, copied, and signing the deliveries from then on), and deletes it; a change from a
 * stale copy is refused (412) and says so. An EDITOR is told webhooks are for admins.
 */
describe('the webhooks screen in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let receiver: HttpServer;
  let receiverUrl: string;
  const received: { path: string; type: string; body: string; timestamp: string; signature: string }[] = [];
  let ada: Person;
  let grace: Person;
  const run = Date.now().toString(36);
  const api: Record<'ada' | 'grace', TasklaneClient> = {} as never;
  const tokens: Record<string, string> = {};
  let projectId: string;
  /** The secret the page showed when the webhook to /ok was added. */
  let okSecret = '';

  beforeAll(async () => {
    // Deliveries to the receiver on 127.0.0.1, polled often so the test waits little.
    server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '100' });
    receiver = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        const header = (name: string) => String(request.headers[name] ?? '');
        received.push({ path: request.url ?? '', type: (JSON.parse(body) as { type: string }).type, body, timestamp: header('x-tasklane-timestamp'), signature: header('x-tasklane-signature') });
        response.writeHead(request.url === '/ok' ? 200 : 500).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    browser = await launchChromium();
    for (const [who, name] of [
      ['ada', 'Ada Lovelace'],
      ['grace', 'Grace Hopper'],
    ] as const) {
      const client = createTasklaneClient({ baseUrl: server.baseUrl });
      tokens[who] = (await client.auth.register({ name, email: `${who}-${run}@example.com`, password: 'password-123' })).access_token;
      api[who] = client;
    }
    projectId = (await api.ada.projects.create({ name: 'Analytical engine' })).id;
    await api.ada.members.invite({ id: projectId, email: `grace-${run}@example.com`, role: 'EDITOR' });
    ada = await newPerson(browser, server.baseUrl);
    grace = await newPerson(browser, server.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const item = (page: Page, path: string) => page.locator('li[data-webhook-id]', { hasText: `${receiverUrl}${path}` });
  const serverWebhooks = async () => (await api.ada.webhooks.list({ id: projectId })).items;

  it('is linked from the members page; an admin adds a webhook and sees its secret once', async () => {
    const { page } = ada;
    await signInWithToken(ada, tokens.ada!, `/projects/${projectId}/members`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Analytical engine: webhooks', level: 1 }).waitFor();
    await page.getByText('No webhooks yet').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    const form = page.getByRole('form', { name: 'Add a webhook' });
    await form.getByLabel('Payload URL').fill(`${receiverUrl}/ok`);
    await form.getByLabel('task.created').check();
    await form.getByRole('button', { name: 'Add webhook' }).click();
    const secret = page.getByLabel('Signing secret');
    await secret.waitFor();
    okSecret = await secret.inputValue();
    expect(okSecret).not.toBe('');
    await item(page, '/ok').getByText('task.created').waitFor();
    expect(await form.getByLabel('Payload URL').inputValue()).toBe('');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect((await serverWebhooks()).map(({ url, events, active }) => ({ url, events, active }))).toEqual([{ url: `${receiverUrl}/ok`, events: ['task.created'], active: true }]);

    // A URL the API refuses is explained under the form.
    await form.getByLabel('Payload URL').fill('ftp://example.com/hook');
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await form.getByRole('alert').waitFor();
  });

  it('shows the delivery log: delivered and failing deliveries with attempts, status and error', async () => {
    const { page } = ada;
    const form = page.getByRole('form', { name: 'Add a webhook' });
    await form.getByLabel('Payload URL').fill(`${receiverUrl}/fail`);
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await item(page, '/fail').getByText('Every event').waitFor();

    await api.ada.tasks.create({ projectId, title: 'Fix the carry' });
    // The failing one may be retried meanwhile: each receiver path at least once.
    await vi.waitFor(() => expect(new Set(received.map(({ path }) => path))).toEqual(new Set(['/fail', '/ok'])), { timeout: 15_000 });
    const [ok, fail] = await serverWebhooks();
    await vi.waitFor(async () => expect((await api.ada.webhooks.deliveries({ id: projectId, webhookId: ok!.id })).items[0]?.state).toBe('DELIVERED'), { timeout: 15_000 });
    await vi.waitFor(async () => expect((await api.ada.webhooks.deliveries({ id: projectId, webhookId: fail!.id })).items[0]?.lastStatus).toBe(500), { timeout: 15_000 });

    await item(page, '/ok').getByRole('button', { name: 'Deliveries' }).click();
    const delivered = item(page, '/ok').getByRole('table').locator('tbody tr');
    await delivered.first().waitFor();
    expect(await delivered.first().locator('td').allTextContents()).toEqual(expect.arrayContaining(['task.created', 'Delivered', '1', '200']));

    await item(page, '/fail').getByRole('button', { name: 'Deliveries' }).click();
    const failing = item(page, '/fail').getByRole('table').locator('tbody tr');
    await failing.first().waitFor();
    expect(await failing.first().locator('td').allTextContents()).toEqual(expect.arrayContaining(['task.created', 'Pending', '500']));
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'webhooks.png', { fullPage: true });
  });

  it('edits, disables and enables a webhook; a stale change is refused and the list reloaded', async () => {
    const { page } = ada;
    const okItem = item(page, '/ok');
    await okItem.getByRole('button', { name: 'Edit' }).click();
    const edit = okItem.getByRole('form', { name: /^Edit the webhook/ });
    await edit.getByLabel('task.updated').check();
    await edit.getByRole('button', { name: 'Save webhook' }).click();
    await okItem.getByText('task.created, task.updated').waitFor();
    expect((await serverWebhooks())[0]?.events).toEqual(['task.created', 'task.updated']);

    await okItem.getByRole('button', { name: 'Disable' }).click();
    await okItem.getByText('Disabled', { exact: true }).waitFor();
    expect((await serverWebhooks())[0]?.active).toBe(false);
    await okItem.getByRole('button', { name: 'Enable' }).click();
    await okItem.getByText('Enabled', { exact: true }).waitFor();
    expect((await serverWebhooks())[0]?.active).toBe(true);

    // Someone else changes it meanwhile (a new version): the page's change is refused with If-Match.
    const [ok] = await serverWebhooks();
    await vi.waitFor(async () => {
      const changed = await api.ada.webhooks.update({ id: projectId, webhookId: ok!.id, events: ['task.deleted'] });
      expect(changed.updatedAt).not.toBe(ok!.updatedAt);
    }, { timeout: 10_000 });
    await okItem.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('alert').filter({ hasText: 'Someone else changed this webhook meanwhile' }).waitFor();
    await okItem.getByText('task.deleted').waitFor();
    expect((await serverWebhooks())[0]?.active).toBe(true);
  });

  it('sends a test delivery, shown in the log; rotates the secret, shown once, which signs later deliveries', async () => {
    const { page } = ada;
    const okItem = item(page, '/ok');
    const oldSecret = okSecret;
    const testsTo = (path: string) => received.filter((delivery) => delivery.type === 'webhook.test' && delivery.path === path);

    await okItem.getByRole('button', { name: 'Send test' }).click();
    await vi.waitFor(() => expect(testsTo('/ok')).toHaveLength(1), { timeout: 15_000 });
    const rows = okItem.getByRole('table').locator('tbody tr');
    // The worker logs the answer after the receiver has it: refresh until the log says so.
    await vi.waitFor(
      async () => {
        await okItem.getByRole('button', { name: 'Refresh deliveries' }).click();
        expect(await rows.first().locator('td').allTextContents()).toEqual(expect.arrayContaining(['webhook.test', 'Delivered', '1', '200']));
      },
      { timeout: 15_000 },
    );

    const signature = (delivery: (typeof received)[number], key: string) => `sha256=${createHmac('sha256', key).update(`${delivery.timestamp}.${delivery.body}`).digest('hex')}`;
    expect(testsTo('/ok')[0]!.signature).toBe(signature(testsTo('/ok')[0]!, oldSecret));

    await okItem.getByRole('button', { name: 'Rotate secret' }).click();
    await okItem.getByRole('button', { name: 'Make a new secret' }).click();
    await page.getByText('The new signing secret of the webhook').waitFor();
    const secret = page.getByLabel('Signing secret');
    const newSecret = await secret.inputValue();
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(newSecret);
    expect(await accessibilityViolations(page)).toEqual([]);

    // The next delivery is signed with the new secret, not the old one.
    await okItem.getByRole('button', { name: 'Send test' }).click();
    await vi.waitFor(() => expect(testsTo('/ok')).toHaveLength(2), { timeout: 15_000 });
    const signed = testsTo('/ok')[1]!;
    expect(signed.signature).toBe(signature(signed, newSecret));
    expect(signed.signature).not.toBe(signature(signed, oldSecret));
  });

  it('deletes a webhook after a confirmation', async () => {
    const { page } = ada;
    const failItem = item(page, '/fail');
    await failItem.getByRole('button', { name: 'Delete' }).click();
    await failItem.getByRole('button', { name: 'Delete webhook' }).click();
    await failItem.waitFor({ state: 'detached' });
    expect((await serverWebhooks()).map(({ url }) => url)).toEqual([`${receiverUrl}/ok`]);
    expect(ada.pageErrors).toEqual([]);
    expect(ada.foreignRequests).toEqual([]);
  });

  it('tells an editor that webhooks are for admins, and links them nowhere', async () => {
    const { page } = grace;
    await signInWithToken(grace, tokens.grace!, `/projects/${projectId}/members`);
    await page.getByRole('heading', { name: 'Analytical engine: members', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    await page.goto(`/projects/${projectId}/webhooks`);
    await page.getByText('Only admins can see and manage webhooks.').waitFor();
    expect(await page.getByRole('form', { name: 'Add a webhook' }).count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});
