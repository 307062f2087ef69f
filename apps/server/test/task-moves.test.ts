import { generateKeyBetween } from 'fractional-indexing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from './support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { startReceiver } from './support/webhook-receiver';

interface TaskBody {
  id: string;
  title: string;
  status: string;
  position: string;
  completedAt: string | null;
  updatedAt: string;
}

const nextLink = (headers: Record<string, unknown>) => /^<([^>]+)>; rel="next"$/.exec(String(headers.link ?? ''))?.[1];
/** Byte order, as the keys sort (COLLATE "C" in the database, `<` in the library). */
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('the board order: position, sort=position, POST /tasks/{id}/move', () => {
  let t: TestApp;
  let owner: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    [owner, editor, viewer, outsider] = [await registerUser(t, 'Owner'), await registerUser(t, 'Editor'), await registerUser(t, 'Viewer'), await registerUser(t, 'Outsider')];
  });
  afterAll(() => t.close());

  /** A project of the owner's with the editor and the viewer, and `titles` made in that order (status `status`). */
  async function board(titles: string[], status = 'TODO') {
    const projectId = (await createProject(t, owner, 'Board')).id;
    await invite(t, owner, projectId, editor, 'EDITOR');
    await invite(t, owner, projectId, viewer, 'VIEWER');
    const tasks: TaskBody[] = [];
    for (const title of titles) tasks.push(await placedTask(projectId, { title, status }));
    const byTitle = Object.fromEntries(tasks.map((task) => [task.title, task]));
    return { projectId, tasks, byTitle };
  }

  /** A task made by the editor, as the API shows it. */
  const placedTask = async (projectId: string, body: Record<string, unknown>) => (await createTask(t, editor, projectId, body)) as unknown as TaskBody;

  const list = async (projectId: string, query = 'sort=position') => {
    const response = await t.request<TaskBody[]>('GET', `/api/v1/tasks/project/${projectId}?limit=500&${query}`, { token: viewer.token });
    expect(response.status).toBe(200);
    return response.body;
  };
  /** The titles of a column in the board's order. */
  const column = async (projectId: string, status = 'TODO') => (await list(projectId, `status=${status}&sort=position`)).map((task) => task.title);
  const positions = async (projectId: string) => Object.fromEntries((await list(projectId)).map((task) => [task.id, task.position]));

  const move = (user: TestUser, taskId: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
    t.request('POST', `/api/v1/tasks/${taskId}/move`, { token: user.token, body, ...(headers ? { headers } : {}) });

  it('gives every task a position: new tasks go to the end, in creation order, as keys the library accepts', async () => {
    const { projectId, tasks, byTitle } = await board(['A', 'B', 'C']);
    for (const task of tasks) {
      expect(typeof task.position).toBe('string');
      expect(() => generateKeyBetween(task.position, null)).not.toThrow();
    }
    expect([...tasks.map((task) => task.position)].sort(byteOrder)).toEqual(tasks.map((task) => task.position));
    expect(await column(projectId)).toEqual(['A', 'B', 'C']);
    // Every read shows it: the task, the lists, the write's answer.
    expect((await t.request('GET', `/api/v1/tasks/${byTitle.B!.id}`, { token: viewer.token })).body.position).toBe(byTitle.B!.position);
    expect((await t.request('GET', `/api/v1/tasks?sort=position&limit=500`, { token: viewer.token })).body.find((task: TaskBody) => task.id === byTitle.B!.id).position).toBe(byTitle.B!.position);

    // A new task in another column goes to that column's end too; a status change keeps the key.
    const done = await placedTask(projectId, { title: 'D', status: 'DONE' });
    expect(done.position > byTitle.C!.position).toBe(true);
    const patched = await t.request<TaskBody>('PATCH', `/api/v1/tasks/${byTitle.A!.id}`, { token: editor.token, body: { status: 'DONE' } });
    expect(patched.body.position).toBe(byTitle.A!.position);
    expect(await column(projectId, 'DONE')).toEqual(['A', 'D']);
    expect(await column(projectId)).toEqual(['B', 'C']);
    // `-position` reads the board from the bottom up.
    expect((await list(projectId, 'status=TODO&sort=-position')).map((task) => task.title)).toEqual(['C', 'B']);
  });

  it('moves a task between two, to the top, to the end, and changes no other task’s position', async () => {
    const { projectId, byTitle } = await board(['A', 'B', 'C', 'D']);
    const id = (title: string) => byTitle[title]!.id;
    let before = await positions(projectId);
    const expectOnlyMoved = async (movedId: string) => {
      const after = await positions(projectId);
      for (const [taskId, position] of Object.entries(before)) if (taskId !== movedId) expect(after[taskId]).toBe(position);
      expect(new Set(Object.values(after)).size).toBe(Object.keys(after).length);
      before = after;
    };

    const between = await move(editor, id('D'), { afterId: id('A'), beforeId: id('B') });
    expect(between.status).toBe(200);
    expect(between.body).toMatchObject({ id: id('D'), status: 'TODO' });
    expect(between.headers.etag).toBeDefined();
    expect(await column(projectId)).toEqual(['A', 'D', 'B', 'C']);
    await expectOnlyMoved(id('D'));

    // afterId alone: right after it; beforeId alone: right before it.
    expect((await move(editor, id('A'), { afterId: id('B') })).status).toBe(200);
    expect(await column(projectId)).toEqual(['D', 'B', 'A', 'C']);
    await expectOnlyMoved(id('A'));
    expect((await move(editor, id('C'), { beforeId: id('D') })).status).toBe(200);
    expect(await column(projectId)).toEqual(['C', 'D', 'B', 'A']);
    await expectOnlyMoved(id('C'));

    // Neither: the end of the column.
    expect((await move(editor, id('C'), {})).status).toBe(200);
    expect(await column(projectId)).toEqual(['D', 'B', 'A', 'C']);
    await expectOnlyMoved(id('C'));
    // Where it already is: still a valid place, still only its own key.
    expect((await move(owner, id('B'), { afterId: id('D'), beforeId: id('A') })).status).toBe(200);
    expect(await column(projectId)).toEqual(['D', 'B', 'A', 'C']);
    await expectOnlyMoved(id('B'));

    for (const position of Object.values(before)) expect(() => generateKeyBetween(null, position)).not.toThrow();
  });

  it('moves a task to another status where it is dropped, following the status rules', async () => {
    const { projectId, byTitle } = await board(['A', 'B', 'X']);
    const done = await placedTask(projectId, { title: 'D1', status: 'DONE' });
    const done2 = await placedTask(projectId, { title: 'D2', status: 'DONE' });

    const moved = await move(editor, byTitle.X!.id, { status: 'DONE', afterId: done.id, beforeId: done2.id });
    expect(moved.status).toBe(200);
    expect(moved.body.status).toBe('DONE');
    expect(moved.body.completedAt).toEqual(expect.any(String));
    expect(await column(projectId, 'DONE')).toEqual(['D1', 'X', 'D2']);
    expect(await column(projectId)).toEqual(['A', 'B']);

    // Back to the top of TODO (before its first task): completedAt cleared.
    const back = await move(editor, byTitle.X!.id, { status: 'TODO', beforeId: byTitle.A!.id });
    expect(back.body).toMatchObject({ status: 'TODO', completedAt: null });
    expect(await column(projectId)).toEqual(['X', 'A', 'B']);
    // A status alone: the end of the new column.
    expect((await move(editor, byTitle.A!.id, { status: 'IN_PROGRESS' })).body.status).toBe('IN_PROGRESS');
    expect((await move(editor, byTitle.B!.id, { status: 'IN_PROGRESS' })).status).toBe(200);
    expect(await column(projectId, 'IN_PROGRESS')).toEqual(['A', 'B']);
  });

  it('refuses neighbours that are not tasks of the project in the target status (400 naming the field)', async () => {
    const { projectId, byTitle } = await board(['A', 'B', 'C']);
    const other = await board(['Elsewhere']);
    const done = await placedTask(projectId, { title: 'Done', status: 'DONE' });
    const id = (title: string) => byTitle[title]!.id;
    const refusals: [Record<string, unknown>, string][] = [
      [{ afterId: 'not-an-id' }, 'afterId'],
      [{ beforeId: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b' }, 'beforeId'],
      [{ afterId: other.byTitle.Elsewhere!.id }, 'afterId'],
      [{ afterId: done.id }, 'afterId'],
      [{ status: 'DONE', beforeId: id('B') }, 'beforeId'],
      [{ afterId: id('A').toUpperCase() }, 'afterId'],
      [{ afterId: id('C'), beforeId: id('B') }, 'beforeId'],
    ];
    const before = await positions(projectId);
    for (const [body, field] of refusals) {
      const refused = await move(editor, id('A'), body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expectErrorBody(refused, 400, { reason: 'INVALID_NEIGHBOUR', issues: [expect.objectContaining({ path: [field] })] });
    }
    // Not a status, not a field of a move.
    expect((await move(editor, id('B'), { status: 'SOMEWHERE' })).status).toBe(400);
    const unknown = await move(editor, id('B'), { position: 'a0' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues.map((issue: { path: string[] }) => issue.path[0])).toContain('position');
    expect(await positions(projectId)).toEqual(before);
  });

  it('answers 404 to a non-member and an unknown task, 403 to a VIEWER, 412 to a stale If-Match', async () => {
    const { projectId, byTitle } = await board(['A', 'B']);
    const before = await positions(projectId);
    expect((await move(outsider, byTitle.A!.id, { afterId: byTitle.B!.id })).status).toBe(404);
    expect((await move(editor, '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b', {})).status).toBe(404);
    const forbidden = await move(viewer, byTitle.A!.id, { afterId: byTitle.B!.id });
    expectErrorBody(forbidden, 403);

    const current = (await t.request('GET', `/api/v1/tasks/${byTitle.A!.id}`, { token: editor.token })).headers.etag as string;
    await t.request('PATCH', `/api/v1/tasks/${byTitle.A!.id}`, { token: editor.token, body: { title: 'A2' } });
    expect((await move(editor, byTitle.A!.id, { afterId: byTitle.B!.id }, { 'if-match': current })).status).toBe(412);
    expect(await positions(projectId)).toEqual(before);
    const fresh = (await t.request('GET', `/api/v1/tasks/${byTitle.A!.id}`, { token: editor.token })).headers.etag as string;
    expect((await move(editor, byTitle.A!.id, { afterId: byTitle.B!.id }, { 'if-match': fresh })).status).toBe(200);
    expect(await column(projectId)).toEqual(['B', 'A2']);
  });

  it('lands 20 concurrent moves into one gap, each at its own position, in a total order', async () => {
    const titles = ['Top', 'Bottom', ...Array.from({ length: 20 }, (_, index) => `M${index}`)];
    const { projectId, byTitle } = await board(titles);
    const [top, bottom] = [byTitle.Top!, byTitle.Bottom!];
    const movers = titles.slice(2).map((title) => byTitle[title]!);
    const answers = await Promise.all(movers.map((task) => move(editor, task.id, { afterId: top.id, beforeId: bottom.id })));
    expect(answers.map((answer) => answer.status)).toEqual(movers.map(() => 200));

    const order = await list(projectId, 'status=TODO&sort=position');
    expect(order.map((task) => task.title)[0]).toBe('Top');
    expect(order.map((task) => task.title).at(-1)).toBe('Bottom');
    expect(order.map((task) => task.title).slice(1, -1).sort()).toEqual(titles.slice(2).sort());
    // Distinct keys, strictly increasing in the listed order: the order is total; the neighbours kept theirs.
    const keys = order.map((task) => task.position);
    expect(new Set(keys).size).toBe(keys.length);
    expect([...keys].sort(byteOrder)).toEqual(keys);
    expect(keys[0]).toBe(top.position);
    expect(keys.at(-1)).toBe(bottom.position);
    // Each answer showed the key the task has now.
    const now = Object.fromEntries(order.map((task) => [task.id, task.position]));
    for (const answer of answers) expect(answer.body.position).toBe(now[answer.body.id]);
  });

  it('gives concurrent new tasks distinct positions at the end, in the order they commit', async () => {
    const { projectId } = await board(['First']);
    const created = await Promise.all(Array.from({ length: 10 }, (_, index) => createTask(t, editor, projectId, { title: `N${index}` })));
    const order = await list(projectId, 'status=TODO&sort=position');
    expect(order[0]!.title).toBe('First');
    expect(order.map((task) => task.id).slice(1).sort()).toEqual(created.map((task) => task.id).sort());
    expect(new Set(order.map((task) => task.position)).size).toBe(11);
  });

  it('pages by position with the cursor of the Link header, ascending and descending, within a status', async () => {
    const titles = Array.from({ length: 7 }, (_, index) => `P${index}`);
    const { projectId, byTitle } = await board(titles);
    await createTask(t, editor, projectId, { title: 'Other column', status: 'IN_REVIEW' });
    // Keys of several lengths and cases: P6 between P0 and P1 (a key longer than its neighbours).
    await move(editor, byTitle.P6!.id, { afterId: byTitle.P0!.id });
    await move(editor, byTitle.P5!.id, { afterId: byTitle.P0!.id });
    const expected = (await list(projectId, 'status=TODO&sort=position')).map((task) => task.title);
    expect(expected).toEqual(['P0', 'P5', 'P6', 'P1', 'P2', 'P3', 'P4']);

    for (const [sort, order] of [
      ['position', expected],
      ['-position', [...expected].reverse()],
    ] as const) {
      const seen: string[] = [];
      let url: string | undefined = `/api/v1/tasks/project/${projectId}?status=TODO&sort=${sort}&limit=3`;
      while (url) {
        const page: { status: number; body: TaskBody[]; headers: Record<string, unknown> } = await t.request('GET', url, { token: viewer.token });
        expect(page.status).toBe(200);
        seen.push(...page.body.map((task) => task.title));
        url = nextLink(page.headers);
      }
      expect(seen).toEqual(order);
    }
    // The whole project in one order: every column's tasks by key.
    const all = await list(projectId);
    expect(all.map((task) => task.position)).toEqual(all.map((task) => task.position).sort(byteOrder));
  });

  it('records a move in the history and delivers it to webhooks as task.updated with its changes', async () => {
    const { projectId, byTitle } = await board(['A', 'B', 'C']);
    let secret = '';
    const receiver = startReceiver(() => secret);
    await receiver.start();
    try {
      const hook = await t.request('POST', `/api/v1/projects/${projectId}/webhooks`, { token: owner.token, body: { url: receiver.url, events: ['task.updated'] } });
      expect(hook.status).toBe(201);
      secret = hook.body.secret;

      const moved = await move(editor, byTitle.A!.id, { status: 'IN_PROGRESS' });
      const history = await t.request('GET', `/api/v1/tasks/${byTitle.A!.id}/activity`, { token: viewer.token });
      expect(history.body[0]).toMatchObject({
        type: 'task.updated',
        actorId: editor.id,
        resource: { id: byTitle.A!.id, position: moved.body.position, status: 'IN_PROGRESS' },
        changes: { position: { old: byTitle.A!.position, new: moved.body.position }, status: { old: 'TODO', new: 'IN_PROGRESS' } },
      });
      const reordered = await move(editor, byTitle.B!.id, { status: 'IN_PROGRESS', beforeId: byTitle.A!.id });
      const second = (await t.request('GET', `/api/v1/tasks/${byTitle.B!.id}/activity`, { token: viewer.token })).body[0];
      expect(second.changes.position).toEqual({ old: byTitle.B!.position, new: reordered.body.position });

      await expect.poll(() => receiver.received.length).toBe(2);
      const [first, next] = receiver.received;
      expect(first!.signatureValid).toBe(true);
      expect(first!.body).toMatchObject({ id: history.body[0].id, type: 'task.updated', taskId: byTitle.A!.id, resource: { position: moved.body.position } });
      expect(next!.body).toMatchObject({ id: second.id, taskId: byTitle.B!.id, resource: { position: reordered.body.position } });
    } finally {
      await receiver.stop();
    }
  });

  it('moves through tRPC (the SDK’s transport) the same way', async () => {
    const { projectId, byTitle } = await board(['A', 'B']);
    const response = await t.request('POST', '/api/trpc/tasks.move', { token: editor.token, body: { id: byTitle.B!.id, beforeId: byTitle.A!.id } });
    expect(response.status).toBe(200);
    expect(response.body.result.data).toMatchObject({ id: byTitle.B!.id, status: 'TODO' });
    expect(await column(projectId)).toEqual(['B', 'A']);
  });
});
