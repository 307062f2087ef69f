import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/sql';
import { expectErrorBody } from './support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { startSecondInstance } from './support/second-instance';
import { openStream, type OpenedStream } from './support/sse-client';

interface Item {
  id: string;
  kind: string;
  projectId: string;
  projectName: string;
  taskId: string | null;
  taskTitle: string | null;
  commentId: string | null;
  actorId: string | null;
  actorName: string | null;
  createdAt: string;
  readAt: string | null;
}

const nextLink = (headers: Record<string, unknown>) => /^<([^>]+)>; rel="next"$/.exec(String(headers.link ?? ''))?.[1];
const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

describe('notifications', () => {
  let t: TestApp;
  let baseUrl: string;
  let owner: TestUser;
  let editor: TestUser;
  let assignee: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  const streams: OpenedStream[] = [];

  beforeAll(async () => {
    // The job runs when a test says so (runOnce), not on its own in the middle of one.
    t = await startTestApp({ eventHeartbeatMs: 200, reminders: { windowSeconds: 86_400, pollMs: 3_600_000 } });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    owner = await registerUser(t, 'Olive Owner');
    editor = await registerUser(t, 'Eddie Editor');
    assignee = await registerUser(t, 'Ada Assignee');
    viewer = await registerUser(t, 'Vera Viewer');
    outsider = await registerUser(t, 'Otto Outsider');
  });
  afterAll(() => t.close());
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  /** A project of the test's own with the cast as members (editor and assignee EDITOR, viewer VIEWER). */
  async function team(name = 'Team') {
    const project = await createProject(t, owner, name);
    for (const [user, role] of [[editor, 'EDITOR'], [assignee, 'EDITOR'], [viewer, 'VIEWER']] as const) await invite(t, owner, project.id, user, role);
    return project;
  }

  /** The user's notifications (all pages) of one project, newest first. */
  async function inbox(user: TestUser, projectId: string, query = ''): Promise<Item[]> {
    const items: Item[] = [];
    let url: string | undefined = `/api/v1/notifications${query}`;
    while (url) {
      const response = await t.request('GET', url, { token: user.token });
      expect(response.status).toBe(200);
      items.push(...(response.body as Item[]));
      url = nextLink(response.headers);
    }
    return items.filter((item) => item.projectId === projectId);
  }
  const kinds = async (user: TestUser, projectId: string) => (await inbox(user, projectId)).map((item) => item.kind);

  const comment = async (user: TestUser, taskId: string, body: Record<string, unknown>) => {
    const response = await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: user.token, body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as { id: string; mentionIds: string[] };
  };
  const patchTask = async (user: TestUser, taskId: string, body: Record<string, unknown>) => {
    const response = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: user.token, body });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  };
  const subscription = (user: TestUser, taskId: string, method = 'GET') => t.request(method, `/api/v1/tasks/${taskId}/subscription`, { token: user.token });

  it('member.added and task.assigned reach the invited and the assignee with display text, never the actor', async () => {
    const project = await team('Launch');
    const task = await createTask(t, owner, project.id, { title: 'Write the post', assigneeId: assignee.id });
    const [assigned, added] = await inbox(assignee, project.id);
    expect(assigned).toEqual({
      id: expect.any(String),
      kind: 'task.assigned',
      projectId: project.id,
      projectName: 'Launch',
      taskId: task.id,
      taskTitle: 'Write the post',
      commentId: null,
      actorId: owner.id,
      actorName: 'Olive Owner',
      createdAt: expect.any(String),
      readAt: null,
    });
    expect(added).toMatchObject({ kind: 'member.added', projectId: project.id, taskId: null, taskTitle: null, actorId: owner.id });
    expect(await kinds(owner, project.id)).toEqual([]);

    // Assigning oneself notifies nobody; another's assignment reaches the new assignee only.
    await patchTask(editor, task.id, { assigneeId: editor.id });
    expect(await kinds(editor, project.id)).toEqual(['member.added']);
    await patchTask(assignee, task.id, { assigneeId: owner.id });
    expect(await kinds(owner, project.id)).toEqual(['task.assigned']);
    expect(await kinds(assignee, project.id)).toEqual(['task.assigned', 'member.added']);
    // The current assignee's id in upper case is no change: nobody is notified again.
    await patchTask(assignee, task.id, { assigneeId: owner.id.toUpperCase() });
    expect(await kinds(owner, project.id)).toEqual(['task.assigned']);
  });

  it('comments reach watchers once each: a mention wins over comment.created, the author hears nothing', async () => {
    const project = await team();
    const task = await createTask(t, owner, project.id, { assigneeId: assignee.id });
    // The creator (owner) and the assignee watch the task; the viewer does not.
    const mention = await comment(editor, task.id, { text: '@Ada can you check?', mentionIds: [assignee.id] });
    expect(mention.mentionIds).toEqual([assignee.id]);
    const [ownerFirst] = await inbox(owner, project.id);
    expect(ownerFirst).toMatchObject({ kind: 'comment.created', commentId: mention.id, actorId: editor.id, actorName: 'Eddie Editor' });
    expect(await kinds(assignee, project.id)).toEqual(['comment.mentioned', 'task.assigned', 'member.added']);
    expect(await kinds(editor, project.id)).toEqual(['member.added']);
    expect(await kinds(viewer, project.id)).toEqual(['member.added']);

    // The commenter now watches too: the assignee's reply reaches owner and editor.
    await comment(assignee, task.id, { text: 'Done' });
    expect((await kinds(editor, project.id))[0]).toBe('comment.created');
    expect((await kinds(owner, project.id)).slice(0, 2)).toEqual(['comment.created', 'comment.created']);
    expect((await kinds(assignee, project.id))[0]).toBe('comment.mentioned');
  });

  it('a status change reaches the watchers but not the actor; an assignment in the same change wins', async () => {
    const project = await team();
    const task = await createTask(t, owner, project.id, { assigneeId: assignee.id });
    await comment(editor, task.id, { text: 'Watching' });
    await patchTask(assignee, task.id, { status: 'IN_PROGRESS' });
    expect((await inbox(owner, project.id))[0]).toMatchObject({ kind: 'task.status_changed', actorId: assignee.id, taskId: task.id });
    expect((await kinds(editor, project.id))[0]).toBe('task.status_changed');
    expect((await kinds(assignee, project.id))[0]).toBe('comment.created');

    await patchTask(owner, task.id, { status: 'IN_REVIEW', assigneeId: editor.id });
    const editorKinds = await kinds(editor, project.id);
    expect(editorKinds.slice(0, 2)).toEqual(['task.assigned', 'task.status_changed']);
    expect((await kinds(assignee, project.id))[0]).toBe('task.status_changed');
    // A change of other fields notifies nobody.
    const before = (await inbox(assignee, project.id)).length;
    await patchTask(owner, task.id, { title: 'Renamed' });
    expect((await inbox(assignee, project.id)).length).toBe(before);
  });

  it('lets a member watch and unwatch a task; an opt-out survives their comments, a mention undoes it', async () => {
    const project = await team();
    const task = await createTask(t, owner, project.id);
    expect((await subscription(owner, task.id)).body).toEqual({ subscribed: true });
    expect((await subscription(viewer, task.id)).body).toEqual({ subscribed: false });
    expect((await subscription(viewer, task.id, 'PUT')).body).toEqual({ subscribed: true });
    expect((await subscription(outsider, task.id)).status).toBe(404);
    expect((await subscription(outsider, task.id, 'PUT')).status).toBe(404);

    const off = await subscription(owner, task.id, 'DELETE');
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ subscribed: false });
    await comment(editor, task.id, { text: 'First' });
    expect(await kinds(owner, project.id)).toEqual([]);
    expect((await kinds(viewer, project.id))[0]).toBe('comment.created');
    await comment(owner, task.id, { text: 'My own comment does not resubscribe me' });
    expect((await subscription(owner, task.id)).body).toEqual({ subscribed: false });
    await comment(editor, task.id, { text: '@Olive look', mentionIds: [owner.id] });
    expect(await kinds(owner, project.id)).toEqual(['comment.mentioned']);
    expect((await subscription(owner, task.id)).body).toEqual({ subscribed: true });
    await comment(editor, task.id, { text: 'And again' });
    expect((await kinds(owner, project.id))[0]).toBe('comment.created');
  });

  it('refuses mentions of non-members, repeated or malformed ids (400 naming mentionIds), on create and edit', async () => {
    const project = await team();
    const task = await createTask(t, owner, project.id);
    const refused = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: editor.token, body: { text: 'Hi', mentionIds: [outsider.id] } });
    expectErrorBody(refused, 400, { reason: 'MENTION_NOT_MEMBER' });
    expect(refused.body.message).toContain('mentionIds');
    for (const mentionIds of [[viewer.id, viewer.id], ['not-an-id'], Array.from({ length: 51 }, () => viewer.id), 'x']) {
      const response = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: editor.token, body: { text: 'Hi', mentionIds } });
      expect(response.status, JSON.stringify(mentionIds).slice(0, 80)).toBe(400);
      expect(JSON.stringify(response.body)).toContain('mentionIds');
    }
    expect(await kinds(outsider, project.id)).toEqual([]);

    // An edit notifies only the users it newly mentions, and the mentions stay when left out.
    const created = await comment(editor, task.id, { text: 'Hi @Vera', mentionIds: [viewer.id] });
    const path = `/api/v1/tasks/${task.id}/comments/${created.id}`;
    const editRefused = await t.request('PATCH', path, { token: editor.token, body: { text: 'Hi', mentionIds: [outsider.id] } });
    expectErrorBody(editRefused, 400, { reason: 'MENTION_NOT_MEMBER' });
    const edited = await t.request('PATCH', path, { token: editor.token, body: { text: 'Hi @Vera and @Ada', mentionIds: [viewer.id, assignee.id] } });
    expect(edited.status).toBe(200);
    expect(edited.body.mentionIds).toEqual([viewer.id, assignee.id]);
    expect((await kinds(viewer, project.id)).filter((kind) => kind === 'comment.mentioned')).toHaveLength(1);
    expect((await kinds(assignee, project.id))[0]).toBe('comment.mentioned');
    const kept = await t.request('PATCH', path, { token: editor.token, body: { text: 'Hi all' } });
    expect(kept.body.mentionIds).toEqual([viewer.id, assignee.id]);
    expect((await t.request('GET', path, { token: viewer.token })).body.mentionIds).toEqual([viewer.id, assignee.id]);
    const listed = await t.request('GET', `/api/v1/tasks/${task.id}/comments`, { token: viewer.token });
    expect(listed.body[0].mentionIds).toEqual([viewer.id, assignee.id]);
  });

  it('reads, read-all and the unread count; paging newest first; another user\'s notification is a 404', async () => {
    const project = await team();
    const task = await createTask(t, owner, project.id);
    const fresh = await registerUser(t, 'Fresh');
    await invite(t, owner, project.id, fresh, 'EDITOR');
    await t.request('PUT', `/api/v1/tasks/${task.id}/subscription`, { token: fresh.token });
    for (let index = 0; index < 4; index += 1) await comment(editor, task.id, { text: `c${index}` });
    expect((await t.request('GET', '/api/v1/notifications/unread-count', { token: fresh.token })).body).toEqual({ count: 5 });

    const first = await t.request('GET', '/api/v1/notifications?limit=2', { token: fresh.token });
    expect(first.body).toHaveLength(2);
    const all = await inbox(fresh, project.id, '?limit=2');
    expect(all.map((item) => item.kind)).toEqual(['comment.created', 'comment.created', 'comment.created', 'comment.created', 'member.added']);
    expect(all.map((item) => item.createdAt)).toEqual([...all.map((item) => item.createdAt)].sort().reverse());
    expect(first.body.map((item: Item) => item.id)).toEqual(all.slice(0, 2).map((item) => item.id));

    const read = await t.request('POST', `/api/v1/notifications/${all[1]!.id}/read`, { token: fresh.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: all[1]!.id, readAt: expect.any(String) });
    const again = await t.request('POST', `/api/v1/notifications/${all[1]!.id}/read`, { token: fresh.token });
    expect(again.body.readAt).toBe(read.body.readAt);
    expect((await t.request('GET', '/api/v1/notifications/unread-count', { token: fresh.token })).body).toEqual({ count: 4 });
    const unread = await inbox(fresh, project.id, '?unread=true');
    expect(unread.map((item) => item.id)).toEqual(all.filter((_, index) => index !== 1).map((item) => item.id));
    expect((await t.request('GET', '/api/v1/notifications?unread=yes', { token: fresh.token })).status).toBe(400);

    for (const other of [owner, outsider]) {
      expect((await t.request('POST', `/api/v1/notifications/${all[0]!.id}/read`, { token: other.token })).status).toBe(404);
    }
    expect((await t.request('POST', '/api/v1/notifications/not-an-id/read', { token: fresh.token })).status).toBe(404);

    const marked = await t.request('POST', '/api/v1/notifications/read-all', { token: fresh.token });
    expect(marked.body).toEqual({ marked: 4 });
    expect((await t.request('GET', '/api/v1/notifications/unread-count', { token: fresh.token })).body).toEqual({ count: 0 });
    expect(await inbox(fresh, project.id, '?unread=true')).toEqual([]);
    expect((await t.request('GET', '/api/v1/notifications', {})).status).toBe(401);
  });

  it("hides a removed member's notifications of the project at once, and sends them no more", async () => {
    const project = await team();
    const leaver = await registerUser(t, 'Leaver');
    const membership = await invite(t, owner, project.id, leaver, 'EDITOR');
    const task = await createTask(t, owner, project.id, { assigneeId: leaver.id });
    const [assigned] = await inbox(leaver, project.id);
    expect(assigned?.kind).toBe('task.assigned');
    expect((await t.request('GET', '/api/v1/notifications/unread-count', { token: leaver.token })).body).toEqual({ count: 2 });

    expect((await t.request('DELETE', `/api/v1/projects/${project.id}/members/${membership.id}`, { token: owner.token })).status).toBe(200);
    expect(await inbox(leaver, project.id)).toEqual([]);
    expect((await t.request('GET', '/api/v1/notifications/unread-count', { token: leaver.token })).body).toEqual({ count: 0 });
    expect((await t.request('POST', `/api/v1/notifications/${assigned!.id}/read`, { token: leaver.token })).status).toBe(404);
    expect((await t.request('POST', '/api/v1/notifications/read-all', { token: leaver.token })).body).toEqual({ marked: 0 });
    // The former assignee still watched the task: a comment does not reach them.
    await comment(editor, task.id, { text: 'After you left' });
    const [row] = rowsOf<{ n: number }>(await t.database.db.execute(sql`select count(*)::int as n from notifications where user_id = ${leaver.id}`));
    expect(row?.n).toBe(2);
  });

  it('a personal access token limited to some projects sees only their notifications', async () => {
    const [first, second] = [await team('First'), await team('Second')];
    for (const project of [first, second]) await createTask(t, owner, project.id, { assigneeId: assignee.id });
    const token = await t.request('POST', '/api/v1/auth/tokens', { token: assignee.token, body: { name: 'First only', scopes: ['write'], projectIds: [first.id] } });
    expect(token.status).toBe(201);
    const seen = (await t.request('GET', '/api/v1/notifications?limit=500', { headers: { authorization: `Bearer ${token.body.token}` } })).body as Item[];
    expect(seen.some((item) => item.projectId === first.id)).toBe(true);
    expect(seen.some((item) => item.projectId === second.id)).toBe(false);
    const [other] = await inbox(assignee, second.id);
    expect((await t.request('POST', `/api/v1/notifications/${other!.id}/read`, { headers: { authorization: `Bearer ${token.body.token}` } })).status).toBe(404);
  });

  it('writes nothing when the causing change rolls back', async () => {
    const project = await team();
    const task = await createTask(t, owner, project.id);
    const db = t.database.db;
    await db.execute(sql`create or replace function fail_marked() returns trigger language plpgsql as $$
      begin
        if new.resource->>'text' = 'roll me back' or new.resource->>'name' = 'Rolled Back' then raise exception 'refused for the test'; end if;
        return new;
      end $$`);
    await db.execute(sql`create trigger fail_marked before insert on activity for each row execute function fail_marked()`);
    try {
      const refused = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: editor.token, body: { text: 'roll me back', mentionIds: [assignee.id] } });
      expect(refused.status).toBe(500);
      const rolledBack = await registerUser(t, 'Rolled Back');
      const invited = await t.request('POST', `/api/v1/projects/${project.id}/members/invite`, { token: owner.token, body: { email: rolledBack.email } });
      expect(invited.status).toBe(500);
      expect((await t.request('GET', '/api/v1/notifications', { token: rolledBack.token })).body).toEqual([]);
    } finally {
      await db.execute(sql`drop trigger fail_marked on activity`);
    }
    expect(await kinds(assignee, project.id)).toEqual(['member.added']);
    expect(await kinds(owner, project.id)).toEqual([]);
    expect((await t.request('GET', `/api/v1/tasks/${task.id}/subscription`, { token: assignee.token })).body).toEqual({ subscribed: false });
  });

  it('streams new notifications live to their recipient only, and resumes after Last-Event-ID', async () => {
    const project = await team();
    const task = await createTask(t, owner, project.id, { assigneeId: assignee.id });
    const url = `${baseUrl}/api/v1/notifications/events`;
    expect((await openStream(url)).status).toBe(401);
    const badResume = await openStream(url, { authorization: `Bearer ${assignee.token}`, 'last-event-id': 'x' });
    expect(badResume.status).toBe(400);
    expect(badResume.errorBody).toMatchObject({ reason: 'INVALID_EVENT_ID' });

    const stream = await openStream(url, { authorization: `Bearer ${assignee.token}` });
    const ownerStream = await openStream(url, { authorization: `Bearer ${owner.token}` });
    streams.push(stream, ownerStream);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await comment(editor, task.id, { text: 'Live @Ada', mentionIds: [assignee.id] });
    await patchTask(owner, task.id, { status: 'DONE' });
    const events = await stream.waitForEvents(2);
    expect(events.map((event) => event.event)).toEqual(['comment.mentioned', 'task.status_changed']);
    expect(JSON.parse(events[0]!.data)).toMatchObject({ kind: 'comment.mentioned', taskId: task.id, actorName: 'Eddie Editor', readAt: null });
    expect(Number(events[1]!.id)).toBeGreaterThan(Number(events[0]!.id));
    // The owner hears of the comment only (the status change was their own).
    await ownerStream.waitForEvents(1);
    expect(ownerStream.events.map((event) => event.event)).toEqual(['comment.created']);
    stream.close();

    await comment(editor, task.id, { text: 'While you were away' });
    const resumed = await openStream(url, { authorization: `Bearer ${assignee.token}`, 'last-event-id': events[1]!.id! });
    streams.push(resumed);
    await resumed.waitForEvents(1);
    expect(resumed.events.map((event) => event.event)).toEqual(['comment.created']);
    await comment(editor, task.id, { text: 'And live again' });
    await resumed.waitForEvents(2);
    expect(resumed.events.map((event) => event.event)).toEqual(['comment.created', 'comment.created']);
  });

  it('serves the same stream as the tRPC subscription notifications.events, resumable by lastEventId', async () => {
    const project = await team();
    const task = await createTask(t, owner, project.id, { assigneeId: assignee.id });
    const url = (input?: object) => `${baseUrl}/api/trpc/notifications.events${input ? `?input=${encodeURIComponent(JSON.stringify(input))}` : ''}`;
    const live = await openStream(url(), { authorization: `Bearer ${assignee.token}` });
    streams.push(live);
    await live.waitFor(() => live.events.some((event) => event.event === 'connected'));
    await comment(editor, task.id, { text: 'Over tRPC' });
    await comment(editor, task.id, { text: 'Over tRPC again' });
    await live.waitFor(() => live.events.filter((event) => event.id).length >= 2);
    const [first, second] = live.events.filter((event) => event.id);
    expect(JSON.parse(second!.data)).toMatchObject({ kind: 'comment.created', taskId: task.id });
    live.close();
    const resumed = await openStream(url({ lastEventId: first!.id }), { authorization: `Bearer ${assignee.token}` });
    streams.push(resumed);
    await resumed.waitFor(() => resumed.events.some((event) => event.id));
    expect(resumed.events.filter((event) => event.id).map((event) => event.id)).toEqual([second!.id]);
  });

  it('streams a notification written through another instance on the same database', async () => {
    const project = await team();
    const task = await createTask(t, owner, project.id, { assigneeId: assignee.id });
    const second = await startSecondInstance(t, { reminders: { windowSeconds: 86_400, pollMs: 3_600_000 } });
    try {
      const secondUrl = await second.app.listen({ port: 0, host: '127.0.0.1' });
      const stream = await openStream(`${secondUrl}/api/v1/notifications/events`, { authorization: `Bearer ${assignee.token}` });
      streams.push(stream);
      await comment(editor, task.id, { text: 'From the first instance' });
      await stream.waitForEvents(1);
      expect(JSON.parse(stream.events[0]!.data)).toMatchObject({ kind: 'comment.created', taskId: task.id });
      stream.close();
    } finally {
      await second.close();
    }
  });

  describe('due reminders', () => {
    const dueSoon = async (user: TestUser, projectId: string) => (await inbox(user, projectId)).filter((item) => item.kind === 'task.due_soon');

    it('reminds the assignee once per task and due date, of open tasks due within the window', async () => {
      const project = await team();
      const soon = await createTask(t, owner, project.id, { title: 'Soon', assigneeId: assignee.id, dueDate: inHours(2) });
      await createTask(t, owner, project.id, { title: 'Later', assigneeId: assignee.id, dueDate: inHours(72) });
      await createTask(t, owner, project.id, { title: 'Done', assigneeId: assignee.id, dueDate: inHours(2), status: 'DONE' });
      await createTask(t, owner, project.id, { title: 'Nobody', dueDate: inHours(2) });
      await createTask(t, owner, project.id, { title: 'Past', assigneeId: assignee.id, dueDate: inHours(-2) });
      // Self-assigned: the owner is reminded too (a reminder has no actor).
      const own = await createTask(t, owner, project.id, { title: 'Mine', assigneeId: owner.id, dueDate: inHours(3) });

      expect((await t.app.dueReminders.runOnce()).ran).toBe(true);
      const [reminder] = await dueSoon(assignee, project.id);
      expect(await dueSoon(assignee, project.id)).toHaveLength(1);
      expect(reminder).toMatchObject({ kind: 'task.due_soon', taskId: soon.id, taskTitle: 'Soon', actorId: null, actorName: null, commentId: null });
      expect((await dueSoon(owner, project.id)).map((item) => item.taskId)).toEqual([own.id]);

      expect((await t.app.dueReminders.runOnce()).reminded).toBe(0);
      expect(await dueSoon(assignee, project.id)).toHaveLength(1);
      // A new due date is a new reminder.
      await patchTask(owner, soon.id, { dueDate: inHours(5) });
      await t.app.dueReminders.runOnce();
      expect(await dueSoon(assignee, project.id)).toHaveLength(2);
    });

    it('never reminds twice across a restart and a second instance, and runs on one instance at a time', async () => {
      const project = await team();
      const task = await createTask(t, owner, project.id, { assigneeId: assignee.id, dueDate: inHours(1) });
      await t.app.dueReminders.runOnce();
      expect(await dueSoon(assignee, project.id)).toHaveLength(1);

      // Another instance on the same database (as after a restart) finds nothing left to remind of.
      const second = await startSecondInstance(t, { reminders: { windowSeconds: 86_400, pollMs: 3_600_000 } });
      try {
        expect((await second.app.dueReminders.runOnce()).reminded).toBe(0);
        expect((await dueSoon(assignee, project.id)).map((item) => item.taskId)).toEqual([task.id]);

        // Both instances at once: one reminder.
        const next = await createTask(t, owner, project.id, { assigneeId: assignee.id, dueDate: inHours(1) });
        const runs = await Promise.all([t.app.dueReminders.runOnce(), second.app.dueReminders.runOnce()]);
        expect(runs.reduce((sum, run) => sum + run.reminded, 0)).toBeLessThanOrEqual(1);
        expect((await dueSoon(assignee, project.id)).map((item) => item.taskId)).toEqual([next.id, task.id]);

        if (t.databaseUrl) {
          // While another instance holds the job's lock, neither runs it; once released, one does.
          const third = await createTask(t, owner, project.id, { assigneeId: assignee.id, dueDate: inHours(1) });
          const holder = postgres(t.databaseUrl, { max: 1, onnotice: () => {} });
          try {
            await holder`select pg_advisory_lock(7417, 0)`;
            expect(await Promise.all([t.app.dueReminders.runOnce(), second.app.dueReminders.runOnce()])).toEqual([
              { ran: false, reminded: 0 },
              { ran: false, reminded: 0 },
            ]);
            expect(await dueSoon(assignee, project.id)).toHaveLength(2);
            await holder`select pg_advisory_unlock(7417, 0)`;
            expect(await second.app.dueReminders.runOnce()).toEqual({ ran: true, reminded: 1 });
            expect((await dueSoon(assignee, project.id))[0]?.taskId).toBe(third.id);
          } finally {
            await holder.end();
          }
        }
      } finally {
        await second.close();
      }
    });
  });
});
