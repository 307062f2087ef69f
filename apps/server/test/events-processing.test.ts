import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../src/platform/config';
import { rowsOf } from '../src/platform/sql';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { startSecondInstance } from './support/second-instance';
import { openStream, type OpenedStream } from './support/sse-client';
import { startReceiver } from './support/webhook-receiver';

/*
 * The work derived from events (notifications, watchers, webhook deliveries) is written by the
 * dispatcher after the event's commit (src/events/dispatcher.ts): once each, in order per project,
 * whichever instance dispatches, and never for a write that rolled back.
 */

const fastSenders: Partial<Config> = {
  webhooks: { allowPrivate: true, pollMs: 100, timeoutMs: 2000, retryBaseMs: 100, retryMaxDelayMs: 400, retryWindowMs: 60_000, logRetentionMs: 7 * 86_400_000 },
};
/** An instance that dispatches nothing, as one stopped right after its writes committed would have. */
const notDispatching: Partial<Config> = { ...fastSenders, dispatch: { enabled: false, pollMs: 60_000, settleMs: 50 } };

const count = async (t: TestApp, query: ReturnType<typeof sql>) => Number(rowsOf<{ n: number }>(await t.database.db.execute(query))[0]!.n);

/** The event ids of the project's activity, oldest first. */
const eventIdsOf = async (t: TestApp, projectId: string) =>
  rowsOf<{ id: string }>(await t.database.db.execute(sql`select id::text as id from activity where project_id = ${projectId} order by id`)).map((row) => row.id);

/** Per event id of the project: how many deliveries it has. */
const deliveriesPerEvent = async (t: TestApp, projectId: string) =>
  rowsOf<{ eventId: string; n: number }>(
    await t.database.db.execute(sql`
      select a.id::text as "eventId", (select count(*)::int from webhook_deliveries d where d.event_id = a.id) as n
      from activity a where a.project_id = ${projectId} order by a.id`),
  );

async function hookedProject(t: TestApp, owner: TestUser, member: TestUser, url: string) {
  const projectId = (await createProject(t, owner, 'Dispatched')).id;
  await invite(t, owner, projectId, member, 'EDITOR');
  const hook = await t.request('POST', `/api/v1/projects/${projectId}/webhooks`, { token: owner.token, body: { url } });
  expect(hook.status).toBe(201);
  return { projectId, secret: hook.body.secret as string };
}

const notificationKinds = async (t: TestApp, user: TestUser) =>
  ((await t.request('GET', '/api/v1/notifications', { token: user.token })).body as { kind: string }[]).map((notification) => notification.kind).sort();

