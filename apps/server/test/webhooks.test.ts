import { createDatabase } from '@tasklane/db';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app/app';
import type { Config } from '../src/platform/config';
import { createProject, createTask, invite, openTestDatabase, registerUser, startTestApp, testConfig, type TestApp, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';
import { startReceiver } from './support/webhook-receiver';

const fastRetries: Partial<Config> = {
  webhooks: { allowPrivate: true, pollMs: 100, timeoutMs: 2000, retryBaseMs: 100, retryMaxDelayMs: 400, retryWindowMs: 60_000, logRetentionMs: 7 * 86_400_000 },
};

describe('webhooks', () => {
  let t: TestApp;
  let owner: TestUser;
  let editor: TestUser;
  let outsider: TestUser;
  // Each test's own: a project, a receiver, and the secret of the webhook it creates.
  let projectId: string;
  let secret: string;
  let receiver: ReturnType<typeof startReceiver>;

  beforeAll(async () => {
    t = await startTestApp(fastRetries);
    owner = await registerUser(t, 'Owner');
    editor = await registerUser(t, 'Editor');
    outsider = await registerUser(t, 'Outsider');
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    secret = '';
    receiver = startReceiver(() => secret);
    await receiver.start();
    projectId = (await createProject(t, owner, 'Hooked')).id;
    await invite(t, owner, projectId, editor, 'EDITOR');
  });
  afterEach(() => receiver.stop());

  const hooks = (path = '') => `/api/v1/projects/${projectId}/webhooks${path}`;

  it('is managed by ADMINs: created with a secret shown once, listed, updated, deleted', async () => {
    expect((await t.request('POST', hooks(), { token: editor.token, body: { url: receiver.url } })).status).toBe(403);
    expect((await t.request('GET', hooks(), { token: editor.token })).status).toBe(403);
    expect((await t.request('GET', hooks(), { token: outsider.token })).status).toBe(404);
    const bad = await t.request('POST', hooks(), { token: owner.token, body: { url: 'ftp://example.com', events: ['task.exploded'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((issue: { path: string[] }) => issue.path[0]).sort()).toEqual(['events', 'url']);

    const created = await t.request('POST', hooks(), { token: owner.token, body: { url: 'http://93.184.216.34/hook', events: ['task.created'], active: false } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ projectId, url: 'http://93.184.216.34/hook', events: ['task.created'], active: false, disabledReason: null });
    expect(created.body.secret).toMatch(/^whsec_.{40,}/);
    const fetched = await t.request('GET', hooks(`/${created.body.id}`), { token: owner.token });
    expect(fetched.status).toBe(200);
    expect(fetched.body.secret).toBeUndefined();
    const listed = await t.request('GET', hooks(), { token: owner.token });
    expect(listed.body.map((hook: { id: string }) => hook.id)).toContain(created.body.id);
    const patched = await t.request('PATCH', hooks(`/${created.body.id}`), { token: owner.token, body: { events: [] } });
    expect(patched.body.events).toEqual([]);
    expect((await t.request('DELETE', hooks(`/${created.body.id}`), { token: owner.token })).body).toEqual({ message: 'Webhook deleted' });
    expect((await t.request('GET', hooks(`/${created.body.id}`), { token: owner.token })).status).toBe(404);
  });

  it('delivers each change signed, and logs the delivery with its status code', async () => {
    const created = await t.request('POST', hooks(), { token: owner.token, body: { url: receiver.url } });
    secret = created.body.secret;
    const task = await createTask(t, editor, projectId, { title: 'Hooked task' });
    await expect.poll(() => receiver.received.length).toBeGreaterThanOrEqual(1);
    const [delivery] = receiver.received;
    expect(delivery!.signatureValid).toBe(true);
    expect(delivery!.headers['x-tasklane-event']).toBe('task.created');
    expect(Math.abs(Number(delivery!.headers['x-tasklane-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    expect(delivery!.body).toMatchObject({ type: 'task.created', taskId: task.id, resource: { id: task.id, title: 'Hooked task' } });
    expect(new Date(delivery!.body.time).toISOString()).toBe(delivery!.body.time);
    const history = await t.request('GET', `/api/v1/tasks/${task.id}/activity`, { token: owner.token });
    expect(delivery!.body.id).toBe(history.body[0].id);

    await expect
      .poll(async () => (await t.request('GET', hooks(`/${created.body.id}/deliveries`), { token: owner.token })).body[0])
      .toMatchObject({ eventId: delivery!.body.id, eventType: 'task.created', state: 'DELIVERED', attempts: 1, lastStatus: 200 });
    await t.request('DELETE', hooks(`/${created.body.id}`), { token: owner.token });
  });

  it('retries while the receiver is down and delivers everything, in order per task, once it is back', async () => {
    const created = await t.request('POST', hooks(), { token: owner.token, body: { url: receiver.url, events: ['task.created', 'task.updated'] } });
    secret = created.body.secret;
    await receiver.stop();
    receiver.received.length = 0;
    const first = await createTask(t, owner, projectId, { title: 'A' });
    const second = await createTask(t, owner, projectId, { title: 'B' });
    for (const status of ['IN_PROGRESS', 'IN_REVIEW', 'DONE']) {
      await t.request('PATCH', `/api/v1/tasks/${first.id}`, { token: owner.token, body: { status } });
    }
    await t.request('PATCH', `/api/v1/tasks/${second.id}`, { token: owner.token, body: { status: 'DONE' } });
    await t.request('POST', `/api/v1/tasks/${first.id}/comments`, { token: owner.token, body: { text: 'not subscribed' } });

    // Failing attempts are logged and rescheduled.
    await expect
      .poll(async () => (await t.request('GET', hooks(`/${created.body.id}/deliveries`), { token: owner.token })).body.find((row: { attempts: number }) => row.attempts >= 2))
      .toMatchObject({ state: 'PENDING', lastStatus: null, lastError: expect.stringMatching(/ECONNREFUSED/) });

    await receiver.start();
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(6);
    expect(receiver.received.every((delivery) => delivery.signatureValid)).toBe(true);
    const statusesOf = (taskId: string) =>
      receiver.received.filter((delivery) => delivery.body.taskId === taskId).map((delivery) => `${delivery.body.type}:${delivery.body.resource.status}`);
    expect(statusesOf(first.id)).toEqual(['task.created:TODO', 'task.updated:IN_PROGRESS', 'task.updated:IN_REVIEW', 'task.updated:DONE']);
    expect(statusesOf(second.id)).toEqual(['task.created:TODO', 'task.updated:DONE']);
    // The receiver records a delivery before the worker logs its answer.
    await expect
      .poll(async () => {
        const log = await t.request('GET', hooks(`/${created.body.id}/deliveries`), { token: owner.token });
        return log.body.map((row: { state: string; lastStatus: number }) => `${row.state}:${row.lastStatus}`);
      })
      .toEqual(Array(6).fill('DELIVERED:200'));
    await t.request('DELETE', hooks(`/${created.body.id}`), { token: owner.token });
  });

  it('sends a signed test delivery to one webhook only, logged with its status; a disabled webhook too', async () => {
    const created = await t.request('POST', hooks(), { token: owner.token, body: { url: receiver.url } });
    secret = created.body.secret;
    // Another webhook of the project, to the same receiver: it gets nothing.
    const other = await t.request('POST', hooks(), { token: owner.token, body: { url: receiver.url } });
    expect((await t.request('POST', hooks(`/${created.body.id}/test`), { token: editor.token })).status).toBe(403);
    expect((await t.request('POST', hooks(`/${created.body.id}/test`), { token: outsider.token })).status).toBe(404);
    expect((await t.request('POST', hooks('/00000000-0000-7000-8000-000000000000/test'), { token: owner.token })).status).toBe(404);

    const queued = await t.request('POST', hooks(`/${created.body.id}/test`), { token: owner.token });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ eventId: null, eventType: 'webhook.test', state: 'PENDING', attempts: 0, lastStatus: null });
    await expect.poll(() => receiver.received.length).toBe(1);
    const [delivery] = receiver.received;
    expect(delivery!.signatureValid).toBe(true);
    expect(delivery!.headers['x-tasklane-event']).toBe('webhook.test');
    expect(delivery!.headers['x-tasklane-delivery']).toBe(queued.body.id);
    expect(delivery!.body).toMatchObject({ id: null, type: 'webhook.test', taskId: null, resource: { id: created.body.id, url: receiver.url } });
    expect(delivery!.body.resource).not.toHaveProperty('secret');
    await expect
      .poll(async () => (await t.request('GET', hooks(`/${created.body.id}/deliveries`), { token: owner.token })).body)
      .toEqual([expect.objectContaining({ id: queued.body.id, eventType: 'webhook.test', state: 'DELIVERED', attempts: 1, lastStatus: 200 })]);
    expect((await t.request('GET', hooks(`/${other.body.id}/deliveries`), { token: owner.token })).body).toEqual([]);

    // Disabled: the test is sent all the same, and the webhook stays disabled.
    await t.request('PATCH', hooks(`/${created.body.id}`), { token: owner.token, body: { active: false } });
    const again = await t.request('POST', hooks(`/${created.body.id}/test`), { token: owner.token });
    expect(again.status).toBe(202);
    await expect.poll(() => receiver.received.length).toBe(2);
    expect(receiver.received[1]!.headers['x-tasklane-delivery']).toBe(again.body.id);
    expect((await t.request('GET', hooks(`/${created.body.id}`), { token: owner.token })).body).toMatchObject({ active: false, consecutiveFailures: 0 });
    await t.request('DELETE', hooks(`/${other.body.id}`), { token: owner.token });
    await t.request('DELETE', hooks(`/${created.body.id}`), { token: owner.token });
  });

  it('attempts a failing test once, logs the failure, and leaves the webhook as it was', async () => {
    const created = await t.request('POST', hooks(), { token: owner.token, body: { url: receiver.url } });
    secret = created.body.secret;
    await receiver.stop();
    const queued = await t.request('POST', hooks(`/${created.body.id}/test`), { token: owner.token });
    expect(queued.status).toBe(202);
    await expect
      .poll(async () => (await t.request('GET', hooks(`/${created.body.id}/deliveries`), { token: owner.token })).body[0])
      .toMatchObject({ id: queued.body.id, state: 'FAILED', attempts: 1, lastStatus: null, lastError: expect.stringMatching(/ECONNREFUSED/), nextAttemptAt: null });
    expect((await t.request('GET', hooks(`/${created.body.id}`), { token: owner.token })).body).toMatchObject({ active: true, disabledReason: null, consecutiveFailures: 0 });
    await t.request('DELETE', hooks(`/${created.body.id}`), { token: owner.token });
  });

  it('rotates the secret: shown once, and every later delivery is signed with the new one', async () => {
    const created = await t.request('POST', hooks(), { token: owner.token, body: { url: receiver.url, events: ['task.created'] } });
    const oldSecret = created.body.secret as string;
    secret = oldSecret;
    expect((await t.request('POST', hooks(`/${created.body.id}/rotate-secret`), { token: editor.token })).status).toBe(403);
    expect((await t.request('POST', hooks(`/${created.body.id}/rotate-secret`), { token: outsider.token })).status).toBe(404);

    const rotated = await t.request('POST', hooks(`/${created.body.id}/rotate-secret`), { token: owner.token, headers: { 'if-match': created.headers.etag as string } });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: created.body.id, url: receiver.url, events: ['task.created'], active: true });
    expect(rotated.body.secret).toMatch(/^whsec_.{40,}/);
    expect(rotated.body.secret).not.toBe(oldSecret);
    expect(rotated.headers.etag).not.toBe(created.headers.etag);
    expect((await t.request('GET', hooks(`/${created.body.id}`), { token: owner.token })).body.secret).toBeUndefined();
    // The version moved: the old ETag is stale now.
    const stale = await t.request('POST', hooks(`/${created.body.id}/rotate-secret`), { token: owner.token, headers: { 'if-match': created.headers.etag as string } });
    expect(stale.status).toBe(412);

    // The receiver now knows only the new secret (it answers 401 to a signature it cannot verify).
    secret = rotated.body.secret;
    receiver.received.length = 0;
    await createTask(t, owner, projectId, { title: 'After the rotation' });
    await expect.poll(() => receiver.received.length).toBe(1);
    expect(receiver.received[0]!.signatureValid).toBe(true);
    await expect
      .poll(async () => (await t.request('GET', hooks(`/${created.body.id}/deliveries`), { token: owner.token })).body[0])
      .toMatchObject({ eventType: 'task.created', state: 'DELIVERED', lastStatus: 200 });
    await t.request('DELETE', hooks(`/${created.body.id}`), { token: owner.token });
  });

  it('still delivers project.deleted after the project is gone', async () => {
    const doomed = await createProject(t, owner, 'Doomed');
    const created = await t.request('POST', `/api/v1/projects/${doomed.id}/webhooks`, { token: owner.token, body: { url: receiver.url, events: ['project.deleted'] } });
    secret = created.body.secret;
    receiver.received.length = 0;
    expect((await t.request('DELETE', `/api/v1/projects/${doomed.id}`, { token: owner.token })).status).toBe(200);
    await expect.poll(() => receiver.received.length).toBe(1);
    expect(receiver.received[0]!.body).toMatchObject({ type: 'project.deleted', resource: { id: doomed.id, name: 'Doomed' } });
  });
});

describe('webhooks that keep failing', () => {
  let t: TestApp;
  let secret = '';
  const receiver = startReceiver(() => secret);

  beforeAll(async () => {
    t = await startTestApp({ webhooks: { ...fastRetries.webhooks!, retryWindowMs: 1000 } });
    await receiver.start();
    receiver.answerWith(500);
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
  });

  it('gives up after the retry window and disables the webhook with the reason; re-enabling clears it', async () => {
    const owner = await registerUser(t);
    const project = await createProject(t, owner);
    const created = await t.request('POST', `/api/v1/projects/${project.id}/webhooks`, { token: owner.token, body: { url: receiver.url } });
    secret = created.body.secret;
    await createTask(t, owner, project.id);
    const path = `/api/v1/projects/${project.id}/webhooks/${created.body.id}`;
    await expect.poll(async () => (await t.request('GET', path, { token: owner.token })).body.active, { timeout: 15_000 }).toBe(false);
    const disabled = await t.request('GET', path, { token: owner.token });
    expect(disabled.body.disabledReason).toMatch(/HTTP 500/);
    expect(disabled.body.consecutiveFailures).toBeGreaterThanOrEqual(2);
    const log = await t.request('GET', `${path}/deliveries`, { token: owner.token });
    expect(log.body[0]).toMatchObject({ state: 'FAILED', lastStatus: 500, lastError: 'HTTP 500', nextAttemptAt: null });
    expect(log.body[0].attempts).toBeGreaterThanOrEqual(2);

    const enabled = await t.request('PATCH', path, { token: owner.token, body: { active: true } });
    expect(enabled.body).toMatchObject({ active: true, disabledReason: null, consecutiveFailures: 0 });
  });
});

describe('webhook targets (SSRF)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ webhooks: { ...fastRetries.webhooks!, allowPrivate: false } });
  });
  afterAll(() => t.close());

  it('refuses private, loopback and link-local targets, by literal address or by name', async () => {
    const owner = await registerUser(t);
    const project = await createProject(t, owner);
    for (const url of ['http://127.0.0.1:4300/x', 'http://localhost/x', 'http://10.1.2.3/', 'http://192.168.0.1/', 'http://169.254.169.254/latest', 'http://[::1]/', 'http://[fe80::1]/', 'http://[::ffff:127.0.0.1]/', 'http://0.0.0.0/']) {
      const response = await t.request('POST', `/api/v1/projects/${project.id}/webhooks`, { token: owner.token, body: { url } });
      expect({ url, status: response.status, reason: response.body.reason }).toEqual({ url, status: 400, reason: 'WEBHOOK_TARGET_REFUSED' });
    }
  });

  it('refuses loopback and private addresses written inside IPv6: IPv4-compatible, -mapped, translated, NAT64, 6to4', async () => {
    const owner = await registerUser(t);
    const project = await createProject(t, owner);
    const forms = [
      'http://[::127.0.0.1]/',
      'http://[0::127.0.0.1]/',
      'http://[::7f00:1]/',
      'http://[0:0:0:0:0:0:7f00:1]/',
      'http://[::10.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[0:0:0:0:0:ffff:127.0.0.1]/',
      'http://[::ffff:0:127.0.0.1]/',
      'http://[64:ff9b::127.0.0.1]/',
      'http://[2002:7f00:1::]/',
    ];
    for (const url of forms) {
      const response = await t.request('POST', `/api/v1/projects/${project.id}/webhooks`, { token: owner.token, body: { url } });
      expect({ url, status: response.status, reason: response.body.reason }).toEqual({ url, status: 400, reason: 'WEBHOOK_TARGET_REFUSED' });
    }
    const fine = await t.request('POST', `/api/v1/projects/${project.id}/webhooks`, { token: owner.token, body: { url: 'https://93.184.216.34/hook', active: false } });
    expect(fine.status).toBe(201);
    for (const url of ['http://[::127.0.0.1]/', 'http://[::ffff:127.0.0.1]/']) {
      const moved = await t.request('PATCH', `/api/v1/projects/${project.id}/webhooks/${fine.body.id}`, { token: owner.token, body: { url } });
      expect({ url, status: moved.status, reason: moved.body.reason }).toEqual({ url, status: 400, reason: 'WEBHOOK_TARGET_REFUSED' });
    }
  });

  it('accepts a public address, and refuses moving it to a loopback one', async () => {
    const owner = await registerUser(t);
    const project = await createProject(t, owner);
    const fine = await t.request('POST', `/api/v1/projects/${project.id}/webhooks`, { token: owner.token, body: { url: 'https://93.184.216.34/hook', active: false } });
    expect(fine.status).toBe(201);
    const moved = await t.request('PATCH', `/api/v1/projects/${project.id}/webhooks/${fine.body.id}`, { token: owner.token, body: { url: 'http://127.0.0.1/' } });
    expect(moved.status).toBe(400);
  });
});

if (process.env.TEST_DB === 'postgres') {
  describe('webhook delivery with two instances on one PostgreSQL database', () => {
    let instanceA: FastifyInstance;
    let instanceB: FastifyInstance;
    let cleanup: () => Promise<void>;
    let secret = '';
    const receiver = startReceiver(() => secret);

    beforeAll(async () => {
      const { database, url, drop } = await openTestDatabase();
      const second = await createDatabase({ kind: 'postgres', url: url!, poolSize: 5 });
      instanceA = await buildApp(testConfig(fastRetries), { database, logger: false });
      instanceB = await buildApp(testConfig(fastRetries), { database: second, logger: false });
      await receiver.start();
      cleanup = async () => {
        await receiver.stop();
        await instanceA.close();
        await instanceB.close();
        await second.close();
        await drop();
      };
    });
    afterAll(() => cleanup());

    const call = async (app: FastifyInstance, method: string, url: string, token?: string, body?: unknown) => {
      const response = await app.inject({ method: method as 'POST', url, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(body ? { payload: body as object } : {}) });
      return response.json();
    };

    it('sends each delivery exactly once, whichever instance claims it', async () => {
      const registered = await call(instanceA, 'POST', '/api/v1/auth/register', undefined, { name: 'Ops', email: `ops-${Date.now()}@example.com`, password: 'password-123' });
      const token = registered.access_token as string;
      const project = await call(instanceA, 'POST', '/api/v1/projects', token, { name: 'Busy' });
      secret = (await call(instanceB, 'POST', `/api/v1/projects/${project.id}/webhooks`, token, { url: receiver.url, events: ['task.created'] })).secret;
      for (let index = 0; index < 30; index += 1) {
        await call(index % 2 ? instanceA : instanceB, 'POST', '/api/v1/tasks', token, { projectId: project.id, title: `Task ${index}` });
      }
      await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(30);
      // Give a duplicate the chance to show up before counting.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const ids = receiver.received.map((delivery) => delivery.body.id);
      expect(new Set(ids).size).toBe(30);
      expect(ids).toHaveLength(30);
    });
  });
}

describe('the delivery log is pruned after WEBHOOK_LOG_RETENTION_MS', () => {
  let t: TestApp;
  let owner: TestUser;
  let secret = '';
  const receiver = startReceiver(() => secret);

  beforeAll(async () => {
    // Finished deliveries are kept 1.5 s here (7 days by default); the log is pruned that often.
    t = await startTestApp({ webhooks: { ...fastRetries.webhooks!, logRetentionMs: 1500 } });
    await receiver.start();
    owner = await registerUser(t, 'Pruner');
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
  });

  it('forgets delivered deliveries once they are older than the retention, and keeps pending ones', async () => {
    const projectId = (await createProject(t, owner, 'Pruned log')).id;
    const created = await t.request('POST', `/api/v1/projects/${projectId}/webhooks`, { token: owner.token, body: { url: receiver.url } });
    secret = created.body.secret;
    const deliveries = async () =>
      (await t.request('GET', `/api/v1/projects/${projectId}/webhooks/${created.body.id}/deliveries`, { token: owner.token })).body as {
        eventType: string;
        state: string;
      }[];

    await createTask(t, owner, projectId, { title: 'Delivered, then forgotten' });
    await expect.poll(async () => (await deliveries()).map((delivery) => delivery.state)).toEqual(['DELIVERED']);

    // The receiver now refuses: the next change's delivery stays PENDING, retried, and must survive pruning.
    receiver.answerWith(503);
    await createTask(t, owner, projectId, { title: 'Still pending' });
    await expect.poll(async () => (await deliveries()).map((delivery) => delivery.state), { timeout: 15_000 }).toEqual(['PENDING']);
    // Well past the retention and several pruning passes later, the pending delivery is still there.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect((await deliveries()).map((delivery) => delivery.state)).toEqual(['PENDING']);
    receiver.answerWith(200);
  });
});

describePermissions(['POST /projects/{id}/webhooks/{webhookId}/test', 'POST /projects/{id}/webhooks/{webhookId}/rotate-secret']);
