import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WEB_APP_ROOT } from '../../src/transport/rest/web-app';
import { createProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from '../support/harness';
import { openStream } from '../support/sse-client';
import { startReceiver } from '../support/webhook-receiver';

const onPostgres = process.env.TEST_DB === 'postgres';

/** The exposition as `series{labels}` → value, for the series named. */
async function scrape(t: TestApp): Promise<{ text: string; value: (series: string) => number | undefined }> {
  const response = await t.app.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const values = new Map<string, number>();
  for (const line of response.body.split('\n')) {
    const match = /^(\S+) (\S+)$/.exec(line);
    if (match) values.set(match[1]!, Number(match[2]));
  }
  return { text: response.body, value: (series) => values.get(series) };
}

async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('GET /metrics', () => {
  let t: TestApp;
  let owner: TestUser;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp({ authRateLimit: 2 });
    owner = await registerUser(t, 'Metrics');
    projectId = (await createProject(t, owner)).id;
  });
  afterAll(() => t?.close());

  it('counts requests by route template, method and status class, never by raw URL', async () => {
    const task = await createTask(t, owner, projectId);
    for (let index = 0; index < 3; index += 1) expect((await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/tasks/${task.id}`)).status).toBe(401);
    expect((await t.request('GET', '/api/v1/tasks/not-a-task-id-at-all', { token: owner.token })).status).toBe(404);
    // refused before trpc-to-openapi's handler runs (malformed JSON): still named by its template
    expect((await t.request('POST', '/api/v1/tasks', { token: owner.token, rawBody: '{bad', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await t.request('GET', `/api/trpc/tasks.get?input=${encodeURIComponent(JSON.stringify({ id: task.id }))}`, { token: owner.token })).status).toBe(200);
    await t.app.inject({ method: 'GET', url: `/api/v1/no-such-route/${task.id}`, headers: { accept: 'application/json' } });

    const { text, value } = await scrape(t);
    const series = (route: string, method: string, status: string) => `{method="${method}",route="${route}",status_class="${status}"}`;
    expect(value(`http_requests_total${series('/api/v1/tasks/{id}', 'GET', '2xx')}`)).toBe(3);
    expect(value(`http_requests_total${series('/api/v1/tasks/{id}', 'GET', '4xx')}`)).toBe(2);
    expect(value(`http_requests_total${series('/api/v1/tasks', 'POST', '4xx')}`)).toBe(1);
    expect(value(`http_requests_total${series('/api/v1/tasks', 'POST', '2xx')}`)).toBe(1);
    expect(value(`http_requests_total${series('/api/trpc/tasks.get', 'GET', '2xx')}`)).toBe(1);
    expect(value(`http_requests_total${series('unmatched', 'GET', '4xx')}`)).toBeGreaterThanOrEqual(1);
    expect(value(`http_request_duration_seconds_count${series('/api/v1/tasks/{id}', 'GET', '2xx')}`)).toBe(3);
    expect(value(`http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/api/v1/tasks/{id}",status_class="2xx"}`)).toBe(3);
    expect(value(`http_request_duration_seconds_sum${series('/api/v1/tasks/{id}', 'GET', '2xx')}`)).toBeGreaterThan(0);
    // no id of any kind in a label: the series stay bounded
    expect(text).not.toContain(task.id);
    expect(text).not.toContain('not-a-task-id-at-all');
    expect(text).not.toContain('no-such-route');
  });

  it('names tRPC calls by procedure, batches as one route, and never a name a client made up', async () => {
    const task = await createTask(t, owner, projectId);
    const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
    expect((await t.request('GET', `/api/trpc/tasks.get?batch=1&input=${input({ 0: { id: task.id } })}`, { token: owner.token })).status).toBe(200);
    expect((await t.request('POST', '/api/trpc/projects.create', { token: owner.token, body: { name: 'Over tRPC' } })).status).toBe(200);
    const batch = await t.request('GET', `/api/trpc/tasks.get,projects.get?batch=1&input=${input({ 0: { id: task.id }, 1: { id: projectId } })}`, { token: owner.token });
    expect(batch.status).toBe(200);
    expect((await t.request('GET', '/api/trpc/no.such.procedure-made-up', { token: owner.token })).status).toBe(404);
    // tRPC answers a batch call by call (207 when one fails): a made-up name inside is no label either.
    await t.request('GET', `/api/trpc/tasks.get,made-up-too?batch=1&input=${input({ 0: { id: task.id }, 1: {} })}`, { token: owner.token });

    const { text, value } = await scrape(t);
    expect(value('http_requests_total{method="GET",route="/api/trpc/tasks.get",status_class="2xx"}')).toBeGreaterThanOrEqual(1);
    expect(value('http_requests_total{method="POST",route="/api/trpc/projects.create",status_class="2xx"}')).toBe(1);
    expect(value('http_requests_total{method="GET",route="/api/trpc/(batch)",status_class="2xx"}')).toBe(1);
    expect(text).not.toContain('/api/trpc/:path');
    expect(text).not.toContain('made-up');
  });

  it('counts the web app\'s hashed assets as one route', async () => {
    const assets = await readdir(join(WEB_APP_ROOT, 'assets'));
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) expect((await t.app.inject({ method: 'GET', url: `/assets/${asset}` })).statusCode).toBe(200);
    const { text, value } = await scrape(t);
    expect(value('http_requests_total{method="GET",route="/assets/*",status_class="2xx"}')).toBe(assets.length);
    for (const asset of assets) expect(text).not.toContain(asset);
  });

  it('serves the process metrics: CPU, memory, event-loop lag, GC', async () => {
    const { text, value } = await scrape(t);
    expect(value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(value('nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
  });

  it('reports the database pool and every statement\'s duration', async () => {
    const before = (await scrape(t)).value('tasklane_db_query_duration_seconds_count')!;
    await t.request('GET', `/api/v1/projects/${projectId}`, { token: owner.token });
    const { value } = await scrape(t);
    expect(value('tasklane_db_query_duration_seconds_count')).toBeGreaterThan(before);
    expect(value('tasklane_db_query_duration_seconds_sum')).toBeGreaterThan(0);
    // the test database's pool: 5 PostgreSQL connections, or PGlite's one
    expect(value('tasklane_db_pool_connections_max')).toBe(onPostgres ? 5 : 1);
    expect(value('tasklane_db_pool_waiting')).toBe(0);
    // once the request's after-commit work (event processors, the poller) is done, the pool is idle
    await vi.waitFor(async () => {
      const idle = await scrape(t);
      expect(idle.value('tasklane_db_pool_connections_in_use')).toBe(0);
      expect(idle.value('tasklane_db_pool_waiting')).toBe(0);
    }, { timeout: 10_000, interval: 50 });
  });

  it.runIf(onPostgres)('counts the pool connections in use while statements are blocked', async () => {
    // another session locks the tasks table, so the service's task reads hold their connections
    const other = postgres(t.databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      let reads: Promise<unknown> | undefined;
      await other.begin(async (sql) => {
        await sql`lock table tasks in access exclusive mode`;
        reads = Promise.all(Array.from({ length: 3 }, () => t.request('GET', `/api/v1/tasks/project/${projectId}`, { token: owner.token })));
        const { value } = await eventually(() => scrape(t), ({ value }) => value('tasklane_db_pool_connections_in_use')! >= 1);
        expect(value('tasklane_db_pool_connections_in_use')).toBeLessThanOrEqual(5);
        expect(value('tasklane_db_pool_waiting')).toBeGreaterThanOrEqual(0);
      });
      await reads;
      // Polled: a session's last-use stamp (at most once a minute, in the background) may hold a connection a moment.
      await eventually(() => scrape(t), ({ value }) => value('tasklane_db_pool_connections_in_use') === 0);
    } finally {
      await other.end();
    }
  });

  it('counts rate-limit rejections by limit', async () => {
    const attempt = () => t.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: 'wrong-password' }, headers: { 'x-forwarded-for': '203.0.113.9' } });
    const statuses = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await attempt()).status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(1);
    const { value } = await scrape(t);
    expect(value('tasklane_rate_limit_rejections_total{limit="auth_ip"}')).toBe(statuses.filter((status) => status === 429).length);
    expect(value('tasklane_rate_limit_rejections_total{limit="token"}')).toBe(0);
  });

  it('follows live streams as they open and close', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address() as { port: number };
    const stream = await openStream(`http://127.0.0.1:${address.port}/api/v1/projects/${projectId}/events`, { authorization: `Bearer ${owner.token}` });
    expect(stream.status).toBe(200);
    await eventually(() => scrape(t), ({ value }) => value('tasklane_event_streams_open{transport="sse"}') === 1);
    stream.close();
    await eventually(() => scrape(t), ({ value }) => value('tasklane_event_streams_open{transport="sse"}') === 0);
  });

  it('reports webhook deliveries by outcome and the outbox depth', async () => {
    let secret = '';
    const receiver = startReceiver(() => secret);
    await receiver.start();
    try {
      const hook = await t.request('POST', `/api/v1/projects/${projectId}/webhooks`, { token: owner.token, body: { url: receiver.url } });
      expect(hook.status).toBe(201);
      secret = hook.body.secret;
      await createTask(t, owner, projectId, { title: 'delivered' });
      await eventually(() => scrape(t), ({ value }) => value('tasklane_webhook_deliveries_total{outcome="delivered"}')! >= 1);
      expect(receiver.received.length).toBeGreaterThanOrEqual(1);

      receiver.answerWith(500);
      await createTask(t, owner, projectId, { title: 'refused' });
      const { value } = await eventually(() => scrape(t), ({ value }) => value('tasklane_webhook_deliveries_total{outcome="retrying"}')! >= 1);
      // the refused delivery waits for its retry
      expect(value('tasklane_webhook_outbox_depth')).toBeGreaterThanOrEqual(1);
      expect(value('tasklane_webhook_deliveries_total{outcome="failed"}')).toBe(0);
    } finally {
      await receiver.stop();
    }
  });

  it('keeps the counts of two apps in one process apart', async () => {
    const other = await startTestApp();
    try {
      await other.request('GET', '/api/v1/projects');
      const { value } = await scrape(other);
      expect(value('http_requests_total{method="GET",route="/api/v1/projects",status_class="4xx"}')).toBe(1);
      expect(value('http_requests_total{method="GET",route="/api/v1/tasks/{id}",status_class="2xx"}')).toBeUndefined();
      expect(value('process_resident_memory_bytes')).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });
});