describe('events processed after commit, on one instance', () => {
  let t: TestApp;
  let baseUrl: string;
  let owner: TestUser;
  let member: TestUser;
  let secret = '';
  const receiver = startReceiver(() => secret);
  const streams: OpenedStream[] = [];

  beforeAll(async () => {
    t = await startTestApp({ ...fastSenders, eventHeartbeatMs: 200 });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    owner = await registerUser(t, 'Owner');
    member = await registerUser(t, 'Member');
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  it('yields a committed change its notification, delivery and live event exactly once', async () => {
    const project = await hookedProject(t, owner, member, receiver.url);
    secret = project.secret;
    const stream = await openStream(`${baseUrl}/api/v1/projects/${project.projectId}/events`, { authorization: `Bearer ${owner.token}` });
    streams.push(stream);
    expect(stream.status).toBe(200);
    receiver.received.length = 0;

    const task = await createTask(t, owner, project.projectId, { assigneeId: member.id });
    // Read right after the write: the request answered once its event was dispatched.
    expect(await notificationKinds(t, member)).toEqual(['member.added', 'task.assigned']);
    const [eventId] = (await eventIdsOf(t, project.projectId)).slice(-1);
    expect(await count(t, sql`select count(*)::int as n from webhook_deliveries where event_id = ${eventId}::bigint`)).toBe(1);
    expect(await count(t, sql`select count(*)::int as n from activity where id = ${eventId}::bigint and dispatched_at is not null`)).toBe(1);
    expect((await t.request('GET', `/api/v1/tasks/${task.id}/subscription`, { token: member.token })).body).toEqual({ subscribed: true });

    await expect.poll(() => receiver.received.filter((delivery) => delivery.body.id === eventId).length).toBe(1);
    await stream.waitFor(() => stream.events.some((event) => event.id === eventId));
    // Nothing more arrives: a second dispatch of the event would deliver, notify or stream it again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter((delivery) => delivery.body.id === eventId)).toHaveLength(1);
    expect(receiver.received[0]!.body).toMatchObject({ id: eventId, type: 'task.created', taskId: task.id });
    expect(receiver.received[0]!.signatureValid).toBe(true);
    expect(stream.events.filter((event) => event.id === eventId)).toHaveLength(1);
    expect(await notificationKinds(t, member)).toEqual(['member.added', 'task.assigned']);
  });

  it('yields nothing for a write that rolls back after its event was inserted', async () => {
    const project = await hookedProject(t, owner, member, receiver.url);
    secret = project.secret;
    const task = await createTask(t, owner, project.projectId);
    const before = await eventIdsOf(t, project.projectId);
    const db = t.database.db;
    // Fails the transaction at its commit, after the event's insert (its last statement) and NOTIFY.
    await db.execute(sql`create or replace function fail_at_commit() returns trigger language plpgsql as $$
      begin
        if new.resource->>'text' = 'roll me back' then raise exception 'refused for the test'; end if;
        return null;
      end $$`);
    await db.execute(sql`create constraint trigger fail_at_commit after insert on activity deferrable initially deferred for each row execute function fail_at_commit()`);
    try {
      const refused = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'roll me back', mentionIds: [member.id] } });
      expect(refused.status).toBe(500);
    } finally {
      await db.execute(sql`drop trigger fail_at_commit on activity`);
    }
    // A later write is dispatched: the rolled-back one left nothing to wait for.
    const later = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'kept', mentionIds: [member.id] } });
    expect(later.status).toBe(201);
    const after = await eventIdsOf(t, project.projectId);
    expect(after).toHaveLength(before.length + 1);
    expect((await deliveriesPerEvent(t, project.projectId)).map((row) => row.n)).toEqual([0, 0, 1, 1]);
    expect((await notificationKinds(t, member)).filter((kind) => kind === 'comment.mentioned')).toHaveLength(1);
    expect(await count(t, sql`select count(*)::int as n from comments where text = 'roll me back'`)).toBe(0);
  });

  it('dispatches the events after one whose work keeps failing, reporting that one', async () => {
    const project = await hookedProject(t, owner, member, receiver.url);
    secret = project.secret;
    const task = await createTask(t, owner, project.projectId);
    const db = t.database.db;
    await db.execute(sql`create or replace function fail_poison() returns trigger language plpgsql as $$
      begin
        if new.payload like '%"text":"poison"%' then raise exception 'refused for the test'; end if;
        return new;
      end $$`);
    await db.execute(sql`create trigger fail_poison before insert on webhook_deliveries for each row execute function fail_poison()`);
    try {
      const comment = (text: string) => t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text, mentionIds: [member.id] } });
      // Both in one batch when the dispatcher is slower than the writes: the first cannot stop the second.
      expect((await Promise.all([comment('poison'), comment('fine')])).map((response) => response.status)).toEqual([201, 201]);
      await expect.poll(() => count(t, sql`select count(*)::int as n from activity where project_id = ${project.projectId} and dispatched_at is null`)).toBe(0);
    } finally {
      await db.execute(sql`drop trigger fail_poison on webhook_deliveries`);
    }
    const byText = async (text: string) =>
      count(t, sql`select count(*)::int as n from webhook_deliveries d join activity a on a.id = d.event_id where a.project_id = ${project.projectId} and a.resource->>'text' = ${text}`);
    expect(await byText('poison')).toBe(0);
    expect(await byText('fine')).toBe(1);
    // The skipped event's notifications went with its savepoint; the next one's are there.
    expect(await count(t, sql`select count(*)::int as n from notifications where task_id = ${task.id} and kind = 'comment.mentioned'`)).toBe(1);
  });

  it('still delivers the events of a project deleted before they are sent', async () => {
    const project = await hookedProject(t, owner, member, receiver.url);
    secret = project.secret;
    receiver.received.length = 0;
    expect((await t.request('DELETE', `/api/v1/projects/${project.projectId}`, { token: owner.token })).status).toBe(200);
    await expect.poll(() => receiver.received.map((delivery) => delivery.body.type)).toEqual(['project.deleted']);
  });
});

