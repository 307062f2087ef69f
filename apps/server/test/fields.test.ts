import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectErrorBody } from './support/checks';
import { castProject, createProject, createTask, registerUser, startTestApp, type TestApp, type TestResponse, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';

interface Field {
  id: string;
  projectId: string;
  name: string;
  type: string;
  options: { id: string; name: string; color: string }[];
  position: number;
}

interface Task {
  id: string;
  title: string;
  fields: Record<string, unknown>;
  updatedAt: string;
}

/** A 400 naming `["fields", fieldId]`, with `reason`. */
function expectValueRefused(response: TestResponse, fieldId: string, reason = 'INVALID_FIELD_VALUE'): void {
  expectErrorBody(response, 400, { reason, issues: [expect.objectContaining({ path: ['fields', fieldId] })] });
}

describe('custom fields', () => {
  let t: TestApp;
  let owner: TestUser;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    admin = await registerUser(t, 'Admin');
    editor = await registerUser(t, 'Editor');
    viewer = await registerUser(t, 'Viewer');
    outsider = await registerUser(t, 'Outsider');
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    projectId = (await castProject(t, { owner, ADMIN: admin, EDITOR: editor, VIEWER: viewer }, 'Fielded')).projectId;
  });

  const fieldsPath = (path = '') => `/api/v1/projects/${projectId}/fields${path}`;
  const createField = async (body: Record<string, unknown>, user = admin): Promise<Field> => {
    const response = await t.request('POST', fieldsPath(), { token: user.token, body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  };
  const list = async (user = viewer): Promise<Field[]> => (await t.request('GET', fieldsPath(), { token: user.token })).body;
  const patchTask = (taskId: string, body: Record<string, unknown>, user = editor) => t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: user.token, body });
  const getTask = async (taskId: string): Promise<Task> => (await t.request('GET', `/api/v1/tasks/${taskId}`, { token: viewer.token })).body;
  /** Every page of the project's tasks under `query`, following the Link header; the titles in order and how many pages. */
  const allPages = async (query: string, limit = 2): Promise<{ titles: string[]; pages: number }> => {
    let url: string | undefined = `/api/v1/tasks/project/${projectId}?limit=${limit}&${query}`;
    const titles: string[] = [];
    let pages = 0;
    while (url) {
      const response = await t.request('GET', url, { token: viewer.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      titles.push(...(response.body as Task[]).map((task) => task.title));
      pages += 1;
      const link = response.headers.link as string | undefined;
      url = link ? `/api/v1${/<([^>]+)>/.exec(link)![1]!.replace(/^\/api\/v1/, '')}` : undefined;
    }
    return { titles, pages };
  };

  it('creates fields of every type, in order, options given by name and returned with ids, read by every member', async () => {
    const tier = await createField({ name: 'Tier', type: 'select', options: [{ name: 'Gold', color: '#F59E0B' }, { name: 'Silver' }] });
    expect(tier).toMatchObject({ projectId, name: 'Tier', type: 'select', position: 0, options: [{ name: 'Gold', color: '#f59e0b' }, { name: 'Silver', color: '#6b7280' }] });
    expect(tier.options[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    for (const type of ['text', 'number', 'date', 'multi_select', 'user', 'checkbox', 'url']) await createField({ name: `A ${type}`, type }, owner);
    const read = await list();
    expect(read.map((field) => [field.type, field.position])).toEqual([
      ['select', 0], ['text', 1], ['number', 2], ['date', 3], ['multi_select', 4], ['user', 5], ['checkbox', 6], ['url', 7],
    ]);
    expect((await t.request('GET', fieldsPath(`/${tier.id}`), { token: viewer.token })).body).toEqual(tier);
  });

  it('refuses a second field of the same name in any case (409 FIELD_EXISTS), options on a type without them, and a 51st field', async () => {
    await createField({ name: 'Customer', type: 'text' });
    expectErrorBody(await t.request('POST', fieldsPath(), { token: admin.token, body: { name: 'customer', type: 'number' } }), 409, { reason: 'FIELD_EXISTS' });
    expectErrorBody(await t.request('POST', fieldsPath(), { token: admin.token, body: { name: 'Points', type: 'number', options: [{ name: 'x' }] } }), 400, {
      issues: [expect.objectContaining({ path: ['options'] })],
    });
    expectErrorBody(await t.request('POST', fieldsPath(), { token: admin.token, body: { name: 'Kind', type: 'lookup' } }), 400, { issues: [expect.objectContaining({ path: ['type'] })] });
    for (let index = 1; index < 50; index += 1) await createField({ name: `Field ${index}`, type: 'checkbox' });
    expectErrorBody(await t.request('POST', fieldsPath(), { token: admin.token, body: { name: 'One too many', type: 'text' } }), 409, { reason: 'FIELD_LIMIT' });
  });

  it('renames and reorders a field; the others shift', async () => {
    const [a, b, c] = [await createField({ name: 'A', type: 'text' }), await createField({ name: 'B', type: 'text' }), await createField({ name: 'C', type: 'text' })];
    const moved = await t.request('PATCH', fieldsPath(`/${c.id}`), { token: admin.token, body: { position: 0, name: 'First' } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ name: 'First', position: 0 });
    expect((await list()).map((field) => field.id)).toEqual([c.id, a.id, b.id]);
    expectErrorBody(await t.request('PATCH', fieldsPath(`/${a.id}`), { token: admin.token, body: { name: 'FIRST' } }), 409, { reason: 'FIELD_EXISTS' });
  });

  it('validates every type of value on create and PATCH, naming ["fields", id]', async () => {
    const text = await createField({ name: 'Text', type: 'text' });
    const number = await createField({ name: 'Number', type: 'number' });
    const date = await createField({ name: 'Date', type: 'date' });
    const select = await createField({ name: 'Select', type: 'select', options: [{ name: 'One' }] });
    const multi = await createField({ name: 'Multi', type: 'multi_select', options: [{ name: 'X' }, { name: 'Y' }] });
    const user = await createField({ name: 'User', type: 'user' });
    const checkbox = await createField({ name: 'Check', type: 'checkbox' });
    const url = await createField({ name: 'Url', type: 'url' });
    const otherSelect = await createField({ name: 'Other', type: 'select', options: [{ name: 'Elsewhere' }] });
    const task = await createTask(t, editor, projectId, { title: 'Validated' });
    const refusals: [Field, unknown][] = [
      [text, 5], [text, 'x'.repeat(2001)], [text, ''],
      [number, '5'], [number, true],
      [date, '2026-02-30'], [date, '2026-01-01T00:00:00Z'], [date, 20260101],
      [select, otherSelect.options[0]!.id], [select, 'One'], [select, [select.options[0]!.id]],
      [multi, multi.options[0]!.id], [multi, [multi.options[0]!.id, multi.options[0]!.id]], [multi, [otherSelect.options[0]!.id]],
      [user, outsider.id], [user, 'nobody'],
      [checkbox, 'true'], [checkbox, 1],
      [url, 'ftp://example.com/file'], [url, 'javascript:alert(1)'], [url, 'not a url'], [url, 'https://example.com/\u0000'],
    ];
    for (const [field, value] of refusals) {
      expectValueRefused(await patchTask(task.id, { fields: { [field.id]: value } }), field.id);
      expectValueRefused(await t.request('POST', '/api/v1/tasks', { token: editor.token, body: { title: 'Refused', projectId, fields: { [field.id]: value } } }), field.id);
    }
    // A value of no JSON type a field takes is the schema's 400, at the same path.
    expectErrorBody(await patchTask(task.id, { fields: { [text.id]: { nested: true } } }), 400, { issues: [expect.objectContaining({ path: ['fields', text.id] })] });
    const unknown = '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b';
    expectValueRefused(await patchTask(task.id, { fields: { [unknown]: 'x' } }), unknown, 'UNKNOWN_FIELD');
    expectValueRefused(await patchTask(task.id, { fields: { 'not-an-id': 'x' } }), 'not-an-id', 'UNKNOWN_FIELD');
    // A field of another project is unknown here.
    const elsewhere = (await createProject(t, owner, 'Elsewhere')).id;
    const foreign = (await t.request('POST', `/api/v1/projects/${elsewhere}/fields`, { token: owner.token, body: { name: 'Foreign', type: 'text' } })).body as Field;
    expectValueRefused(await patchTask(task.id, { fields: { [foreign.id]: 'x' } }), foreign.id, 'UNKNOWN_FIELD');
    expect((await getTask(task.id)).fields).toEqual({});

    const values = {
      [text.id]: 'x'.repeat(2000),
      [number.id]: -1.5,
      [date.id]: '2026-02-28',
      [select.id]: select.options[0]!.id.toUpperCase(),
      [multi.id]: [multi.options[1]!.id, multi.options[0]!.id],
      [user.id]: editor.id,
      [checkbox.id]: false,
      [url.id]: 'https://example.com/a?b=c',
    };
    const set = await patchTask(task.id, { fields: values });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const expected = { ...values, [select.id]: select.options[0]!.id, [multi.id]: [multi.options[0]!.id, multi.options[1]!.id] };
    expect(set.body.fields).toEqual(expected);
    expect((await getTask(task.id)).fields).toEqual(expected);
    const created = (await createTask(t, editor, projectId, { title: 'Created with fields', fields: { [number.id]: 3, [checkbox.id]: true } })) as unknown as Task;
    expect(created.fields).toEqual({ [number.id]: 3, [checkbox.id]: true });
    expect((await getTask(created.id)).fields).toEqual({ [number.id]: 3, [checkbox.id]: true });
  });

  it('merges a PATCH into the task\'s values, null clearing one; history records the change of each field', async () => {
    const points = await createField({ name: 'Points', type: 'number' });
    const note = await createField({ name: 'Note', type: 'text' });
    const task = await createTask(t, editor, projectId, { title: 'Merged', fields: { [points.id]: 1, [note.id]: 'first' } });
    const merged = await patchTask(task.id, { fields: { [points.id]: 2 } });
    expect(merged.body.fields).toEqual({ [points.id]: 2, [note.id]: 'first' });
    const cleared = await patchTask(task.id, { fields: { [note.id]: null } });
    expect(cleared.body.fields).toEqual({ [points.id]: 2 });
    // An unchanged value is no change.
    await patchTask(task.id, { fields: { [points.id]: 2 } });
    const history = (await t.request('GET', `/api/v1/tasks/${task.id}/activity`, { token: viewer.token })).body as { type: string; changes: unknown }[];
    expect(history.filter((entry) => entry.type === 'task.updated').map((entry) => entry.changes)).toEqual([
      { fields: { old: { [note.id]: 'first' }, new: { [note.id]: null } } },
      { fields: { old: { [points.id]: 1 }, new: { [points.id]: 2 } } },
    ]);
    // A viewer sets no values; an editor does (through the task).
    expectErrorBody(await patchTask(task.id, { fields: { [points.id]: 3 } }, viewer), 403);
  });

  it('deleting an option clears it from every task (each a recorded update); new options and renames keep the values', async () => {
    const tier = await createField({ name: 'Tier', type: 'select', options: [{ name: 'Gold' }, { name: 'Silver' }] });
    const tags = await createField({ name: 'Tags', type: 'multi_select', options: [{ name: 'a' }, { name: 'b' }] });
    const [gold, silver] = tier.options;
    const [tagA, tagB] = tags.options;
    const one = await createTask(t, editor, projectId, { title: 'One', fields: { [tier.id]: gold!.id, [tags.id]: [tagA!.id, tagB!.id] } });
    const two = await createTask(t, editor, projectId, { title: 'Two', fields: { [tier.id]: silver!.id, [tags.id]: [tagA!.id] } });
    const three = await createTask(t, editor, projectId, { title: 'Three', fields: { [tier.id]: silver!.id } });

    const patched = await t.request('PATCH', fieldsPath(`/${tier.id}`), { token: admin.token, body: { options: [{ id: silver!.id, name: 'Argent' }, { name: 'Bronze', color: '#aa5500' }] } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.options).toMatchObject([{ id: silver!.id, name: 'Argent' }, { name: 'Bronze', color: '#aa5500' }]);
    expect((await getTask(one.id)).fields).toEqual({ [tags.id]: [tagA!.id, tagB!.id] });
    expect((await getTask(two.id)).fields[tier.id]).toBe(silver!.id);
    expect((await getTask(three.id)).fields[tier.id]).toBe(silver!.id);
    const history = (await t.request('GET', `/api/v1/tasks/${one.id}/activity`, { token: viewer.token })).body as { type: string; actorId: string; changes: unknown }[];
    expect(history[0]).toMatchObject({ type: 'task.updated', actorId: admin.id, changes: { fields: { old: { [tier.id]: gold!.id }, new: { [tier.id]: null } } } });

    await t.request('PATCH', fieldsPath(`/${tags.id}`), { token: admin.token, body: { options: [{ id: tagB!.id, name: 'b' }] } });
    expect((await getTask(one.id)).fields[tags.id]).toEqual([tagB!.id]);
    expect((await getTask(two.id)).fields).toEqual({ [tier.id]: silver!.id });
    // An option id the field does not have is refused.
    expectErrorBody(await t.request('PATCH', fieldsPath(`/${tags.id}`), { token: admin.token, body: { options: [{ id: gold!.id, name: 'x' }] } }), 400, {
      issues: [expect.objectContaining({ path: ['options', 0, 'id'] })],
    });
  });

  it('deleting a field removes its values from every task', async () => {
    const points = await createField({ name: 'Points', type: 'number' });
    const later = await createField({ name: 'Later', type: 'text' });
    const task = await createTask(t, editor, projectId, { title: 'Valued', fields: { [points.id]: 5, [later.id]: 'kept' } });
    expect((await t.request('DELETE', fieldsPath(`/${points.id}`), { token: editor.token })).status).toBe(403);
    expect((await t.request('DELETE', fieldsPath(`/${points.id}`), { token: admin.token })).status).toBe(200);
    expect((await getTask(task.id)).fields).toEqual({ [later.id]: 'kept' });
    expect(await list()).toMatchObject([{ id: later.id, position: 0 }]);
    expect((await t.request('GET', fieldsPath(`/${points.id}`), { token: viewer.token })).status).toBe(404);
  });

  it('filters a list by a field (equality, any of the options, ranges) and sorts by it, those without a value last, paged by cursor', async () => {
    const points = await createField({ name: 'Points', type: 'number' });
    const due = await createField({ name: 'Due', type: 'date' });
    const tier = await createField({ name: 'Tier', type: 'select', options: [{ name: 'Gold' }, { name: 'Silver' }, { name: 'Bronze' }] });
    const tags = await createField({ name: 'Tags', type: 'multi_select', options: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
    const done = await createField({ name: 'Done', type: 'checkbox' });
    const who = await createField({ name: 'Who', type: 'user' });
    const note = await createField({ name: 'Note', type: 'text' });
    const [gold, silver, bronze] = tier.options.map((option) => option.id);
    const [a, b, c] = tags.options.map((option) => option.id);
    const rows: [string, Record<string, unknown>][] = [
      ['T1', { [points.id]: 3, [due.id]: '2026-03-01', [tier.id]: silver, [tags.id]: [a], [done.id]: true, [who.id]: editor.id, [note.id]: 'beta' }],
      ['T2', { [points.id]: 1, [due.id]: '2026-01-15', [tier.id]: gold, [tags.id]: [b, c], [done.id]: false, [note.id]: 'alpha' }],
      ['T3', {}],
      ['T4', { [points.id]: 3, [due.id]: '2025-12-31', [tier.id]: bronze, [tags.id]: [c], [who.id]: admin.id }],
      ['T5', { [points.id]: -2, [tier.id]: gold }],
      ['T6', {}],
    ];
    for (const [title, fields] of rows) await createTask(t, editor, projectId, { title, fields });
    const filtered = async (query: string) => (await allPages(query, 10)).titles.sort();

    expect(await filtered(`field.${points.id}=3`)).toEqual(['T1', 'T4']);
    expect(await filtered(`field.${points.id}.gte=1&field.${points.id}.lte=3`)).toEqual(['T1', 'T2', 'T4']);
    expect(await filtered(`field.${due.id}.gte=2026-01-01`)).toEqual(['T1', 'T2']);
    expect(await filtered(`field.${due.id}.lte=2026-01-15`)).toEqual(['T2', 'T4']);
    expect(await filtered(`field.${tier.id}=${gold},${bronze}`)).toEqual(['T2', 'T4', 'T5']);
    expect(await filtered(`field.${tags.id}=${c}`)).toEqual(['T2', 'T4']);
    expect(await filtered(`field.${tags.id}=${a},${b}`)).toEqual(['T1', 'T2']);
    expect(await filtered(`field.${done.id}=false`)).toEqual(['T2']);
    expect(await filtered(`field.${who.id}=${admin.id}`)).toEqual(['T4']);
    expect(await filtered(`field.${note.id}=alpha`)).toEqual(['T2']);
    expect(await filtered(`field.${tier.id}=${gold}&field.${points.id}.lte=0`)).toEqual(['T5']);
    // A range's two ends hold for the same value; filters of two fields each hold.
    expect(await filtered(`field.${points.id}.gte=2&field.${points.id}.lte=2`)).toEqual([]);
    expect(await filtered(`field.${points.id}.gte=1&field.${points.id}.lte=3&field.${tier.id}=${gold},${silver}`)).toEqual(['T1', 'T2']);
    // Across the caller's projects too.
    const mine = await t.request('GET', `/api/v1/tasks?field.${points.id}=3`, { token: viewer.token });
    expect((mine.body as Task[]).map((task) => task.title).sort()).toEqual(['T1', 'T4']);

    // Sorted by the value then id, tasks without one last (in both directions), over pages of two.
    expect(await allPages(`sort=field.${points.id}`)).toEqual({ titles: ['T5', 'T2', 'T1', 'T4', 'T3', 'T6'], pages: 3 });
    expect(await allPages(`sort=-field.${points.id}`)).toEqual({ titles: ['T4', 'T1', 'T2', 'T5', 'T6', 'T3'], pages: 3 });
    expect((await allPages(`sort=field.${due.id}`, 1)).titles).toEqual(['T4', 'T2', 'T1', 'T3', 'T5', 'T6']);
    // A select sorts by its options' order; a multi_select by its first option's.
    expect((await allPages(`sort=field.${tier.id}`)).titles).toEqual(['T2', 'T5', 'T1', 'T4', 'T3', 'T6']);
    expect((await allPages(`sort=field.${tags.id}`, 3)).titles).toEqual(['T1', 'T2', 'T4', 'T3', 'T5', 'T6']);
    expect((await allPages(`sort=field.${note.id}`)).titles).toEqual(['T2', 'T1', 'T3', 'T4', 'T5', 'T6']);
    expect((await allPages(`sort=-field.${points.id}&field.${tier.id}=${gold}`, 1)).titles).toEqual(['T2', 'T5']);
    // Reordering the options reorders the sort.
    await t.request('PATCH', fieldsPath(`/${tier.id}`), { token: admin.token, body: { options: [{ id: bronze, name: 'Bronze' }, { id: silver, name: 'Silver' }, { id: gold, name: 'Gold' }] } });
    expect((await allPages(`sort=field.${tier.id}`)).titles).toEqual(['T4', 'T1', 'T2', 'T5', 'T3', 'T6']);
  });

  it('refuses a field filter or sort it cannot read (400 naming the key), an unknown key, and a forged cursor', async () => {
    const points = await createField({ name: 'Points', type: 'number' });
    const tier = await createField({ name: 'Tier', type: 'select', options: [{ name: 'Gold' }] });
    const note = await createField({ name: 'Note', type: 'text' });
    const query = (q: string) => t.request('GET', `/api/v1/tasks/project/${projectId}?${q}`, { token: viewer.token });
    const refused = (response: TestResponse, key: string, reason?: string) =>
      expectErrorBody(response, 400, { ...(reason ? { reason } : {}), issues: [expect.objectContaining({ path: [key] })] });
    refused(await query(`field.${points.id}=many`), `field.${points.id}`, 'INVALID_FIELD_VALUE');
    refused(await query(`field.${note.id}.gte=a`), `field.${note.id}.gte`, 'INVALID_FIELD_VALUE');
    refused(await query(`field.${tier.id}=Gold`), `field.${tier.id}`, 'INVALID_FIELD_VALUE');
    const unknown = '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b';
    refused(await query(`field.${unknown}=1`), `field.${unknown}`, 'UNKNOWN_FIELD');
    refused(await query(`sort=field.${unknown}`), 'sort', 'UNKNOWN_FIELD');
    refused(await query('sort=field.nope'), 'sort');
    refused(await query(`field.${points.id}.between=1`), `field.${points.id}.between`);
    refused(await query('colour=red'), 'colour');
    expectErrorBody(await query(`sort=field.${points.id}&cursor=${Buffer.from(JSON.stringify(['x', unknown])).toString('base64url')}`), 400, { reason: 'INVALID_CURSOR' });
    // A non-member's bad query is the project's 404.
    expect((await t.request('GET', `/api/v1/tasks/project/${projectId}?field.${points.id}=many`, { token: outsider.token })).status).toBe(404);
  });

  it('hides a project\'s fields from non-members (404)', async () => {
    const field = await createField({ name: 'Secret', type: 'text' });
    expect((await t.request('GET', fieldsPath(), { token: outsider.token })).status).toBe(404);
    expect((await t.request('GET', fieldsPath(`/${field.id}`), { token: outsider.token })).status).toBe(404);
    expect((await t.request('PATCH', fieldsPath(`/${field.id}`), { token: outsider.token, body: { name: 'Mine' } })).status).toBe(404);
    expect((await t.request('DELETE', fieldsPath(`/${field.id}`), { token: outsider.token })).status).toBe(404);
    expect((await t.request('POST', fieldsPath(), { token: outsider.token, body: { name: 'Mine', type: 'text' } })).status).toBe(404);
  });

  it('records field.created, field.updated and field.deleted in the project history', async () => {
    const field = await createField({ name: 'Logged', type: 'text' });
    await t.request('PATCH', fieldsPath(`/${field.id}`), { token: admin.token, body: { name: 'Renamed' } });
    await t.request('DELETE', fieldsPath(`/${field.id}`), { token: admin.token });
    const activity = (await t.request('GET', `/api/v1/projects/${projectId}/activity`, { token: viewer.token })).body as { type: string; changes: unknown }[];
    expect(activity.filter((entry) => entry.type.startsWith('field.')).map((entry) => [entry.type, entry.changes])).toEqual([
      ['field.deleted', null],
      ['field.updated', { name: { old: 'Logged', new: 'Renamed' } }],
      ['field.created', null],
    ]);
  });
});

describePermissions(['GET /projects/{id}/fields', 'POST /projects/{id}/fields', 'GET /projects/{id}/fields/{fieldId}', 'PATCH /projects/{id}/fields/{fieldId}', 'DELETE /projects/{id}/fields/{fieldId}']);
