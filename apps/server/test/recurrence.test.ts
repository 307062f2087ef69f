import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { startSecondInstance } from './support/second-instance';

interface Task {
  id: string;
  title: string;
  status: string;
  dueDate: string | null;
  recurrence: string | null;
  recurredFromId: string | null;
  nextDueDate: string | null;
  [key: string]: unknown;
}

describe('recurring tasks', () => {
  let t: TestApp;
  let owner: TestUser;
  let colleague: TestUser;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Ada Lovelace');
    colleague = await registerUser(t, 'Grace Hopper');
    projectId = (await createProject(t, owner, 'Rota')).id;
    await invite(t, owner, projectId, colleague, 'EDITOR');
  });
  afterAll(() => t.close());

  async function recurring(recurrence: string | null, dueDate: string | null, extra: Record<string, unknown> = {}) {
    const response = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: 'Pay rent', projectId, recurrence, dueDate, ...extra } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as Task;
  }

  const complete = (taskId: string, token = owner.token) => t.request('PATCH', `/api/v1/tasks/${taskId}`, { token, body: { status: 'DONE' } });

  /** The tasks that came from `taskId` (its next occurrences), listed. */
  async function occurrencesOf(taskId: string): Promise<Task[]> {
    const response = await t.request('GET', `/api/v1/tasks/project/${projectId}?limit=500`, { token: owner.token });
    expect(response.status).toBe(200);
    return (response.body as Task[]).filter((task) => task.recurredFromId === taskId);
  }

  /** Completes `task` and returns its one next occurrence. */
  async function next(task: Task): Promise<Task> {
    expect((await complete(task.id)).status).toBe(200);
    const found = await occurrencesOf(task.id);
    expect(found).toHaveLength(1);
    return found[0]!;
  }

  it('a task with no rule is not recurring: recurrence, recurredFromId and nextDueDate are null', async () => {
    const task = await recurring(null, '2026-01-30T17:00:00.000Z');
    expect(task).toMatchObject({ recurrence: null, recurredFromId: null, nextDueDate: null });
    await complete(task.id);
    expect(await occurrencesOf(task.id)).toEqual([]);
  });

  it('monthly on the last Friday: each completion makes the next one, with its fields, in the first unstarted state', async () => {
    const label = (await t.request('POST', `/api/v1/projects/${projectId}/labels`, { token: owner.token, body: { name: 'bills', color: '#ff0000' } })).body;
    const first = await recurring('RRULE:freq=monthly;BYDAY=FR;BYSETPOS=-1', '2026-01-30T17:00:00.000Z', {
      description: 'Standing order',
      priority: 'HIGH',
      assigneeId: colleague.id,
      labelIds: [label.id],
      status: 'IN_PROGRESS',
    });
    // Stored as written without the prefix, upper case.
    expect(first).toMatchObject({ recurrence: 'FREQ=MONTHLY;BYDAY=FR;BYSETPOS=-1', nextDueDate: '2026-02-27T17:00:00.000Z' });
    const second = await next(first);
    expect(second).toMatchObject({
      title: 'Pay rent',
      description: 'Standing order',
      priority: 'HIGH',
      assigneeId: colleague.id,
      labelIds: [label.id],
      status: 'TODO',
      completedAt: null,
      dueDate: '2026-02-27T17:00:00.000Z',
      recurrence: 'FREQ=MONTHLY;BYDAY=FR;BYSETPOS=-1',
      recurredFromId: first.id,
      nextDueDate: '2026-03-27T17:00:00.000Z',
    });
    const third = await next(second);
    expect(third.dueDate).toBe('2026-03-27T17:00:00.000Z');
    // May 2026 has five Fridays: the last is the 29th.
    const fourth = await next(third);
    expect(fourth.dueDate).toBe('2026-04-24T17:00:00.000Z');
    expect(fourth.nextDueDate).toBe('2026-05-29T17:00:00.000Z');
    // The new task's creation is its own event, as a POST's is; the completion an update.
    const history = await t.request('GET', `/api/v1/tasks/${second.id}/activity`, { token: owner.token });
    expect(history.body.map((event: { type: string }) => event.type)).toEqual(expect.arrayContaining(['task.created', 'task.updated']));
    const created = history.body.find((event: { type: string }) => event.type === 'task.created');
    expect(created.resource).toMatchObject({ id: second.id, recurredFromId: first.id });
  });

  it('yearly: the same day a year on; every 2 years with INTERVAL; February 29th in leap years only', async () => {
    expect((await next(await recurring('FREQ=YEARLY', '2026-03-15T09:00:00.000Z'))).dueDate).toBe('2027-03-15T09:00:00.000Z');
    expect((await next(await recurring('FREQ=YEARLY;INTERVAL=2', '2026-03-15T09:00:00.000Z'))).dueDate).toBe('2028-03-15T09:00:00.000Z');
    expect((await next(await recurring('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29', '2028-02-29T09:00:00.000Z'))).dueDate).toBe('2032-02-29T09:00:00.000Z');
  });

  it('weekly on chosen weekdays: every 2 weeks on Monday and Thursday', async () => {
    // 2026-03-02 is a Monday.
    const monday = await recurring('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH', '2026-03-02T08:00:00.000Z');
    const thursday = await next(monday);
    expect(thursday.dueDate).toBe('2026-03-05T08:00:00.000Z');
    expect((await next(thursday)).dueDate).toBe('2026-03-16T08:00:00.000Z');
  });

  it('a daily rule in whole weeks keeps its weekday: every 7 days from a Monday, and none at all on other named days', async () => {
    const monday = await recurring('FREQ=DAILY;INTERVAL=7;BYDAY=MO', '2026-03-02T08:00:00.000Z');
    expect(monday.nextDueDate).toBe('2026-03-09T08:00:00.000Z');
    // From a Tuesday, the steps never reach a Monday: no next date (answered at once, not after a search to the year 9999).
    const tuesday = await recurring('FREQ=DAILY;INTERVAL=14;BYDAY=MO,FR', '2026-03-03T08:00:00.000Z');
    expect(tuesday).toMatchObject({ recurrence: 'FREQ=DAILY;INTERVAL=14;BYDAY=MO,FR', nextDueDate: null });
    expect((await complete(tuesday.id)).status).toBe(200);
    expect(await occurrencesOf(tuesday.id)).toEqual([]);
  });

  it('monthly on the last weekday (BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1)', async () => {
    const task = await recurring('FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1', '2026-03-02T08:00:00.000Z');
    expect(task.nextDueDate).toBe('2026-03-31T08:00:00.000Z');
    expect((await next(task)).nextDueDate).toBe('2026-04-30T08:00:00.000Z');
  });

  it('COUNT: counts this task and those after it; the last one makes none', async () => {
    const first = await recurring('FREQ=DAILY;COUNT=3', '2026-06-01T12:00:00.000Z');
    const second = await next(first);
    expect(second).toMatchObject({ dueDate: '2026-06-02T12:00:00.000Z', recurrence: 'FREQ=DAILY;COUNT=2' });
    const third = await next(second);
    expect(third).toMatchObject({ dueDate: '2026-06-03T12:00:00.000Z', recurrence: 'FREQ=DAILY;COUNT=1', nextDueDate: null });
    expect((await complete(third.id)).status).toBe(200);
    expect(await occurrencesOf(third.id)).toEqual([]);
  });

  it('UNTIL: no occurrence after it', async () => {
    const first = await recurring('FREQ=WEEKLY;UNTIL=20260615T000000Z', '2026-06-01T12:00:00.000Z');
    const second = await next(first);
    expect(second).toMatchObject({ dueDate: '2026-06-08T12:00:00.000Z', recurrence: 'FREQ=WEEKLY;UNTIL=20260615T000000Z', nextDueDate: null });
    expect((await complete(second.id)).status).toBe(200);
    expect(await occurrencesOf(second.id)).toEqual([]);
  });

  it('reopening and completing again makes no second occurrence; a move into DONE completes as PATCH does', async () => {
    const task = await recurring('FREQ=DAILY', '2026-07-01T12:00:00.000Z');
    await next(task);
    expect((await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { status: 'TODO' } })).status).toBe(200);
    expect((await complete(task.id)).status).toBe(200);
    expect((await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { status: 'IN_PROGRESS' } })).status).toBe(200);
    expect((await t.request('POST', `/api/v1/tasks/${task.id}/move`, { token: owner.token, body: { status: 'DONE' } })).status).toBe(200);
    expect(await occurrencesOf(task.id)).toHaveLength(1);

    const moved = await recurring('FREQ=DAILY', '2026-07-01T12:00:00.000Z');
    expect((await t.request('POST', `/api/v1/tasks/${moved.id}/move`, { token: owner.token, body: { status: 'DONE' } })).status).toBe(200);
    expect(await occurrencesOf(moved.id)).toMatchObject([{ dueDate: '2026-07-02T12:00:00.000Z' }]);
  });

  it('exactly one next occurrence under concurrent completes, on one instance and across two', async () => {
    const second = await startSecondInstance(t);
    try {
      for (let round = 0; round < 3; round += 1) {
        const task = await recurring('FREQ=DAILY', '2026-08-01T12:00:00.000Z');
        const body = JSON.stringify({ status: 'DONE' });
        const headers = { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' };
        const url = `/api/v1/tasks/${task.id}`;
        const responses = await Promise.all([
          complete(task.id),
          complete(task.id, colleague.token),
          second.app.inject({ method: 'PATCH', url, headers, payload: body }),
          second.app.inject({ method: 'POST', url: `${url}/move`, headers, payload: body }),
        ]);
        expect(responses.map((response) => ('status' in response ? response.status : response.statusCode))).toEqual([200, 200, 200, 200]);
        expect(await occurrencesOf(task.id)).toHaveLength(1);
      }
    } finally {
      await second.close();
    }
  });

  it('completions that make occurrences race task creations and state deletions without a deadlock', async () => {
    const tasks = await Promise.all(Array.from({ length: 6 }, () => recurring('FREQ=DAILY', '2026-09-01T12:00:00.000Z')));
    const creates = Array.from({ length: 6 }, (_, index) =>
      t.request('POST', '/api/v1/tasks', { token: colleague.token, body: { title: `Errand ${index}`, projectId } }),
    );
    const responses = await Promise.all([...tasks.map((task, index) => complete(task.id, index % 2 ? colleague.token : owner.token)), ...creates]);
    expect(responses.map((response) => response.status)).toEqual([...tasks.map(() => 200), ...creates.map(() => 201)]);
    for (const task of tasks) expect(await occurrencesOf(task.id)).toHaveLength(1);
  });

  it('the next occurrence copies the custom field values of every type (as it copies labels)', async () => {
    const field = async (name: string, type: string, options?: string[]) => {
      const response = await t.request('POST', `/api/v1/projects/${projectId}/fields`, { token: owner.token, body: { name, type, options: options?.map((option) => ({ name: option })) } });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body as { id: string; options: { id: string; name: string }[] };
    };
    const [text, number, date, select, multi, user, checkbox, url] = [
      await field('Account', 'text'),
      await field('Amount', 'number'),
      await field('Signed', 'date'),
      await field('Bank', 'select', ['Giro', 'Savings']),
      await field('Tags', 'multi_select', ['fixed', 'shared', 'monthly']),
      await field('Payer', 'user'),
      await field('Direct debit', 'checkbox'),
      await field('Portal', 'url'),
    ];
    const fields = {
      [text!.id]: 'DE89 3704',
      [number!.id]: 950.5,
      [date!.id]: '2025-12-01',
      [select!.id]: select!.options[1]!.id,
      [multi!.id]: [multi!.options[0]!.id, multi!.options[2]!.id],
      [user!.id]: colleague.id,
      [checkbox!.id]: false,
      [url!.id]: 'https://bank.example/portal',
    };
    const first = await recurring('FREQ=MONTHLY', '2026-01-01T09:00:00.000Z', { fields });
    expect(first.fields).toEqual(fields);
    const second = await next(first);
    expect(second.fields).toEqual(fields);
    // As read back, and as the occurrence's creation event gives it (webhooks, live streams, history).
    expect((await t.request('GET', `/api/v1/tasks/${second.id}`, { token: owner.token })).body.fields).toEqual(fields);
    const history = await t.request('GET', `/api/v1/tasks/${second.id}/activity`, { token: owner.token });
    expect(history.body.find((event: { type: string }) => event.type === 'task.created').resource.fields).toEqual(fields);
    // The copy is the occurrence's own: changing it leaves the completed task's alone.
    expect((await t.request('PATCH', `/api/v1/tasks/${second.id}`, { token: owner.token, body: { fields: { [number!.id]: 1, [text!.id]: null } } })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/tasks/${first.id}`, { token: owner.token })).body.fields).toEqual(fields);
    const { [text!.id]: _cleared, ...rest } = fields;
    expect((await next({ ...second })).fields).toEqual({ ...rest, [number!.id]: 1 });
  });

  it('the next occurrence holds the labels and field values set by the very change that completes the task', async () => {
    const field = await t.request('POST', `/api/v1/projects/${projectId}/fields`, { token: owner.token, body: { name: 'Receipt', type: 'text' } });
    expect(field.status).toBe(201);
    const label = await t.request('POST', `/api/v1/projects/${projectId}/labels`, { token: owner.token, body: { name: 'paid', color: '#16a34a' } });
    expect(label.status, JSON.stringify(label.body)).toBe(201);
    const first = await recurring('FREQ=WEEKLY', '2026-03-02T09:00:00.000Z');
    expect(first.fields).toEqual({});
    const done = await t.request('PATCH', `/api/v1/tasks/${first.id}`, {
      token: owner.token,
      body: { status: 'DONE', labelIds: [label.body.id], fields: { [field.body.id]: 'R-1' } },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const [second] = await occurrencesOf(first.id);
    expect(second!.fields).toEqual({ [field.body.id]: 'R-1' });
    expect(second!.labelIds).toEqual([label.body.id]);
  });

  it('deleting a state with moveTo a completed state completes its recurring tasks: each makes its next occurrence, once', async () => {
    const waiting = await t.request('POST', `/api/v1/projects/${projectId}/states`, { token: owner.token, body: { name: 'Waiting', category: 'started' } });
    expect(waiting.status).toBe(201);
    const field = (await t.request('POST', `/api/v1/projects/${projectId}/fields`, { token: owner.token, body: { name: 'Cost centre', type: 'text' } })).body;
    const a = await recurring('FREQ=WEEKLY', '2026-09-07T10:00:00.000Z', { status: 'WAITING', fields: { [field.id]: 'CC-1' } });
    const b = await recurring('FREQ=DAILY;COUNT=2', '2026-09-07T10:00:00.000Z', { status: 'WAITING' });
    const last = await recurring('FREQ=DAILY;COUNT=1', '2026-09-07T10:00:00.000Z', { status: 'WAITING' });
    // Made its occurrence before, reopened into WAITING: its completion by the deletion makes none.
    const reopened = await recurring('FREQ=DAILY', '2026-09-07T10:00:00.000Z');
    await next(reopened);
    expect((await t.request('PATCH', `/api/v1/tasks/${reopened.id}`, { token: owner.token, body: { status: 'WAITING' } })).status).toBe(200);

    const deleted = await t.request('DELETE', `/api/v1/projects/${projectId}/states/${waiting.body.id}?moveTo=DONE`, { token: owner.token });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    for (const task of [a, b, last, reopened]) expect((await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).body).toMatchObject({ status: 'DONE', completedAt: expect.any(String) });
    expect(await occurrencesOf(a.id)).toMatchObject([{ status: 'TODO', dueDate: '2026-09-14T10:00:00.000Z', fields: { [field.id]: 'CC-1' }, recurrence: 'FREQ=WEEKLY' }]);
    expect(await occurrencesOf(b.id)).toMatchObject([{ status: 'TODO', dueDate: '2026-09-08T10:00:00.000Z', recurrence: 'FREQ=DAILY;COUNT=1', nextDueDate: null }]);
    expect(await occurrencesOf(last.id)).toEqual([]);
    expect(await occurrencesOf(reopened.id)).toHaveLength(1);
    // Each occurrence's creation is recorded, after the moved task's update, as a completion by PATCH records them.
    const [occurrence] = await occurrencesOf(a.id);
    const history = await t.request('GET', `/api/v1/tasks/${occurrence!.id}/activity`, { token: owner.token });
    expect(history.body).toMatchObject([{ type: 'task.created', actorId: owner.id, resource: { recurredFromId: a.id } }]);
  });

  it('deleting the first unstarted state with moveTo a completed one puts the occurrences in the next unstarted state', async () => {
    const own = (await createProject(t, owner, 'Shifts')).id;
    const states = (await t.request('GET', `/api/v1/projects/${own}/states`, { token: owner.token })).body as { id: string; key: string }[];
    expect((await t.request('POST', `/api/v1/projects/${own}/states`, { token: owner.token, body: { name: 'Backlog', category: 'unstarted' } })).status).toBe(201);
    const task = (await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: 'Rota', projectId: own, recurrence: 'FREQ=DAILY', dueDate: '2026-10-01T10:00:00.000Z' } })).body as Task;
    expect(task.status).toBe('TODO');
    const todo = states.find((state) => state.key === 'TODO')!;
    expect((await t.request('DELETE', `/api/v1/projects/${own}/states/${todo.id}?moveTo=DONE`, { token: owner.token })).status).toBe(200);
    const listed = (await t.request('GET', `/api/v1/tasks/project/${own}`, { token: owner.token })).body as Task[];
    expect(listed.filter((candidate) => candidate.recurredFromId === task.id)).toMatchObject([{ status: 'BACKLOG', dueDate: '2026-10-02T10:00:00.000Z' }]);
  });

  it('nextDueDate is stored with the rule and the due date; a row from before migration 0019 reads it, and stores it on its next write', async () => {
    const task = await recurring('FREQ=WEEKLY', '2026-03-02T08:00:00.000Z');
    expect(task.nextDueDate).toBe('2026-03-09T08:00:00.000Z');
    const stored = async () => {
      const rows = await t.database.db.execute(sql`select next_due_date from tasks where id = ${task.id}::uuid`);
      const [row] = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as { next_due_date: Date | string | null }[];
      return row!.next_due_date === null ? null : new Date(row!.next_due_date).toISOString();
    };
    expect(await stored()).toBe('2026-03-09T08:00:00.000Z');
    const moved = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { dueDate: '2026-03-04T08:00:00.000Z' } });
    expect(moved.body.nextDueDate).toBe('2026-03-11T08:00:00.000Z');
    expect(await stored()).toBe('2026-03-11T08:00:00.000Z');
    const ruled = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { recurrence: 'FREQ=DAILY' } });
    expect(ruled.body.nextDueDate).toBe('2026-03-05T08:00:00.000Z');
    expect(await stored()).toBe('2026-03-05T08:00:00.000Z');

    // As a row written before the column existed.
    await t.database.db.execute(sql`update tasks set next_due_date = null where id = ${task.id}::uuid`);
    expect((await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).body.nextDueDate).toBe('2026-03-05T08:00:00.000Z');
    expect((await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { title: 'Renamed' } })).body.nextDueDate).toBe('2026-03-05T08:00:00.000Z');
    expect(await stored()).toBe('2026-03-05T08:00:00.000Z');

    const cleared = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { recurrence: null } });
    expect(cleared.body.nextDueDate).toBeNull();
    expect(await stored()).toBeNull();
  });

  it('PATCH sets, changes and clears the rule; the change is in the history', async () => {
    const task = await recurring(null, '2026-03-02T08:00:00.000Z');
    const set = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { recurrence: 'FREQ=MONTHLY;BYMONTHDAY=-1' } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ recurrence: 'FREQ=MONTHLY;BYMONTHDAY=-1', nextDueDate: '2026-03-31T08:00:00.000Z' });
    const history = await t.request('GET', `/api/v1/tasks/${task.id}/activity`, { token: owner.token });
    expect(history.body[0].changes).toEqual({ recurrence: { old: null, new: 'FREQ=MONTHLY;BYMONTHDAY=-1' } });
    const cleared = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { recurrence: null } });
    expect(cleared.body).toMatchObject({ recurrence: null, nextDueDate: null });
    await complete(task.id);
    expect(await occurrencesOf(task.id)).toEqual([]);
  });

  it('a rule needs a dueDate: 400 naming recurrence, on create and on PATCH (either field)', async () => {
    const noDue = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: 'x', projectId, recurrence: 'FREQ=DAILY' } });
    expect(noDue.status).toBe(400);
    expect(noDue.body).toMatchObject({ reason: 'RECURRENCE_NEEDS_DUE_DATE', issues: [{ path: ['recurrence'] }] });
    const plain = await recurring(null, null);
    const patch = await t.request('PATCH', `/api/v1/tasks/${plain.id}`, { token: owner.token, body: { recurrence: 'FREQ=DAILY' } });
    expect(patch.status).toBe(400);
    expect(patch.body.issues[0].path).toEqual(['recurrence']);
    const task = await recurring('FREQ=DAILY', '2026-03-02T08:00:00.000Z');
    const clearDue = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { dueDate: null } });
    expect(clearDue.status).toBe(400);
    expect(clearDue.body.issues[0].path).toEqual(['recurrence']);
  });

  it.each([
    'FREQ=HOURLY',
    'FREQ=SECONDLY',
    'FREQ=MONTHLY;INTERVAL=0',
    'FREQ=MONTHLY;INTERVAL=abc',
    'FREQ=WEEKLY;BYDAY=XX',
    'FREQ=WEEKLY;BYDAY=1MO',
    'FREQ=MONTHLY;BYDAY=6FR',
    'FREQ=MONTHLY;BYMONTHDAY=32',
    'FREQ=YEARLY;BYMONTH=13',
    'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30',
    'FREQ=DAILY;BYMONTH=4;BYMONTHDAY=31',
    'FREQ=WEEKLY;BYDAY=MO;BYSETPOS=2',
    'FREQ=MONTHLY;BYSETPOS=1',
    'FREQ=DAILY;BYDAY=MO;BYSETPOS=1',
    'FREQ=YEARLY;BYMONTH=2;BYDAY=MO;BYSETPOS=6',
    'FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;BYSETPOS=1',
    'FREQ=DAILY;COUNT=0',
    'FREQ=DAILY;COUNT=2;UNTIL=20270101',
    'FREQ=DAILY;UNTIL=tomorrow',
    'FREQ=DAILY;FREQ=WEEKLY',
    'FREQ=DAILY;BYHOUR=9',
    'DTSTART=20260101T000000Z;FREQ=DAILY',
    'INTERVAL=2',
    'every day',
    '',
    'FREQ=DAILY;',
  ])('refuses %j: 400 INVALID_RECURRENCE naming recurrence, on create and PATCH', async (rule) => {
    const created = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: 'x', projectId, recurrence: rule, dueDate: '2026-03-02T08:00:00.000Z' } });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ reason: 'INVALID_RECURRENCE', issues: [{ path: ['recurrence'] }] });
    const task = await recurring(null, '2026-03-02T08:00:00.000Z');
    const patched = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { recurrence: rule } });
    expect(patched.status).toBe(400);
    expect(patched.body.issues[0].path).toEqual(['recurrence']);
  });

  it('refuses an over-long rule (the schema: 400 naming recurrence)', async () => {
    const response = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: 'x', projectId, recurrence: `FREQ=DAILY;${'BYMONTH=1;'.repeat(60)}`, dueDate: '2026-03-02T08:00:00.000Z' } });
    expect(response.status).toBe(400);
    expect(response.body.issues[0].path).toEqual(['recurrence']);
  });
});