describe('events processed after a crash between commit and dispatch', () => {
  let t: TestApp;
  let owner: TestUser;
  let member: TestUser;
  let secret = '';
  const receiver = startReceiver(() => secret);

  beforeAll(async () => {
    t = await startTestApp(notDispatching);
    owner = await registerUser(t, 'Owner');
    member = await registerUser(t, 'Member');
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
  });

  it('loses nothing and doubles nothing: the next instance dispatches each event once', async () => {
    const project = await hookedProject(t, owner, member, receiver.url);
    secret = project.secret;
    const task = await createTask(t, owner, project.projectId, { assigneeId: member.id });
    const comment = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'hi', mentionIds: [member.id] } });
    expect(comment.status).toBe(201);
    // Committed, not dispatched: no instance has written their work yet.
    const undispatched = sql`select count(*)::int as n from activity where project_id = ${project.projectId} and dispatched_at is null`;
    expect(await count(t, undispatched)).toBe(4);
    expect(await count(t, sql`select count(*)::int as n from webhook_deliveries d join activity a on a.id = d.event_id where a.project_id = ${project.projectId}`)).toBe(0);
    expect(await notificationKinds(t, member)).toEqual([]);

    // Instances that dispatch start (one after the other): each event is dispatched once.
    for (let round = 0; round < 2; round += 1) {
      const next = await startSecondInstance(t, fastSenders);
      try {
        await expect.poll(() => count(t, undispatched)).toBe(0);
      } finally {
        await next.close();
      }
    }
    expect(await notificationKinds(t, member)).toEqual(['comment.mentioned', 'member.added', 'task.assigned']);
    // project.created and member.added came before the webhook, and get none though dispatched after its creation.
    const deliveries = await deliveriesPerEvent(t, project.projectId);
    expect(deliveries.map((row) => row.n)).toEqual([0, 0, 1, 1]);
    const next = await startSecondInstance(t, fastSenders);
    try {
      await expect.poll(() => receiver.received.length).toBe(2);
    } finally {
      await next.close();
    }
    expect(receiver.received.map((delivery) => delivery.body.type)).toEqual(['task.created', 'comment.created']);
  });
});

describe('events processed by two instances', () => {
  let t: TestApp;
  let owner: TestUser;
  let member: TestUser;
  let secret = '';
  const receiver = startReceiver(() => secret);

  beforeAll(async () => {
    t = await startTestApp(fastSenders);
    owner = await registerUser(t, 'Owner');
    member = await registerUser(t, 'Member');
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
  });

  it('never both deliver one event, and deliver one task’s events in event order', async () => {
    const project = await hookedProject(t, owner, member, receiver.url);
    secret = project.secret;
    const second = await startSecondInstance(t, fastSenders);
    try {
      const tasks = await Promise.all([0, 1].map(() => createTask(t, owner, project.projectId)));
      const apps = [t.app, second.app];
      // Concurrent updates of two tasks through both instances.
      const writes = Array.from({ length: 16 }, (_, index) =>
        apps[index % 2]!.inject({
          method: 'PATCH',
          url: `/api/v1/tasks/${tasks[index % 2 === 0 ? 0 : 1]!.id}`,
          headers: { authorization: `Bearer ${index % 4 < 2 ? owner.token : member.token}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ title: `Edit ${index}` }),
        }),
      );
      expect((await Promise.all(writes)).map((response) => response.statusCode)).toEqual(Array(16).fill(200));
      const perEvent = await deliveriesPerEvent(t, project.projectId);
      expect(perEvent.slice(2).map((row) => row.n)).toEqual(Array(perEvent.length - 2).fill(1));
      // Each task's deliveries, in the sender's order (delivery id), carry increasing event ids.
      for (const task of tasks) {
        const eventIds = rowsOf<{ eventId: string }>(
          await t.database.db.execute(sql`select event_id::text as "eventId" from webhook_deliveries where ordering_key = ${task.id}::uuid order by id`),
        ).map((row) => BigInt(row.eventId));
        expect(eventIds.length).toBe(9);
        expect([...eventIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(eventIds);
      }
      // Every event arrives (the senders deliver at least once: a timed-out attempt is sent again).
      const received = () => new Set(receiver.received.map((delivery) => delivery.body.id)).size;
      await expect.poll(received, { timeout: 15_000 }).toBe(perEvent.length - 2);
    } finally {
      await second.close();
    }
  });
});
