import { randomBytes } from 'node:crypto';
import { get, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { openStream, SseParser, type OpenedStream, type ServerSentEvent } from './support/sse-client';

/**
 * A client that stops reading is cut off once its stream falls `eventMaxQueued` events behind.
 * The limit is small here so that filling the kernel's socket buffers and then the queue takes a
 * few dozen changes; each change carries ~150 KB (a 50 000-character description, old and new).
 */
const MAX_QUEUED = 20;
/**
 * Far more changes (~45 MB) than the socket buffers (a few MB on loopback) and the queue hold
 * together: without the cut-off the test fails at this bound.
 */
const MAX_CHANGES = 300;
/** Each change is a ~150 KB write to the database; on a loaded machine a few hundred of them take a while. */
const TIMEOUT_MS = 180_000;

/**
 * A stream read with node:http, paused as soon as it is open: the response's buffer fills, then
 * node stops reading the socket, and the kernel's buffers fill behind it.
 */
interface StalledStream {
  events: ServerSentEvent[];
  /** Drops the connection from this side. */
  close(): void;
  /** Reads everything the server sent; resolves with whether the response ended cleanly (its last chunk arrived). */
  readToEnd(): Promise<{ complete: boolean }>;
}

function openStalled(url: string, token: string): Promise<StalledStream> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (response: IncomingMessage) => {
      if (response.statusCode !== 200) return reject(new Error(`stream refused: ${response.statusCode}`));
      const parser = new SseParser();
      const finished = new Promise<{ complete: boolean }>((settle) => {
        response.on('end', () => settle({ complete: response.complete }));
        // A dropped connection ends the response with 'aborted' and an error rather than 'end'.
        response.on('error', () => settle({ complete: false }));
        response.on('close', () => settle({ complete: response.complete }));
      });
      response.pause();
      resolve({
        events: parser.events,
        close: () => request.destroy(),
        readToEnd() {
          response.on('data', (chunk: Buffer) => parser.push(chunk));
          response.resume();
          return finished;
        },
      });
    });
    request.on('error', reject);
  });
}

