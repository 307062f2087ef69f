import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTasklaneClient, TasklaneError, type Notification, type ProjectEvent, type TasklaneClient } from '../src/index';
import { startServer } from './server';

let server: Awaited<ReturnType<typeof startServer>>;
let unique = 0;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

async function failure(call: Promise<unknown>): Promise<TasklaneError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TasklaneError);
  return error as TasklaneError;
}

async function registered(options: Partial<Parameters<typeof createTasklaneClient>[0]> = {}): Promise<{ tl: TasklaneClient; email: string; id: string }> {
  const tl = createTasklaneClient({ baseUrl: server.baseUrl, ...options });
  const email = `user-${Date.now().toString(36)}-${(unique += 1)}@example.com`;
  const session = await tl.auth.register({ name: 'Ada', email, password: 'secret-password' });
  return { tl, email, id: session.user.id };
}

/** A fetch that answers the first `count` tRPC requests matching `path` with `answer` instead of the server's. */
function interfering(path: string, count: number, answer: (real: () => Promise<Response>) => Promise<Response>) {
  let left = count;
  const seen: Headers[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const real = () => fetch(input, init);
    if (!url.includes(`/api/trpc/${path}`)) return real();
    seen.push(new Headers(init?.headers));
    if (left <= 0) return real();
    left -= 1;
    return answer(real);
  };
  return { fetchImpl, seen };
}

