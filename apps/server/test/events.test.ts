import { createDatabase } from '@tasklane/db';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app/app';
import { createProject, createTask, invite, openTestDatabase, registerUser, startTestApp, testConfig, type TestApp, type TestUser } from './support/harness';
import { openStream, type OpenedStream } from './support/sse-client';

const streams: OpenedStream[] = [];
async function follow(baseUrl: string, projectId: string, token: string, headers: Record<string, string> = {}, query = '') {
  const stream = await openStream(`${baseUrl}/api/v1/projects/${projectId}/events${query}`, { authorization: `Bearer ${token}`, ...headers });
  streams.push(stream);
  return stream;
}
const parse = (stream: OpenedStream) => stream.events.map((event) => ({ ...event, body: JSON.parse(event.data) }));

describe('live events on one instance', () => {
  let t: TestApp;
  let baseUrl: string;
  let owner: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ eventHeartbeatMs: 200 });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    owner = await registerUser(t, 'Owner');
    viewer = await registerUser(t, 'Viewer');
    outsider = await registerUser(t, 'Outsider');
  });
  afterAll(() => t.close());
  // Every test closes the streams it opened, so none is left open for the next (the gauge counts them).
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  /** A project of the test's own, the viewer a member of it. */
  async function liveProject() {
    const projectId = (await createProject(t, owner, 'Live')).id;
    await invite(t, owner, projectId, viewer, 'VIEWER');
    return projectId;
  }

  it('streams each change to members with an increasing id, its type and the resource', async () => {
    const projectId = await liveProject();
    const stream = await follow(baseUrl, projectId, viewer.token);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const task = await createTask(t, owner, projectId, { title: 'Live one' });
    await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { status: 'IN_PROGRESS' } });
    await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'On it' } });
    await stream.waitForEvents(3);
    const events = parse(stream);
    expect(events.map((event) => event.event)).toEqual(['task.created', 'task.updated', 'comment.created']);
    expect(events.map((event) => Number(event.id))).toEqual([...events.map((event) => Number(event.id))].sort((a, b) => a - b));
    expect(new Set(events.map((event) => event.id)).size).toBe(3);
    expect(events[1]!.body).toMatchObject({
      id: events[1]!.id,
      type: 'task.updated',
      actorId: owner.id,
      projectId,
      taskId: task.id,
      resource: { id: task.id, status: 'IN_PROGRESS' },
      changes: { status: { old: 'TODO', new: 'IN_PROGRESS' } },
    });
    // The stream's events are the history's entries.
    const history = await t.request('GET', `/api/v1/projects/${projectId}/activity?limit=3`, { token: viewer.token });
    expect(history.body.reverse()).toEqual(events.map((event) => event.body));
    stream.close();
  });

  it('sends a heartbeat comment', async () => {
    const projectId = await liveProject();
    const stream = await follow(baseUrl, projectId, viewer.token);
    await stream.waitFor(() => stream.comments.includes('heartbeat'));
    stream.close();
  });

  it('resumes after Last-Event-ID (header or query) with exactly the missed events', async () => {
    const projectId = await liveProject();
    const first = await follow(baseUrl, projectId, viewer.token);
    const task = await createTask(t, owner, projectId, { title: 'Before the drop' });
    const [seen] = await first.waitForEvents(1);
    first.close();
    await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { priority: 'HIGH' } });
    await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { priority: 'LOW' } });
    await t.request('DELETE', `/api/v1/tasks/${task.id}`, { token: owner.token });

    const byHeader = await follow(baseUrl, projectId, viewer.token, { 'last-event-id': seen!.id! });
    const byQuery = await follow(baseUrl, projectId, viewer.token, {}, `?lastEventId=${seen!.id}`);
    await byHeader.waitForEvents(3);
    await byQuery.waitForEvents(3);
    // Then live again, no repeats: one more change arrives once.
    await createTask(t, owner, projectId, { title: 'After' });
    await byHeader.waitForEvents(4);
    await byQuery.waitForEvents(4);
    for (const stream of [byHeader, byQuery]) {
      expect(stream.events.map((event) => event.event)).toEqual(['task.updated', 'task.updated', 'task.deleted', 'task.created']);
      expect(parse(stream).map((event) => event.body.resource.priority)).toEqual(['HIGH', 'LOW', 'LOW', 'MEDIUM']);
      stream.close();
    }
  });

  it('accepts the token as ?access_token= (EventSource cannot send headers)', async () => {
    const projectId = await liveProject();
    const stream = await openStream(`${baseUrl}/api/v1/projects/${projectId}/events?access_token=${viewer.token}`);
    streams.push(stream);
    expect(stream.status).toBe(200);
    await createTask(t, owner, projectId);
    await stream.waitForEvents(1);
    stream.close();
  });

  it('refuses non-members (404), missing tokens (401) and malformed event ids (400)', async () => {
    const projectId = await liveProject();
    const outside = await follow(baseUrl, projectId, outsider.token);
    expect(outside.status).toBe(404);
    expect(outside.errorBody).toMatchObject({ code: 'NOT_FOUND' });
    expect((await follow(baseUrl, 'not-an-id', owner.token)).status).toBe(404);
    const anonymous = await openStream(`${baseUrl}/api/v1/projects/${projectId}/events`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const badId = await follow(baseUrl, projectId, owner.token, { 'last-event-id': 'x1' });
    expect(badId.status).toBe(400);
    expect(badId.errorBody).toMatchObject({ code: 'BAD_REQUEST', reason: 'INVALID_EVENT_ID' });
  });

  it('counts open streams in the Prometheus gauge', async () => {
    const projectId = await liveProject();
    const gauge = async () => {
      const text = (await t.request('GET', '/metrics')).body as string;
      return Number(/tasklane_event_streams_open\{transport="sse"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    await expect.poll(gauge).toBe(0);
    const one = await follow(baseUrl, projectId, viewer.token);
    const two = await follow(baseUrl, projectId, owner.token);
    await expect.poll(gauge).toBe(2);
    one.close();
    two.close();
    await expect.poll(gauge).toBe(0);
  });

  it('ends the stream of a member removed from the project at once, and refuses them afterwards', async () => {
    const projectId = await liveProject();
    const leaving = await registerUser(t, 'Leaving');
    const membership = await invite(t, owner, projectId, leaving, 'EDITOR');
    const stream = await follow(baseUrl, projectId, leaving.token);
    expect(stream.status).toBe(200);
    const removed = await t.request('DELETE', `/api/v1/projects/${projectId}/members/${membership.id}`, { token: owner.token });
    expect(removed.status).toBe(200);
    await stream.ended;
    // The removal itself is not delivered to the member it removes: they are no longer entitled to the project.
    expect(stream.events.map((event) => event.event)).not.toContain('member.removed');
    const again = await follow(baseUrl, projectId, leaving.token);
    expect(again.status).toBe(404);
  });

  it('sends project.deleted and then ends the stream', async () => {
    const doomed = await createProject(t, owner, 'Doomed');
    const stream = await follow(baseUrl, doomed.id, owner.token);
    expect((await t.request('DELETE', `/api/v1/projects/${doomed.id}`, { token: owner.token })).status).toBe(200);
    await stream.ended;
    expect(stream.events.map((event) => event.event)).toEqual(['project.deleted']);
    expect(parse(stream)[0]!.body.resource).toMatchObject({ id: doomed.id, name: 'Doomed' });
  });
});

// Two instances share a database only on PostgreSQL; PGlite is one process's own database.
if (process.env.TEST_DB === 'postgres') {
  describe('live events across two instances on one PostgreSQL database', () => {
    let instanceA: FastifyInstance;
    let instanceB: FastifyInstance;
    let closeAll: () => Promise<void>;
    let urlA: string;
    let urlB: string;

    beforeAll(async () => {
      const { database, url, drop } = await openTestDatabase();
      const second = await createDatabase({ kind: 'postgres', url: url!, poolSize: 5 });
      instanceA = await buildApp(testConfig(), { database, logger: false });
      instanceB = await buildApp(testConfig(), { database: second, logger: false });
      urlA = await instanceA.listen({ port: 0, host: '127.0.0.1' });
      urlB = await instanceB.listen({ port: 0, host: '127.0.0.1' });
      closeAll = async () => {
        for (const stream of streams) stream.close();
        await instanceA.close();
        await instanceB.close();
        await second.close();
        await drop();
      };
    });
    afterAll(() => closeAll());

    const call = async (base: string, method: string, path: string, token?: string, body?: unknown) => {
      const response = await fetch(`${base}/api/v1${path}`, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: (await response.json()) as any };
    };

    it('a change made through A reaches a stream held open on B, and B replays what a reconnect missed', async () => {
      const registered = await call(urlA, 'POST', '/auth/register', undefined, { name: 'Ada', email: `ada-${Date.now()}@example.com`, password: 'password-123' });
      const token = registered.body.access_token as string;
      const project = await call(urlA, 'POST', '/projects', token, { name: 'Shared' });
      const onB = await follow(urlB, project.body.id, token);
      const task = await call(urlA, 'POST', '/tasks', token, { projectId: project.body.id, title: 'Made on A' });
      const [created] = await onB.waitForEvents(1);
      expect(created).toMatchObject({ event: 'task.created' });
      expect(JSON.parse(created!.data).resource).toMatchObject({ id: task.body.id, title: 'Made on A' });
      onB.close();

      await call(urlA, 'PATCH', `/tasks/${task.body.id}`, token, { status: 'DONE' });
      await call(urlB, 'PATCH', `/tasks/${task.body.id}`, token, { title: 'Renamed on B' });
      const resumed = await follow(urlB, project.body.id, token, { 'last-event-id': created!.id! });
      await resumed.waitForEvents(2);
      await call(urlA, 'DELETE', `/tasks/${task.body.id}`, token);
      await resumed.waitForEvents(3);
      expect(resumed.events.map((event) => event.event)).toEqual(['task.updated', 'task.updated', 'task.deleted']);
      expect(Number(resumed.events[0]!.id)).toBeGreaterThan(Number(created!.id));
    });
  });
}