async function openStreamsOf(t: TestApp, transport: 'sse' | 'trpc'): Promise<number> {
  const text = (await t.request('GET', '/metrics')).body as string;
  return Number(new RegExp(`tasklane_event_streams_open\\{transport="${transport}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
}

/** Rewrites a task's description until the open-streams gauge falls to `openAfter`; returns the descriptions in order. */
async function changeUntilCutOff(t: TestApp, user: TestUser, taskId: string, transport: 'sse' | 'trpc', openAfter: number): Promise<string[]> {
  const descriptions: string[] = [];
  while ((await openStreamsOf(t, transport)) > openAfter) {
    if (descriptions.length >= MAX_CHANGES) throw new Error(`the stalled stream was still open after ${MAX_CHANGES} changes`);
    const description = randomBytes(37_500).toString('base64');
    const patched = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: user.token, body: { description } });
    expect(patched.status).toBe(200);
    descriptions.push(description);
  }
  return descriptions;
}

const bodyOf = (event: ServerSentEvent) => JSON.parse(event.data) as { id: string; type: string; resource: { description: string } };

describe('a client too slow for its live stream', () => {
  let t: TestApp;
  let baseUrl: string;
  let owner: TestUser;
  let projectId: string;
  const streams: OpenedStream[] = [];
  const stalledStreams: StalledStream[] = [];

  beforeAll(async () => {
    // A long heartbeat: it is also the time a cut-off client gets to read what remains, and this test reads it.
    t = await startTestApp({ eventMaxQueued: MAX_QUEUED, eventHeartbeatMs: 120_000 });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    owner = await registerUser(t, 'Owner');
  });
  // Each test's own project: its history and streams are the test's alone.
  beforeEach(async () => {
    projectId = (await createProject(t, owner, 'Busy')).id;
  });
  afterAll(async () => {
    for (const stream of [...streams, ...stalledStreams]) stream.close();
    await t.close();
  });

  const newestEventId = async () => ((await t.request('GET', `/api/v1/projects/${projectId}/activity?limit=1`, { token: owner.token })).body as { id: string }[])[0]!.id;

  it('SSE: the stalled stream is closed with a stream-error frame; others get every event; Last-Event-ID resumes', async () => {
    const task = await createTask(t, owner, projectId, { title: 'Rewritten often' });
    const start = await newestEventId();
    const before = await openStreamsOf(t, 'sse');
    const stalled = await openStalled(`${baseUrl}/api/v1/projects/${projectId}/events`, owner.token);
    stalledStreams.push(stalled);
    const reader = await openStream(`${baseUrl}/api/v1/projects/${projectId}/events`, { authorization: `Bearer ${owner.token}` });
    streams.push(reader);
    await expect.poll(() => openStreamsOf(t, 'sse')).toBe(before + 2);

    // Only the stalled stream ends: the gauge falls back to `before + 1`, the reader's stream.
    const descriptions = await changeUntilCutOff(t, owner, task.id, 'sse', before + 1);
    expect(descriptions.length).toBeGreaterThan(MAX_QUEUED);

    // The reader kept up and has every change, in order.
    await reader.waitForEvents(descriptions.length, 60_000);
    expect(reader.events.map((event) => bodyOf(event).resource.description)).toEqual(descriptions);

    // The stalled client, reading at last, finds the events the server had sent, then why it ends, then a clean end.
    const { complete } = await stalled.readToEnd();
    expect(complete).toBe(true);
    const last = stalled.events.at(-1)!;
    expect(last.event).toBe('stream-error');
    expect(last.id).toBeUndefined();
    expect(JSON.parse(last.data)).toMatchObject({ code: 'TOO_MANY_REQUESTS', reason: 'SLOW_CONSUMER' });
    const received = stalled.events.slice(0, -1);
    expect(received.length).toBeLessThan(descriptions.length - MAX_QUEUED);
    expect(received.map((event) => bodyOf(event).resource.description)).toEqual(descriptions.slice(0, received.length));

    // Resuming after the last event it got replays exactly the rest, then continues live.
    const resumed = await openStream(`${baseUrl}/api/v1/projects/${projectId}/events`, {
      authorization: `Bearer ${owner.token}`,
      'last-event-id': received.at(-1)?.id ?? start,
    });
    streams.push(resumed);
    await resumed.waitForEvents(descriptions.length - received.length, 60_000);
    await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { title: 'Caught up' } });
    await resumed.waitForEvents(descriptions.length - received.length + 1, 60_000);
    const replayed = resumed.events.map(bodyOf);
    expect(replayed.slice(0, -1).map((event) => event.resource.description)).toEqual(descriptions.slice(received.length));
    expect(replayed.at(-1)).toMatchObject({ type: 'task.updated', resource: { title: 'Caught up' } });

    reader.close();
    resumed.close();
    await expect.poll(() => openStreamsOf(t, 'sse')).toBe(before);
  }, TIMEOUT_MS);

  it('tRPC subscription: the stalled connection is dropped; resuming from its last event id replays the rest', async () => {
    const task = await createTask(t, owner, projectId, { title: 'Rewritten over tRPC' });
    const start = await newestEventId();
    const subscribe = (lastEventId?: string) =>
      `${baseUrl}/api/trpc/projects.events?input=${encodeURIComponent(JSON.stringify({ projectId, ...(lastEventId ? { lastEventId } : {}) }))}`;
    const before = await openStreamsOf(t, 'trpc');
    const stalled = await openStalled(subscribe(), owner.token);
    stalledStreams.push(stalled);
    await expect.poll(() => openStreamsOf(t, 'trpc')).toBe(before + 1);

    const descriptions = await changeUntilCutOff(t, owner, task.id, 'trpc', before);
    expect(descriptions.length).toBeGreaterThan(MAX_QUEUED);

    // No error event: tRPC's client gives up on an error, but reconnects after a lost connection.
    const { complete } = await stalled.readToEnd();
    expect(complete).toBe(false);
    const received = stalled.events.filter((event) => event.id);
    expect(stalled.events.filter((event) => !['connected', 'ping'].includes(event.event ?? '') && !event.id)).toEqual([]);
    expect(received.length).toBeLessThan(descriptions.length - MAX_QUEUED);
    expect(received.map((event) => bodyOf(event).resource.description)).toEqual(descriptions.slice(0, received.length));

    const resumed = await openStream(subscribe(received.at(-1)?.id ?? start), { authorization: `Bearer ${owner.token}` });
    streams.push(resumed);
    await resumed.waitFor(() => resumed.events.filter((event) => event.id).length >= descriptions.length - received.length, 60_000);
    const replayed = resumed.events.filter((event) => event.id).map(bodyOf);
    expect(replayed.map((event) => event.resource.description)).toEqual(descriptions.slice(received.length));
    resumed.close();
    await expect.poll(() => openStreamsOf(t, 'trpc')).toBe(before);
  }, TIMEOUT_MS);
});

describe('a cut-off client that still does not read', () => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startTestApp({ eventMaxQueued: MAX_QUEUED, eventHeartbeatMs: 300 });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  // The server's own count of open sockets: a client that never reads cannot tell a dropped connection from a quiet one.
  const connections = () => new Promise<number>((resolve, reject) => t.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

  it('is disconnected one heartbeat interval after the cut-off, without the rest of its output', async () => {
    const owner = await registerUser(t, 'Owner');
    const project = await createProject(t, owner, 'Busy');
    const task = await createTask(t, owner, project.id, { title: 'Rewritten often' });
    const before = await connections();
    const stalled = await openStalled(`${baseUrl}/api/v1/projects/${project.id}/events`, owner.token);
    await expect.poll(() => openStreamsOf(t, 'sse')).toBe(1);
    expect(await connections()).toBe(before + 1);

    await changeUntilCutOff(t, owner, task.id, 'sse', 0);
    await expect.poll(connections, { timeout: 30_000 }).toBe(before);
    const { complete } = await stalled.readToEnd();
    expect(complete).toBe(false);
    expect(stalled.events.map((event) => event.event)).not.toContain('stream-error');
  }, TIMEOUT_MS);
});