describe('resource methods', () => {
  it('call the procedures as plain async functions, with typed results and errors', async () => {
    const { tl, email, id } = await registered();
    expect(await tl.auth.me()).toEqual({ id, name: 'Ada', email, locale: null });
    const project = await tl.projects.create({ name: 'Launch' });
    const task = await tl.tasks.create({ projectId: project.id, title: 'Write', priority: 'HIGH', dueDate: new Date('2030-01-02T03:04:05.000Z') });
    expect(task).toMatchObject({ title: 'Write', priority: 'HIGH', status: 'TODO', dueDate: '2030-01-02T03:04:05.000Z' });
    const taken = await failure(tl.auth.register({ name: 'Ada', email, password: 'secret-password' }));
    expect([taken.code, taken.reason, taken.httpStatus]).toEqual(['CONFLICT', 'EMAIL_TAKEN', 409]);
    // The raw tRPC client stays reachable.
    expect(await tl.trpc.query('tasks.get', { id: task.id })).toMatchObject({ id: task.id });
  });

  it('manage labels and put them on tasks: tl.labels.list/get/create/update/delete, labelIds and commentCount on tasks', async () => {
    const { tl } = await registered();
    const project = await tl.projects.create({ name: 'Labelled' });
    const bug = await tl.labels.create({ id: project.id, name: 'Bug', color: '#D73A4A' });
    const chore = await tl.labels.create({ id: project.id, name: 'chore' });
    expect(bug).toMatchObject({ name: 'Bug', color: '#d73a4a', projectId: project.id });
    const duplicate = await failure(tl.labels.create({ id: project.id, name: 'BUG' }));
    expect([duplicate.code, duplicate.reason, duplicate.httpStatus]).toEqual(['CONFLICT', 'LABEL_EXISTS', 409]);
    expect((await tl.labels.list({ id: project.id })).items.map((label) => label.name)).toEqual(['Bug', 'chore']);
    expect(await tl.labels.update({ id: project.id, labelId: chore.id, name: 'Chore' })).toMatchObject({ name: 'Chore' });
    expect((await tl.labels.get({ id: project.id, labelId: chore.id })).name).toBe('Chore');

    const task = await tl.tasks.create({ projectId: project.id, title: 'Fix', labelIds: [chore.id, bug.id] });
    expect(task).toMatchObject({ labelIds: [bug.id, chore.id].sort(), commentCount: 0 });
    await tl.comments.create({ id: task.id, text: 'On it' });
    expect((await tl.tasks.list({ projectId: project.id, labelId: [bug.id] })).items).toMatchObject([{ id: task.id, commentCount: 1 }]);
    expect(await tl.labels.delete({ id: project.id, labelId: bug.id })).toEqual({ message: 'Label deleted' });
    expect((await tl.tasks.get({ id: task.id })).labelIds).toEqual([chore.id]);
  });

  it('relate tasks: tl.relations.list/create/delete, blocked on tasks', async () => {
    const { tl } = await registered();
    const project = await tl.projects.create({ name: 'Related' });
    const design = await tl.tasks.create({ projectId: project.id, title: 'Design' });
    const build = await tl.tasks.create({ projectId: project.id, title: 'Build' });
    const relation = await tl.relations.create({ id: design.id, type: 'blocks', taskId: build.id });
    expect(relation).toMatchObject({ type: 'blocks', taskId: design.id, relatedTaskId: build.id });
    expect((await tl.tasks.get({ id: build.id })).blocked).toBe(true);
    const cycle = await failure(tl.relations.create({ id: build.id, type: 'blocks', taskId: design.id }));
    expect([cycle.code, cycle.reason, cycle.httpStatus]).toEqual(['CONFLICT', 'RELATION_CYCLE', 409]);
    expect(await tl.relations.list({ id: build.id })).toMatchObject([{ id: relation.id, type: 'blocks', direction: 'incoming', task: { id: design.id, title: 'Design' } }]);
    expect(await tl.relations.delete({ id: build.id, relationId: relation.id })).toEqual({ message: 'Relation deleted' });
    expect((await tl.tasks.get({ id: build.id })).blocked).toBe(false);
  });

  it('manage workflow states: tl.states.list/create/update/delete; a task status is any key of its project', async () => {
    const { tl } = await registered();
    const project = await tl.projects.create({ name: 'Flow' });
    expect((await tl.states.list({ id: project.id })).map((state) => state.key)).toEqual(['TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELLED']);
    const qa = await tl.states.create({ id: project.id, name: 'In QA', category: 'started' });
    expect(qa).toMatchObject({ key: 'IN_QA', position: 5 });
    const taken = await failure(tl.states.create({ id: project.id, name: 'In QA', category: 'started' }));
    expect([taken.code, taken.reason, taken.httpStatus]).toEqual(['CONFLICT', 'STATE_EXISTS', 409]);
    expect(await tl.states.update({ id: project.id, stateId: qa.id, position: 0, color: '#F59E0B' })).toMatchObject({ position: 0, color: '#f59e0b' });
    const task = await tl.tasks.create({ projectId: project.id, title: 'QA me', status: 'IN_QA' });
    expect(task.status).toBe('IN_QA');
    expect((await tl.projects.get({ id: project.id })).taskCounts).toMatchObject({ IN_QA: 1, TODO: 0 });
    expect(await tl.states.delete({ id: project.id, stateId: qa.id, moveTo: 'DONE' })).toEqual({ message: 'State deleted' });
    expect(await tl.tasks.get({ id: task.id })).toMatchObject({ status: 'DONE', completedAt: expect.any(String) });
  });

  it('list methods return a page with its cursor, and paginate walks every page lazily', async () => {
    const { tl } = await registered();
    const project = await tl.projects.create({ name: 'Paged' });
    const created = [];
    for (let index = 0; index < 5; index += 1) created.push(await tl.tasks.create({ projectId: project.id, title: `T${index}`, status: index % 2 ? 'DONE' : 'TODO' }));
    const first = await tl.tasks.list({ projectId: project.id, limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const all = [];
    for await (const task of tl.paginate(tl.tasks.list, { projectId: project.id, limit: 2 })) all.push(task.id);
    expect(all).toEqual(created.map((task) => task.id));
    const done = [];
    for await (const task of tl.paginate(tl.tasks.list, { projectId: project.id, status: ['DONE'], limit: 1 })) done.push(task.status);
    expect(done).toEqual(['DONE', 'DONE']);
    // A task's time entries are a paged list too, newest date first.
    for (const date of ['2026-03-01', '2026-03-03', '2026-03-02']) await tl.time.createEntry({ id: created[0]!.id, minutes: 5, date });
    const entries = [];
    for await (const entry of tl.paginate(tl.time.listEntries, { id: created[0]!.id, limit: 1 })) entries.push(entry.date);
    expect(entries).toEqual(['2026-03-03', '2026-03-02', '2026-03-01']);
  });

  it('tl.tasks.move places a task in the board order, read back with sort: position', async () => {
    const { tl } = await registered();
    const project = await tl.projects.create({ name: 'Ordered' });
    const [a, b, c] = [await tl.tasks.create({ projectId: project.id, title: 'A' }), await tl.tasks.create({ projectId: project.id, title: 'B' }), await tl.tasks.create({ projectId: project.id, title: 'C' })];
    const moved = await tl.tasks.move({ id: c!.id, afterId: a!.id, beforeId: b!.id }, { ifMatch: c! });
    expect(moved.position > a!.position && moved.position < b!.position).toBe(true);
    expect((await tl.tasks.list({ projectId: project.id, sort: 'position' })).items.map((task) => task.title)).toEqual(['A', 'C', 'B']);
    const done = await tl.tasks.move({ id: a!.id, status: 'DONE' });
    expect(done).toMatchObject({ status: 'DONE', completedAt: expect.any(String) });
  });
});

describe('safe writes', () => {
  it('a create whose answer was lost is retried with the same Idempotency-Key and applied once', async () => {
    const { fetchImpl, seen } = interfering('tasks.create', 1, async (real) => {
      await real(); // the server applies it; the answer never arrives
      throw new TypeError('fetch failed');
    });
    const { tl } = await registered({ fetch: fetchImpl });
    const project = await tl.projects.create({ name: 'Retry' });
    const task = await tl.tasks.create({ projectId: project.id, title: 'Once' });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.get('idempotency-key')).toBe(seen[0]!.get('idempotency-key'));
    const { items } = await tl.tasks.list({ projectId: project.id });
    expect(items.map((item) => item.id)).toEqual([task.id]);
  });

  it('a 503 or 429 is retried after its Retry-After; a non-transient refusal is not', async () => {
    const busy = () =>
      Promise.resolve(
        new Response(JSON.stringify({ error: { message: 'busy', code: -32603, data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503 } } }), {
          status: 503,
          headers: { 'content-type': 'application/json', 'retry-after': '0' },
        }),
      );
    const { fetchImpl, seen } = interfering('projects.create', 2, busy);
    const { tl } = await registered({ fetch: fetchImpl });
    const project = await tl.projects.create({ name: 'Busy' });
    expect(project.name).toBe('Busy');
    expect(seen).toHaveLength(3);
    const giveUp = createTasklaneClient({ baseUrl: server.baseUrl, token: tl.getToken(), fetch: interfering('projects.create', 10, busy).fetchImpl, maxAttempts: 2 });
    const refused = await failure(giveUp.projects.create({ name: 'Never' }));
    expect([refused.code, refused.httpStatus, refused.retryAfter]).toEqual(['SERVICE_UNAVAILABLE', 503, 0]);
    const invalid = interfering('projects.create', 0, busy);
    const once = createTasklaneClient({ baseUrl: server.baseUrl, token: tl.getToken(), fetch: invalid.fetchImpl });
    expect((await failure(once.projects.create({ name: '' }))).code).toBe('BAD_REQUEST');
    expect(invalid.seen).toHaveLength(1);
  });

  it('an update with a stale ifMatch is refused with reason STALE_VERSION and changes nothing', async () => {
    const { tl } = await registered();
    const project = await tl.projects.create({ name: 'Versions' });
    const read = await tl.tasks.create({ projectId: project.id, title: 'Original' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const changed = await tl.tasks.update({ id: read.id, title: 'Changed elsewhere' }, { ifMatch: read });
    const stale = await failure(tl.tasks.update({ id: read.id, title: 'Mine' }, { ifMatch: read }));
    expect([stale.code, stale.reason, stale.httpStatus]).toEqual(['PRECONDITION_FAILED', 'STALE_VERSION', 412]);
    expect((await tl.tasks.get({ id: read.id })).title).toBe(changed.title);
  });

  it('a token provider is asked before each call, and onUnauthorized may refresh and retry once', async () => {
    const { tl: owner } = await registered();
    const good = owner.getToken()!;
    let current = 'expired-token';
    const refreshed: TasklaneError[] = [];
    const tl = createTasklaneClient({
      baseUrl: server.baseUrl,
      token: () => current,
      onUnauthorized: (error) => {
        refreshed.push(error);
        current = good;
        return true;
      },
    });
    expect((await tl.auth.me()).id).toBeTruthy();
    expect(refreshed.map((error) => error.httpStatus)).toEqual([401]);
    const giveUp = createTasklaneClient({ baseUrl: server.baseUrl, token: 'nope', onUnauthorized: () => false });
    expect((await failure(giveUp.auth.me())).code).toBe('UNAUTHORIZED');
  });
});

describe('live events', () => {
  it('deliver a change made right after subscribe resolves, and resume after lastEventId', async () => {
    const { tl } = await registered();
    const project = await tl.projects.create({ name: 'Live' });
    const seen: ProjectEvent[] = [];
    let arrived: () => void = () => {};
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const subscription = await tl.events.subscribe(
      { projectId: project.id },
      {
        onEvent: (event) => {
          seen.push(event);
          if (seen.length === 2) arrived();
        },
      },
    );
    const first = await tl.tasks.create({ projectId: project.id, title: 'Right away' });
    await tl.tasks.update({ id: first.id, status: 'DONE' });
    await arrival;
    subscription.close();
    expect(seen.map((event) => event.type)).toEqual(['task.created', 'task.updated']);
    expect(subscription.lastEventId).toBe(seen[1]!.id);

    const replayed: string[] = [];
    let replayedAll: () => void = () => {};
    const replay = new Promise<void>((resolve) => (replayedAll = resolve));
    const resumed = await tl.events.subscribe(
      { projectId: project.id, lastEventId: seen[0]!.id },
      {
        onEvent: (event) => {
          replayed.push(event.type);
          if (replayed.length === 1) replayedAll();
        },
      },
    );
    await replay;
    resumed.close();
    expect(replayed).toEqual(['task.updated']);
  });

  it('reconnect after a dropped connection with Last-Event-ID, losing and repeating nothing', async () => {
    const requests: Headers[] = [];
    let cut = false;
    // Ends the first stream right after its first event, as a proxy or a restart would.
    const fetchImpl: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).includes('/events') || !response.body) return response;
      requests.push(new Headers(init?.headers));
      if (cut) return response;
      cut = true;
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          if (/(^|\n)id: /.test(new TextDecoder().decode(value))) {
            await reader.cancel();
            controller.close();
          }
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const { tl } = await registered({ fetch: fetchImpl });
    const project = await tl.projects.create({ name: 'Dropped' });
    const seen: ProjectEvent[] = [];
    let both: () => void = () => {};
    let failed: (error: unknown) => void = () => {};
    const arrived = new Promise<void>((resolve, reject) => ((both = resolve), (failed = reject)));
    const subscription = await tl.events.subscribe(
      { projectId: project.id },
      {
        onEvent: (event) => {
          seen.push(event);
          // The second change is made once the first stream has been cut: it must come through the next.
          if (seen.length === 1) tl.tasks.create({ projectId: project.id, title: 'After the drop' }).catch(failed);
          if (seen.length === 2) both();
        },
      },
    );
    await tl.tasks.create({ projectId: project.id, title: 'Before the drop' });
    await arrived;
    subscription.close();
    expect(seen.map((event) => event.resource.title)).toEqual(['Before the drop', 'After the drop']);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.get('last-event-id')).toBeNull();
    expect(requests[1]!.get('last-event-id')).toBe(seen[0]!.id);
  });

  it('a refused subscription rejects with a TasklaneError', async () => {
    const { tl } = await registered();
    const refused = await failure(tl.events.subscribe({ projectId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b' }, { onEvent: () => {} }));
    expect(refused.httpStatus).toBe(404);
  });
});

describe('notifications', () => {
  it('are listed, counted, read, and delivered live to a subscriber; watching a task is a method too', async () => {
    const owner = await registered();
    const colleague = await registered();
    const project = await owner.tl.projects.create({ name: 'Inbox' });
    const member = await owner.tl.members.invite({ id: project.id, email: colleague.email, role: 'EDITOR' });
    expect(await colleague.tl.members.get({ id: project.id, memberId: member.id })).toEqual(member);
    const task = await owner.tl.tasks.create({ projectId: project.id, title: 'Review' });

    const live: Notification[] = [];
    let arrived: () => void = () => {};
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const subscription = await owner.tl.notifications.subscribe({}, { onNotification: (notification) => (live.push(notification), arrived()) });
    const comment = await colleague.tl.comments.create({ id: task.id, text: '@Ada please look', mentionIds: [owner.id] });
    expect(comment.mentionIds).toEqual([owner.id]);
    await arrival;
    subscription.close();
    expect(live[0]).toMatchObject({ kind: 'comment.mentioned', taskId: task.id, commentId: comment.id, actorId: colleague.id, readAt: null });
    expect(subscription.lastEventId).toMatch(/^\d+$/);

    expect(await owner.tl.notifications.unreadCount()).toEqual({ count: 1 });
    const page = await owner.tl.notifications.list({ unread: 'true' });
    expect(page.items.map((item) => item.id)).toEqual([live[0]!.id]);
    expect((await owner.tl.notifications.markRead({ id: live[0]!.id })).readAt).not.toBeNull();
    expect(await owner.tl.notifications.markAllRead()).toEqual({ marked: 0 });

    expect(await owner.tl.watching.get({ id: task.id })).toEqual({ subscribed: true });
    expect(await owner.tl.watching.unwatch({ id: task.id })).toEqual({ subscribed: false });
    expect(await owner.tl.watching.watch({ id: task.id })).toEqual({ subscribed: true });
  });
});
