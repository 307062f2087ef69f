import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from './support/checks';
import { capturedLog, createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';

/** The feed's events, read by Mozilla's iCalendar parser. */
function eventsOf(body: string) {
  const calendar = new ICAL.Component(ICAL.parse(body));
  expect(calendar.name).toBe('vcalendar');
  return calendar.getAllSubcomponents('vevent').map((component) => {
    const event = new ICAL.Event(component);
    return {
      uid: event.uid,
      summary: event.summary,
      description: event.description,
      url: String(component.getFirstPropertyValue('url')),
      sequence: event.sequence,
      start: event.startDate,
      end: event.endDate,
    };
  });
}

/** A new task, with its key. */
const keyed = async (...args: Parameters<typeof createTask>) => (await createTask(...args)) as unknown as { id: string; key: string };

/** The path of a feed's address (the test app's public URL is not where it listens). */
const pathOf = (url: string) => new URL(url).pathname;

describe('the calendar feed: a secret address serving my dated tasks as iCalendar', () => {
  let t: TestApp;
  let ada: TestUser;
  let grace: TestUser;
  const log = capturedLog();

  beforeAll(async () => {
    t = await startTestApp({ logLevel: 'info' }, { logStream: log.stream });
    ada = await registerUser(t, 'Ada');
    grace = await registerUser(t, 'Grace');
  });
  afterAll(() => t.close());

  const makeFeed = async (user: TestUser) => {
    const response = await t.request('POST', '/api/v1/auth/me/calendar-feed', { token: user.token, body: {} });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.headers.location).toBe('/api/v1/auth/me/calendar-feed');
    expect(response.body.url).toMatch(/^http:\/\/tasklane\.test\/ical\/[A-Za-z0-9_-]{43}\.ics$/);
    return response.body.url as string;
  };

  it('serves one event per task assigned to me with a due date, in my projects only, with key, title, status and link', async () => {
    const project = await createProject(t, ada, 'Feed');
    await invite(t, ada, project.id, grace, 'EDITOR');
    const timed = await keyed(t, ada, project.id, { title: 'Ship it', assigneeId: ada.id, dueDate: '2030-03-04T15:30:00Z' });
    const allDay = await keyed(t, ada, project.id, { title: 'Plan', assigneeId: ada.id, dueDate: '2030-03-01T00:00:00Z', status: 'IN_PROGRESS' });
    await keyed(t, ada, project.id, { title: 'No date', assigneeId: ada.id });
    await keyed(t, ada, project.id, { title: 'Grace’s', assigneeId: grace.id, dueDate: '2030-03-05T10:00:00Z' });
    await keyed(t, ada, project.id, { title: 'Long ago', assigneeId: ada.id, dueDate: '2001-01-01T10:00:00Z' });

    const url = await makeFeed(ada);
    const response = await t.request('GET', pathOf(url));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const events = eventsOf((response.body as string));
    expect(events.map((event) => event.summary)).toEqual([`${allDay.key} Plan`, `${timed.key} Ship it`]);
    const [plan, ship] = events;
    expect(plan!.uid).toBe(`task-${allDay.id}@tasklane.test`);
    expect(plan!.start.isDate).toBe(true);
    expect(plan!.start.toString()).toBe('2030-03-01');
    expect(plan!.description).toContain('Status: IN_PROGRESS');
    expect(plan!.url).toBe(`http://tasklane.test/tasks/${allDay.key}`);
    expect(ship!.start.isDate).toBe(false);
    expect(ship!.start.toJSDate().toISOString()).toBe('2030-03-04T15:30:00.000Z');
    expect(ship!.description).toContain('Status: TODO');

    const head = await t.request('HEAD', pathOf(url));
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/calendar; charset=utf-8');
  });

  it('keeps an updated task’s UID and raises its SEQUENCE; a task I no longer hold or a project I left is gone', async () => {
    const project = await createProject(t, grace, 'Shared');
    await invite(t, grace, project.id, ada, 'EDITOR');
    const task = await keyed(t, grace, project.id, { title: 'Before', assigneeId: ada.id, dueDate: '2030-05-01T09:00:00Z' });
    const other = await keyed(t, grace, project.id, { title: 'Handed on', assigneeId: ada.id, dueDate: '2030-05-02T09:00:00Z' });
    const url = await makeFeed(ada);
    const read = async () => eventsOf((await t.request('GET', pathOf(url))).body as string).filter((event) => event.uid.includes(task.id) || event.uid.includes(other.id));
    const [first] = await read();

    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: grace.token, body: { title: 'After', dueDate: '2030-05-03T09:00:00Z' } })).status).toBe(200);
    expect((await t.request('PATCH', `/api/v1/tasks/${other.id}`, { token: grace.token, body: { assigneeId: grace.id } })).status).toBe(200);
    const after = await read();
    expect(after.map((event) => event.uid)).toEqual([first!.uid]);
    expect(after[0]!.summary).toBe(`${task.key} After`);
    expect(after[0]!.sequence).toBeGreaterThan(first!.sequence);

    const members = (await t.request('GET', `/api/v1/projects/${project.id}/members`, { token: grace.token })).body as { id: string; userId: string }[];
    const adaMember = members.find((member) => member.userId === ada.id)!;
    expect((await t.request('DELETE', `/api/v1/projects/${project.id}/members/${adaMember.id}`, { token: grace.token })).status).toBe(200);
    expect(await read()).toEqual([]);
  });

  it('a new address replaces the old one (404); ending the feed makes its address 404, and ending none is a 404', async () => {
    const first = await makeFeed(grace);
    const status = await t.request('GET', '/api/v1/auth/me/calendar-feed', { token: grace.token });
    expect(status.body).toEqual({ active: true, createdAt: expect.any(String) });
    const second = await makeFeed(grace);
    expect(second).not.toBe(first);
    expectErrorBody(await t.request('GET', pathOf(first)), 404, { message: 'Calendar feed not found' });
    expect((await t.request('GET', pathOf(second))).status).toBe(200);

    expect((await t.request('DELETE', '/api/v1/auth/me/calendar-feed', { token: grace.token })).status).toBe(200);
    expectErrorBody(await t.request('GET', pathOf(second)), 404, { message: 'Calendar feed not found' });
    expect((await t.request('GET', '/api/v1/auth/me/calendar-feed', { token: grace.token })).body).toEqual({ active: false, createdAt: null });
    expectErrorBody(await t.request('DELETE', '/api/v1/auth/me/calendar-feed', { token: grace.token }), 404, { message: 'Calendar feed not found' });
    for (const path of ['/ical/nothing.ics', '/ical/short', `/ical/${'a'.repeat(43)}.ics`, '/ical/%00.ics']) {
      expect((await t.request('GET', path)).status, path).toBe(404);
    }
  });

  it('needs a login token to make or end the address (a personal access token gets 403), and needs a token at all', async () => {
    const pat = await t.request('POST', '/api/v1/auth/tokens', { token: ada.token, body: { name: 'Script', scopes: ['admin'] } });
    expectErrorBody(await t.request('POST', '/api/v1/auth/me/calendar-feed', { token: pat.body.token, body: {} }), 403, { reason: 'SESSION_REQUIRED' });
    expectErrorBody(await t.request('DELETE', '/api/v1/auth/me/calendar-feed', { token: pat.body.token }), 403, { reason: 'SESSION_REQUIRED' });
    expect((await t.request('GET', '/api/v1/auth/me/calendar-feed', { token: pat.body.token })).status).toBe(200);
    expectErrorBody(await t.request('POST', '/api/v1/auth/me/calendar-feed', { body: {} }), 401);
  });

  it('never writes the address’s token to the log', async () => {
    const url = await makeFeed(ada);
    const token = /\/ical\/([^.]+)\.ics$/.exec(url)![1]!;
    expect((await t.request('GET', `${pathOf(url)}?x=1`)).status).toBe(200);
    const logged = log.text();
    expect(logged).toContain('/ical/[redacted].ics');
    expect(logged).not.toContain(token);
  });
});
