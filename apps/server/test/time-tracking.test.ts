import { timers } from '@tasklane/db';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePermissions } from './support/permissions';
import { castProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestResponse, type TestUser } from './support/harness';

const today = () => new Date().toISOString().slice(0, 10);

describe('time tracking: estimates, time entries, the timer and reports', () => {
  let t: TestApp;
  let owner: TestUser;
  let admin: TestUser;
  let editor: TestUser;
  let otherEditor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    admin = await registerUser(t, 'Admin');
    editor = await registerUser(t, 'Eddie Editor');
    otherEditor = await registerUser(t, 'Other Editor');
    viewer = await registerUser(t, 'Viewer');
    outsider = await registerUser(t, 'Outsider');
  });
  afterAll(() => t.close());

  async function cast() {
    const { projectId } = await castProject(t, { owner, ADMIN: admin, EDITOR: editor, VIEWER: viewer }, 'Timed');
    await invite(t, owner, projectId, otherEditor, 'EDITOR');
    const taskId = (await createTask(t, owner, projectId)).id;
    return { projectId, taskId };
  }

  const log = (user: TestUser, taskId: string, body: Record<string, unknown>) => t.request('POST', `/api/v1/tasks/${taskId}/time-entries`, { token: user.token, body });
  const getTask = async (user: TestUser, taskId: string) => (await t.request('GET', `/api/v1/tasks/${taskId}`, { token: user.token })).body;

  it('pages a task\'s time entries, newest date first, through the Link header and over tRPC', async () => {
    const { taskId } = await cast();
    // Seven entries over four dates, two logged on some dates: the order is date, then newest logged.
    const dates = ['2026-03-01', '2026-03-03', '2026-03-02', '2026-03-03', '2026-03-01', '2026-03-04', '2026-03-02'];
    const created: { id: string; date: string }[] = [];
    for (const [index, date] of dates.entries()) {
      const response = await log(editor, taskId, { minutes: index + 1, date });
      expect(response.status).toBe(201);
      created.push(response.body);
    }
    const expected = created
      .map((entry, index) => ({ ...entry, index }))
      .sort((a, b) => b.date.localeCompare(a.date) || b.index - a.index)
      .map((entry) => entry.id);

    const seen: string[] = [];
    let pages = 0;
    let url: string | undefined = `/api/v1/tasks/${taskId}/time-entries?limit=3`;
    while (url) {
      const response: TestResponse = await t.request('GET', url, { token: viewer.token });
      expect(response.status).toBe(200);
      expect(response.body.length).toBeLessThanOrEqual(3);
      seen.push(...response.body.map((entry: { id: string }) => entry.id));
      pages += 1;
      url = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link ?? ''))?.[1];
    }
    expect(seen).toEqual(expected);
    expect(pages).toBe(3);

    const page = await t.request('GET', `/api/trpc/time.listEntries?input=${encodeURIComponent(JSON.stringify({ id: taskId, limit: 5 }))}`, { token: viewer.token });
    expect(page.body.result.data.items.map((entry: { id: string }) => entry.id)).toEqual(expected.slice(0, 5));
    const rest = await t.request('GET', `/api/v1/tasks/${taskId}/time-entries?cursor=${page.body.result.data.nextCursor}`, { token: viewer.token });
    expect(rest.body.map((entry: { id: string }) => entry.id)).toEqual(expected.slice(5));
    expect(rest.headers.link).toBeUndefined();

    for (const query of ['cursor=nonsense', 'limit=0', 'limit=501']) {
      expect((await t.request('GET', `/api/v1/tasks/${taskId}/time-entries?${query}`, { token: viewer.token })).status, query).toBe(400);
    }
  });

  it('takes estimates on create and PATCH, totals them per state, and keeps the project unit', async () => {
    const { projectId, taskId } = await cast();
    expect(await getTask(owner, taskId)).toMatchObject({ estimate: null, timeSpentMinutes: 0 });
    const second = await t.request('POST', '/api/v1/tasks', { token: editor.token, body: { title: 'Estimated', projectId, estimate: 2.5 } });
    expect(second.status).toBe(201);
    expect(second.body.estimate).toBe(2.5);
    const patched = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: editor.token, body: { estimate: 3 } });
    expect(patched.status).toBe(200);
    expect(patched.body.estimate).toBe(3);
    await t.request('PATCH', `/api/v1/tasks/${second.body.id}`, { token: editor.token, body: { status: 'DONE' } });

    for (const estimate of [-1, 'three', Number.MAX_VALUE]) {
      const refused = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: editor.token, body: { estimate } });
      expect(refused.status).toBe(400);
      expect(refused.body.issues[0].path).toEqual(['estimate']);
    }

    const project = await t.request('GET', `/api/v1/projects/${projectId}`, { token: viewer.token });
    expect(project.body.estimateUnit).toBe('points');
    expect(project.body.estimateTotals).toMatchObject({ TODO: 3, DONE: 2.5, IN_PROGRESS: 0 });

    expect((await t.request('PATCH', `/api/v1/projects/${projectId}`, { token: editor.token, body: { estimateUnit: 'hours' } })).status).toBe(403);
    expect((await t.request('PATCH', `/api/v1/projects/${projectId}`, { token: admin.token, body: { estimateUnit: 'days' } })).status).toBe(400);
    const hours = await t.request('PATCH', `/api/v1/projects/${projectId}`, { token: admin.token, body: { estimateUnit: 'hours' } });
    expect(hours.status).toBe(200);
    expect(hours.body.estimateUnit).toBe('hours');

    const cleared = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: editor.token, body: { estimate: null } });
    expect(cleared.body.estimate).toBeNull();
  });

  it('logs entries, validates them, sums them on the task and records their events', async () => {
    const { projectId, taskId } = await cast();
    const created = await log(editor, taskId, { minutes: 90, date: '2026-11-20', note: 'Drafting' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ taskId, userId: editor.id, minutes: 90, date: '2026-11-20', note: 'Drafting' });
    expect(created.headers.location).toBe(`/api/v1/time-entries/${created.body.id}`);
    expect((await t.request('GET', created.headers.location as string, { token: viewer.token })).body).toEqual(created.body);
    expect((await t.request('GET', created.headers.location as string, { token: outsider.token })).status).toBe(404);
    const defaulted = await log(editor, taskId, { minutes: 15 });
    expect(defaulted.body).toMatchObject({ date: today(), note: '' });

    const bad: [Record<string, unknown>, string][] = [
      [{ minutes: 0 }, 'minutes'],
      [{ minutes: 1441 }, 'minutes'],
      [{ minutes: 1.5 }, 'minutes'],
      [{ minutes: '30' }, 'minutes'],
      [{}, 'minutes'],
      [{ minutes: 30, date: '2026-02-30' }, 'date'],
      [{ minutes: 30, date: '27.11.2026' }, 'date'],
      [{ minutes: 30, note: 'x'.repeat(2001) }, 'note'],
    ];
    for (const [body, field] of bad) {
      const refused = await log(editor, taskId, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.issues[0].path).toEqual([field]);
    }
    expect((await log(editor, taskId, { minutes: 30, extra: true })).status).toBe(400);

    expect((await getTask(viewer, taskId)).timeSpentMinutes).toBe(105);
    const listed = await t.request('GET', `/api/v1/tasks/${taskId}/time-entries`, { token: viewer.token });
    expect(listed.status).toBe(200);
    expect(listed.body.map((entry: { minutes: number }) => entry.minutes)).toEqual([15, 90]);

    const changed = await t.request('PATCH', `/api/v1/time-entries/${created.body.id}`, { token: editor.token, body: { minutes: 120 } });
    expect(changed.status).toBe(200);
    expect(changed.body.minutes).toBe(120);
    expect((await t.request('DELETE', `/api/v1/time-entries/${defaulted.body.id}`, { token: editor.token })).status).toBe(200);
    expect((await getTask(viewer, taskId)).timeSpentMinutes).toBe(120);

    const history = await t.request('GET', `/api/v1/projects/${projectId}/activity`, { token: owner.token });
    const types = history.body.map((event: { type: string }) => event.type);
    expect(types).toEqual(expect.arrayContaining(['time_entry.created', 'time_entry.updated', 'time_entry.deleted']));
    const update = history.body.find((event: { type: string }) => event.type === 'time_entry.updated');
    expect(update.changes).toEqual({ minutes: { old: 90, new: 120 } });
  });

  it('lets the author, ADMIN and owner change an entry; others get 403; non-members 404', async () => {
    const { taskId } = await cast();
    const entry = (await log(editor, taskId, { minutes: 10 })).body;
    const path = `/api/v1/time-entries/${entry.id}`;
    expect((await log(viewer, taskId, { minutes: 10 })).status).toBe(403);
    expect((await t.request('PATCH', path, { token: otherEditor.token, body: { minutes: 11 } })).status).toBe(403);
    expect((await t.request('DELETE', path, { token: viewer.token })).status).toBe(403);
    expect((await t.request('PATCH', path, { token: admin.token, body: { note: 'fixed' } })).status).toBe(200);
    expect((await t.request('PATCH', path, { token: owner.token, body: { minutes: 12 } })).status).toBe(200);

    expect((await log(outsider, taskId, { minutes: 10 })).status).toBe(404);
    expect((await t.request('GET', `/api/v1/tasks/${taskId}/time-entries`, { token: outsider.token })).status).toBe(404);
    expect((await t.request('PATCH', path, { token: outsider.token, body: { minutes: 1 } })).status).toBe(404);
    expect((await t.request('DELETE', path, { token: outsider.token })).status).toBe(404);
    expect((await t.request('POST', `/api/v1/tasks/${taskId}/timer`, { token: outsider.token })).status).toBe(404);
    expect((await t.request('DELETE', '/api/v1/time-entries/not-an-id', { token: owner.token })).status).toBe(404);
    expect((await t.request('DELETE', path, { token: admin.token })).status).toBe(200);
    expect((await t.request('DELETE', path, { token: admin.token })).status).toBe(404);
  });

  it('runs one timer per user: starting another stops the first into an entry; stopping logs it', async () => {
    const { projectId, taskId } = await cast();
    const otherTaskId = (await createTask(t, owner, projectId, { title: 'Other' })).id;
    expect((await t.request('GET', '/api/v1/auth/me/timer', { token: editor.token })).body).toBeNull();
    expect((await t.request('DELETE', '/api/v1/auth/me/timer', { token: editor.token })).status).toBe(404);
    expect((await t.request('POST', `/api/v1/tasks/${taskId}/timer`, { token: viewer.token })).status).toBe(403);

    const first = await t.request('POST', `/api/v1/tasks/${taskId}/timer`, { token: editor.token });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ timer: { taskId, userId: editor.id }, stopped: null });
    // As if it had run 50 minutes.
    await t.database.db.update(timers).set({ startedAt: new Date(Date.now() - 50 * 60_000) }).where(eq(timers.userId, editor.id));

    const second = await t.request('POST', `/api/v1/tasks/${otherTaskId}/timer`, { token: editor.token });
    expect(second.status).toBe(200);
    expect(second.body.timer.taskId).toBe(otherTaskId);
    expect(second.body.stopped).toMatchObject({ taskId, userId: editor.id, minutes: 50 });
    expect((await t.request('GET', '/api/v1/auth/me/timer', { token: editor.token })).body).toMatchObject({ taskId: otherTaskId });
    const count = await t.database.db.execute(sql`select count(*)::int as n from timers where user_id = ${editor.id}`);
    expect(Number(((count as unknown as { rows?: { n: number }[] }).rows ?? (count as unknown as { n: number }[]))[0]!.n)).toBe(1);

    await t.database.db.update(timers).set({ startedAt: new Date(Date.now() - 20 * 60_000) }).where(eq(timers.userId, editor.id));
    const stopped = await t.request('DELETE', '/api/v1/auth/me/timer', { token: editor.token });
    expect(stopped.status).toBe(200);
    expect(stopped.body.entry).toMatchObject({ taskId: otherTaskId, minutes: 20 });
    expect((await t.request('GET', '/api/v1/auth/me/timer', { token: editor.token })).body).toBeNull();
    expect((await getTask(editor, taskId)).timeSpentMinutes).toBe(50);

    // Another user's timer is their own.
    expect((await t.request('POST', `/api/v1/tasks/${taskId}/timer`, { token: otherEditor.token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/auth/me/timer', { token: editor.token })).body).toBeNull();
    expect((await t.request('DELETE', '/api/v1/auth/me/timer', { token: otherEditor.token })).body).toEqual({ entry: null });
  });

  it('stops a timer left running over 24 hours at 24 hours', async () => {
    const { taskId } = await cast();
    await t.request('POST', `/api/v1/tasks/${taskId}/timer`, { token: admin.token });
    const started = new Date(Date.now() - 30 * 3_600_000);
    await t.database.db.update(timers).set({ startedAt: started }).where(eq(timers.userId, admin.id));
    expect((await t.request('GET', '/api/v1/auth/me/timer', { token: admin.token })).body).toBeNull();
    const entries = (await t.request('GET', `/api/v1/tasks/${taskId}/time-entries`, { token: admin.token })).body;
    expect(entries).toMatchObject([{ minutes: 1440, userId: admin.id, date: started.toISOString().slice(0, 10) }]);

    // Stopped by hand after more than a day: capped the same.
    await t.request('POST', `/api/v1/tasks/${taskId}/timer`, { token: admin.token });
    await t.database.db.update(timers).set({ startedAt: new Date(Date.now() - 26 * 3_600_000) }).where(eq(timers.userId, admin.id));
    expect((await t.request('DELETE', '/api/v1/auth/me/timer', { token: admin.token })).body.entry.minutes).toBe(1440);
  });

  it('reports minutes per user, task and day, as JSON and as CSV with formulas neutralised', async () => {
    const { projectId, taskId } = await cast();
    const hostile = (await createTask(t, owner, projectId, { title: '=HYPERLINK("http://evil.example","click")' })).id;
    await log(editor, taskId, { minutes: 30, date: '2026-11-01' });
    await log(editor, hostile, { minutes: 45, date: '2026-11-02', note: '=HYPERLINK("http://evil.example")' });
    await log(admin, hostile, { minutes: 60, date: '2026-11-02' });
    await log(admin, taskId, { minutes: 5, date: '2026-12-01' });
    const report = (groupBy: string, headers: Record<string, string> = {}, user = viewer) =>
      t.request('GET', `/api/v1/projects/${projectId}/time-report?from=2026-11-01&to=2026-11-30&groupBy=${groupBy}`, { token: user.token, headers });

    const byUser = await report('user');
    expect(byUser.status).toBe(200);
    expect(byUser.body).toEqual([
      { key: editor.id, label: 'Eddie Editor', minutes: 75 },
      { key: admin.id, label: 'Admin', minutes: 60 },
    ]);
    const byDay = await report('day');
    expect(byDay.body).toEqual([
      { key: '2026-11-01', label: '2026-11-01', minutes: 30 },
      { key: '2026-11-02', label: '2026-11-02', minutes: 105 },
    ]);
    const byTask = await report('task');
    expect(byTask.body.map((row: { key: string; minutes: number }) => [row.key, row.minutes])).toEqual([
      [hostile, 105],
      [taskId, 30],
    ]);
    expect(byTask.body[0].label).toMatch(/^[A-Z0-9]+-2 =HYPERLINK/);

    const csv = await report('task', { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = String(csv.body).split('\r\n');
    expect(lines[0]).toBe('key,label,minutes');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    // The label starts with the task key here; a cell that itself starts with a formula is prefixed.
    expect(lines[1]).toContain('=HYPERLINK(""http://evil.example"",""click"")"');
    const userTitled = await registerUser(t, '=cmd|calc!A1');
    await invite(t, owner, projectId, userTitled, 'EDITOR');
    await log(userTitled, taskId, { minutes: 1, date: '2026-11-03' });
    const usersCsv = String((await report('user', { accept: 'text/csv' })).body).split('\r\n');
    expect(usersCsv).toContain(`${userTitled.id},'=cmd|calc!A1,1`);
    for (const line of usersCsv.slice(1)) expect(line.split(',')[1] ?? '').not.toMatch(/^[=+\-@\t\r]/);

    // Every prefix a spreadsheet evaluates (=, +, -, @, tab, carriage return) is neutralised; a
    // name the server keeps as given starts its cell (one it trims cannot).
    const hostileNames = ['+SUM(1,2)', '-2+3', '@A1', '\tTAB', '\rCR'];
    const named = new Map<string, TestUser>();
    for (const name of hostileNames) {
      const user = await registerUser(t, name);
      await invite(t, owner, projectId, user, 'EDITOR');
      await log(user, taskId, { minutes: 2, date: '2026-11-04' });
      named.set(user.id, user);
    }
    const hostileCsv = String((await report('user', { accept: 'text/csv' })).body);
    for (const [id, user] of named) {
      const row = (await report('user')).body.find((candidate: { key: string }) => candidate.key === id);
      expect(row.label).toBe(user.name);
      if (/^[=+\-@\t\r]/.test(user.name)) {
        // Quoted when it holds a CR (RFC 4180); either way the cell starts with the apostrophe.
        expect(hostileCsv).toMatch(new RegExp(`${id},"?'${user.name.replace(/[+()\\]/g, '\\$&')}"?,2\r\n`));
      }
    }
    expect([...named.values()].filter((user) => /^[=+\-@\t\r]/.test(user.name)).length).toBeGreaterThanOrEqual(3);

    expect((await report('week')).status).toBe(400);
    expect((await t.request('GET', `/api/v1/projects/${projectId}/time-report?from=2026-11-30&to=2026-11-01&groupBy=day`, { token: owner.token })).status).toBe(400);
    expect((await t.request('GET', `/api/v1/projects/${projectId}/time-report?from=2026-11-01&groupBy=day`, { token: owner.token })).status).toBe(400);
    expect((await report('user', {}, outsider)).status).toBe(404);
  });
});

describePermissions([
  'GET /tasks/{id}/time-entries',
  'POST /tasks/{id}/time-entries',
  'GET /time-entries/{id}',
  'PATCH /time-entries/{id}',
  'DELETE /time-entries/{id}',
  'POST /tasks/{id}/timer',
  'GET /projects/{id}/time-report',
]);
