import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, registerUser, startTestApp, type TestApp, type TestUser } from '../../support/harness';

// Timestamps and id arrays as the drivers and drizzle's columns read them, through the API: what is
// written comes back exactly, as UTC ISO text with milliseconds, on both transports and through every
// read (one row, a page, a write's answer), including the years where a lenient date parser goes
// wrong (below 100) and the last one accepted.
const INSTANTS = [
  '2026-11-22T07:44:01.123Z',
  '2026-11-22T07:44:01.120Z',
  '2026-11-22T07:44:01.100Z',
  '2026-11-22T07:44:01.000Z',
  '0001-01-01T00:00:00.000Z',
  '0005-03-01T12:30:00.500Z',
  '0099-12-31T23:59:59.999Z',
  '1969-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59.990Z',
];
const ISO_WITH_MILLISECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let t: TestApp;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  t = await startTestApp();
  owner = await registerUser(t, 'Owner');
  projectId = (await createProject(t, owner)).id;
});
afterAll(() => t.close());

const trpcGet = async (procedure: string, input: unknown) =>
  (await t.request('GET', `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { token: owner.token })).body.result.data;

describe('values read from the database', () => {
  it('round-trip timestamps exactly, in ISO with milliseconds, through every read of a task', async () => {
    for (const dueDate of INSTANTS) {
      const created = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: `Due ${dueDate}`, projectId, dueDate } });
      expect(created.status).toBe(201);
      expect(created.body.dueDate).toBe(dueDate);
      for (const field of ['createdAt', 'updatedAt']) expect(created.body[field]).toMatch(ISO_WITH_MILLISECONDS);

      expect((await t.request('GET', `/api/v1/tasks/${created.body.id}`, { token: owner.token })).body).toEqual(created.body);
      expect(await trpcGet('tasks.get', { id: created.body.id })).toEqual(created.body);
      const page = await t.request('GET', `/api/v1/tasks/project/${projectId}?limit=100`, { token: owner.token });
      expect(page.body.find((task: { id: string }) => task.id === created.body.id)).toEqual(created.body);

      const done = await t.request('PATCH', `/api/v1/tasks/${created.body.id}`, { token: owner.token, body: { status: 'DONE' } });
      expect(done.body).toMatchObject({ dueDate, createdAt: created.body.createdAt });
      expect(done.body.completedAt).toMatch(ISO_WITH_MILLISECONDS);
      expect(done.body.updatedAt >= created.body.updatedAt).toBe(true);
      expect((await t.request('GET', `/api/v1/tasks/${created.body.id}`, { token: owner.token })).body).toEqual(done.body);
    }
  });

  it('round-trip a project’s timestamps between its write and its reads', async () => {
    const created = await t.request('POST', '/api/v1/projects', { token: owner.token, body: { name: 'Dated' } });
    for (const field of ['createdAt', 'updatedAt']) expect(created.body[field]).toMatch(ISO_WITH_MILLISECONDS);
    const read = await t.request('GET', `/api/v1/projects/${created.body.id}`, { token: owner.token });
    expect(read.body).toMatchObject({ createdAt: created.body.createdAt, updatedAt: created.body.updatedAt });
    expect(await trpcGet('projects.get', { id: created.body.id })).toMatchObject({ createdAt: created.body.createdAt });
  });

  it('round-trip a task’s label ids (none, one, several), in id order', async () => {
    const labelIds: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      const label = await t.request('POST', `/api/v1/projects/${projectId}/labels`, { token: owner.token, body: { name } });
      expect(label.status).toBe(201);
      labelIds.push(label.body.id);
    }
    // The labels' ids grow with their creation: id order is the order they were made in.
    const inIdOrder = (ids: string[]) => labelIds.filter((id) => ids.includes(id));
    for (const sent of [[], [labelIds[1]!], [labelIds[2]!, labelIds[0]!, labelIds[1]!]]) {
      const expected = inIdOrder(sent);
      const created = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: 'Labelled', projectId, labelIds: sent } });
      expect(created.status).toBe(201);
      expect(created.body.labelIds).toEqual(expected);
      expect((await t.request('GET', `/api/v1/tasks/${created.body.id}`, { token: owner.token })).body.labelIds).toEqual(expected);
      expect((await trpcGet('tasks.get', { id: created.body.id })).labelIds).toEqual(expected);
      const page = await t.request('GET', `/api/v1/tasks/project/${projectId}?limit=100`, { token: owner.token });
      expect(page.body.find((task: { id: string }) => task.id === created.body.id).labelIds).toEqual(expected);
      const others = labelIds.filter((id) => !sent.includes(id));
      const patched = await t.request('PATCH', `/api/v1/tasks/${created.body.id}`, { token: owner.token, body: { labelIds: others } });
      expect(patched.body.labelIds).toEqual(inIdOrder(others));
      expect((await t.request('GET', `/api/v1/tasks/${created.body.id}`, { token: owner.token })).body.labelIds).toEqual(inIdOrder(others));
    }
  });
});
