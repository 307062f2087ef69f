import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSnapshot, expectErrorBody } from './support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';
import { startReceiver } from './support/webhook-receiver';

type Made = Awaited<ReturnType<typeof createTask>>;

interface Listed {
  id: string;
  type: string;
  direction: 'outgoing' | 'incoming';
  task: { id: string; key: string; title: string; status: string; projectId: string };
}

describe('task relations', () => {
  let t: TestApp;
  let owner: TestUser;
  let editor: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    editor = await registerUser(t, 'Editor');
    outsider = await registerUser(t, 'Outsider');
  });
  afterAll(() => t.close());

  /** A project of the test's own, with the editor as EDITOR, and tasks in it by these titles. */
  async function projectWith(...titles: string[]) {
    const projectId = (await createProject(t, owner, 'Related')).id;
    await invite(t, owner, projectId, editor, 'EDITOR');
    const tasks: { id: string }[] = [];
    for (const title of titles) tasks.push(await createTask(t, owner, projectId, { title }));
    return { projectId, tasks };
  }

  const relate = (from: string, type: string, to: string, user: TestUser = editor) =>
    t.request('POST', `/api/v1/tasks/${from}/relations`, { token: user.token, body: { type, taskId: to } });
  const relationsOf = async (taskId: string, user: TestUser = editor): Promise<Listed[]> => {
    const response = await t.request('GET', `/api/v1/tasks/${taskId}/relations`, { token: user.token });
    expect(response.status).toBe(200);
    return response.body;
  };
  const summary = (listed: Listed[]) => listed.map(({ type, direction, task }) => `${direction} ${type} ${task.title}`);
  const blockedOf = async (taskId: string) => (await t.request('GET', `/api/v1/tasks/${taskId}`, { token: editor.token })).body.blocked;
  const setStatus = async (taskId: string, status: string) =>
    expect((await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: editor.token, body: { status } })).status).toBe(200);

  it('creates each type, and lists each relation from both of its tasks', async () => {
    const { projectId, tasks } = await projectWith('Design', 'Build', 'Notes', 'Copy');
    const [design, build, notes, copy] = tasks as [Made, Made, Made, Made];
    const blocks = await relate(design.id, 'blocks', build.id);
    expect(blocks.status).toBe(201);
    expect(blocks.body).toStrictEqual({ id: expect.any(String), type: 'blocks', taskId: design.id, relatedTaskId: build.id, createdAt: expect.any(String) });
    expect((await relate(design.id, 'relates_to', notes.id)).status).toBe(201);
    expect((await relate(copy.id, 'duplicates', design.id)).status).toBe(201);

    expect(summary(await relationsOf(design.id))).toEqual(['outgoing blocks Build', 'outgoing relates_to Notes', 'incoming duplicates Copy']);
    expect(summary(await relationsOf(build.id))).toEqual(['incoming blocks Design']);
    expect(summary(await relationsOf(notes.id))).toEqual(['incoming relates_to Design']);
    expect(summary(await relationsOf(copy.id))).toEqual(['outgoing duplicates Design']);
    const [listed] = await relationsOf(build.id);
    expect(listed).toStrictEqual({ id: blocks.body.id, type: 'blocks', direction: 'incoming', task: { id: design.id, key: expect.any(String), title: 'Design', status: 'TODO', projectId } });
  });

  it("shows the other task's key as the task's own GET does: its project's current key after a change", async () => {
    const { projectId, tasks } = await projectWith('Spec', 'Code');
    const [spec, code] = tasks as [Made, Made];
    expect((await relate(spec.id, 'relates_to', code.id)).status).toBe(201);
    const keyOf = async (taskId: string) => (await t.request('GET', `/api/v1/tasks/${taskId}`, { token: editor.token })).body.key as string;
    const listedKey = async () => (await relationsOf(spec.id))[0]!.task.key;
    expect(await listedKey()).toBe(await keyOf(code.id));
    expect((await t.request('PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { key: 'RENAMED' } })).status).toBe(200);
    expect(await listedKey()).toMatch(/^RENAMED-\d+$/);
    expect(await listedKey()).toBe(await keyOf(code.id));
  });

  it('refuses the same relation twice (relates_to either way) with 409 RELATION_EXISTS, and a task to itself with 400', async () => {
    const { tasks } = await projectWith('One', 'Two');
    const [one, two] = tasks as [Made, Made];
    expect((await relate(one.id, 'blocks', two.id)).status).toBe(201);
    expectErrorBody(await relate(one.id, 'blocks', two.id), 409, { reason: 'RELATION_EXISTS' });
    expect((await relate(one.id, 'relates_to', two.id)).status).toBe(201);
    expectErrorBody(await relate(two.id, 'relates_to', one.id), 409, { reason: 'RELATION_EXISTS' });
    expectErrorBody(await relate(one.id, 'relates_to', one.id.toUpperCase()), 400, {
      reason: 'RELATION_TO_SELF',
      issues: [expect.objectContaining({ path: ['taskId'] })],
    });
    expect((await relate(one.id, 'duplicates', two.id)).status).toBe(201);
    expect(summary(await relationsOf(two.id))).toEqual(['incoming blocks One', 'incoming relates_to One', 'incoming duplicates One']);
  });

  it('refuses a blocks relation that closes a cycle, directly or through a chain, with 409 RELATION_CYCLE', async () => {
    const { tasks } = await projectWith('A', 'B', 'C');
    const [a, b, c] = tasks as [Made, Made, Made];
    expect((await relate(a.id, 'blocks', b.id)).status).toBe(201);
    const before = await databaseSnapshot(t);
    expectErrorBody(await relate(b.id, 'blocks', a.id), 409, { reason: 'RELATION_CYCLE' });
    expect(await databaseSnapshot(t)).toEqual(before);
    expect((await relate(b.id, 'blocks', c.id)).status).toBe(201);
    expectErrorBody(await relate(c.id, 'blocks', a.id), 409, { reason: 'RELATION_CYCLE' });
    // Other types make no cycle.
    expect((await relate(c.id, 'duplicates', a.id)).status).toBe(201);
    expect((await relate(a.id, 'blocks', c.id)).status).toBe(201);
  });

  it('relates tasks of two projects the caller sees; a task the caller cannot see is a 404 and left out of lists', async () => {
    const first = await projectWith('Here');
    const second = await projectWith('There');
    const [here] = first.tasks as [Made];
    const [there] = second.tasks as [Made];
    const theirs = await createProject(t, outsider, 'Theirs');
    const hidden = await createTask(t, outsider, theirs.id, { title: 'Hidden' });

    expect((await relate(here.id, 'blocks', there.id)).status).toBe(201);
    expect(summary(await relationsOf(there.id))).toEqual(['incoming blocks Here']);
    expect((await relationsOf(there.id))[0]!.task.projectId).toBe(first.projectId);

    const before = await databaseSnapshot(t);
    for (const taskId of [hidden.id, randomUUID(), 'not-an-id']) expectErrorBody(await relate(here.id, 'blocks', taskId), 404, { message: 'Task not found' });
    expect(await databaseSnapshot(t)).toEqual(before);

    // The outsider joins the first project only, and relates their task to it: the editor does not see it.
    await invite(t, owner, first.projectId, outsider, 'EDITOR');
    expect((await relate(hidden.id, 'relates_to', here.id, outsider)).status).toBe(201);
    expect(summary(await relationsOf(here.id, outsider))).toEqual(['incoming relates_to Hidden']);
    expect(summary(await relationsOf(here.id))).toEqual(['outgoing blocks There']);
    // Nor does it block what it does not see: `blocked` is the task's own, whoever reads it.
    expect(await blockedOf(there.id)).toBe(true);
  });

  it('deletes a relation from either side; a relation not touching the path task is a 404', async () => {
    const { tasks } = await projectWith('Left', 'Right', 'Aside');
    const [left, right, aside] = tasks as [Made, Made, Made];
    const first = (await relate(left.id, 'blocks', right.id)).body.id;
    const second = (await relate(left.id, 'relates_to', right.id)).body.id;
    const path = (taskId: string, relationId: string) => `/api/v1/tasks/${taskId}/relations/${relationId}`;

    expectErrorBody(await t.request('DELETE', path(aside.id, first), { token: editor.token }), 404, { message: 'Relation not found' });
    expectErrorBody(await t.request('DELETE', path(left.id, 'nope'), { token: editor.token }), 404, { message: 'Relation not found' });
    expect((await t.request('DELETE', path(left.id, first), { token: editor.token })).body).toEqual({ message: 'Relation deleted' });
    expect((await t.request('DELETE', path(right.id, second), { token: editor.token })).body).toEqual({ message: 'Relation deleted' });
    expectErrorBody(await t.request('DELETE', path(right.id, second), { token: editor.token }), 404, { message: 'Relation not found' });
    expect(await relationsOf(left.id)).toEqual([]);
    expect(await relationsOf(right.id)).toEqual([]);
  });

  it('reads `blocked` on every task read while a blocker is neither done nor cancelled, and not once the relation is gone', async () => {
    const { projectId, tasks } = await projectWith('Blocker', 'Waiting', 'Free');
    const [blocker, waiting, free] = tasks as [Made, Made, Made];
    expect(await blockedOf(waiting.id)).toBe(false);
    const relation = (await relate(blocker.id, 'blocks', waiting.id)).body.id;
    expect((await relate(free.id, 'relates_to', waiting.id)).status).toBe(201);

    const listBlocked = async () =>
      Object.fromEntries(
        ((await t.request('GET', `/api/v1/tasks/project/${projectId}`, { token: editor.token })).body as { title: string; blocked: boolean }[]).map((task) => [task.title, task.blocked]),
      );
    expect(await blockedOf(waiting.id)).toBe(true);
    expect(await listBlocked()).toEqual({ Blocker: false, Waiting: true, Free: false });
    expect((await t.request('GET', '/api/v1/tasks?assigneeId=none', { token: owner.token })).body.find((task: { id: string }) => task.id === waiting.id).blocked).toBe(true);

    await setStatus(blocker.id, 'DONE');
    expect(await blockedOf(waiting.id)).toBe(false);
    await setStatus(blocker.id, 'IN_PROGRESS');
    expect(await blockedOf(waiting.id)).toBe(true);
    await setStatus(blocker.id, 'CANCELLED');
    expect(await blockedOf(waiting.id)).toBe(false);
    await setStatus(blocker.id, 'TODO');
    // The task's own writes answer it too.
    const patched = await t.request('PATCH', `/api/v1/tasks/${waiting.id}`, { token: editor.token, body: { title: 'Still waiting' } });
    expect(patched.body.blocked).toBe(true);

    await t.request('DELETE', `/api/v1/tasks/${waiting.id}/relations/${relation}`, { token: editor.token });
    expect(await blockedOf(waiting.id)).toBe(false);
  });

  it("deletes a task's relations with it, and a project's with the project", async () => {
    const first = await projectWith('Gone', 'Stays');
    const second = await projectWith('Elsewhere');
    const [gone, stays] = first.tasks as [Made, Made];
    const [elsewhere] = second.tasks as [Made];
    expect((await relate(gone.id, 'blocks', stays.id)).status).toBe(201);
    expect((await relate(elsewhere.id, 'blocks', stays.id)).status).toBe(201);
    expect(await blockedOf(stays.id)).toBe(true);

    expect((await t.request('DELETE', `/api/v1/tasks/${gone.id}`, { token: editor.token })).status).toBe(200);
    expect(summary(await relationsOf(stays.id))).toEqual(['incoming blocks Elsewhere']);
    expect((await t.request('DELETE', `/api/v1/projects/${second.projectId}`, { token: owner.token })).status).toBe(200);
    expect(await relationsOf(stays.id)).toEqual([]);
    expect(await blockedOf(stays.id)).toBe(false);
  });

  it('records each change in both tasks’ history (one event, on the path task) and delivers it to webhooks', async () => {
    const { projectId, tasks } = await projectWith('Source', 'Target');
    const [source, target] = tasks as [Made, Made];
    let secret = '';
    const receiver = startReceiver(() => secret);
    await receiver.start();
    try {
      const hook = await t.request('POST', `/api/v1/projects/${projectId}/webhooks`, { token: owner.token, body: { url: receiver.url, events: ['relation.created', 'relation.deleted'] } });
      expect(hook.status).toBe(201);
      secret = hook.body.secret;

      const created = (await relate(source.id, 'blocks', target.id)).body;
      // Deleted from the other side: the event is that task's.
      expect((await t.request('DELETE', `/api/v1/tasks/${target.id}/relations/${created.id}`, { token: editor.token })).status).toBe(200);

      const historyOf = async (taskId: string) =>
        ((await t.request('GET', `/api/v1/tasks/${taskId}/activity`, { token: owner.token })).body as { type: string; taskId: string; actorId: string; resource: unknown }[]).filter((entry) =>
          entry.type.startsWith('relation.'),
        );
      const expected = [
        { type: 'relation.deleted', taskId: target.id, actorId: editor.id, resource: created },
        { type: 'relation.created', taskId: source.id, actorId: editor.id, resource: created },
      ];
      expect(await historyOf(source.id)).toMatchObject(expected);
      expect(await historyOf(target.id)).toMatchObject(expected);
      const projectHistory = (await t.request('GET', `/api/v1/projects/${projectId}/activity`, { token: owner.token })).body as { type: string }[];
      expect(projectHistory.filter((entry) => entry.type.startsWith('relation.'))).toHaveLength(2);

      await expect.poll(() => receiver.received.length).toBe(2);
      expect(receiver.received.map((delivery) => [delivery.headers['x-tasklane-event'], delivery.body.taskId, delivery.signatureValid])).toEqual([
        ['relation.created', source.id, true],
        ['relation.deleted', target.id, true],
      ]);
      expect(receiver.received[0]!.body.resource).toEqual(created);
    } finally {
      await receiver.stop();
    }
  });

  it('lets exactly one of two concurrent blocks relations that together close a cycle succeed', async () => {
    for (let round = 0; round < 3; round += 1) {
      const { tasks } = await projectWith('Ping', 'Pong');
      const [ping, pong] = tasks as [Made, Made];
      const answers = await Promise.all([relate(ping.id, 'blocks', pong.id), relate(pong.id, 'blocks', ping.id)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
      expectErrorBody(answers.find((answer) => answer.status === 409)!, 409, { reason: 'RELATION_CYCLE' });
      expect(await relationsOf(ping.id)).toHaveLength(1);
    }
  });
});

describePermissions(['GET /tasks/{id}/relations', 'POST /tasks/{id}/relations', 'DELETE /tasks/{id}/relations/{relationId}']);
