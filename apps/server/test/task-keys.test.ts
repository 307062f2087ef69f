import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';

// Project keys (unique on the server, derived from the name or given, changeable by an ADMIN) and
// task keys ("WEB-42": the project's key and the task's number, on every read, found by GET /tasks/{key}).

let t: TestApp;
let owner: TestUser;
let admin: TestUser;
let editor: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  [owner, admin, editor, outsider] = [await registerUser(t, 'Owner'), await registerUser(t, 'Admin'), await registerUser(t, 'Editor'), await registerUser(t, 'Outsider')];
});
afterAll(() => t.close());

const newProject = (body: Record<string, unknown>, user = owner) => t.request('POST', '/api/v1/projects', { token: user.token, body });
const getTask = (idOrKey: string, user = owner) => t.request('GET', `/api/v1/tasks/${encodeURIComponent(idOrKey)}`, { token: user.token });
/** A fresh key no other test uses (project keys are unique on the whole server). */
let keyCounter = 0;
const freshKey = (stem: string) => `${stem}${(keyCounter += 1)}`;

describe('project keys', () => {
  it('are given on create, in either case, stored upper case, and carried by every project read', async () => {
    const key = freshKey('WEB');
    const created = await newProject({ name: 'Website', key: key.toLowerCase() });
    expect(created.status).toBe(201);
    expect(created.body.key).toBe(key);
    expect((await t.request('GET', `/api/v1/projects/${created.body.id}`, { token: owner.token })).body.key).toBe(key);
    const listed = await t.request('GET', '/api/v1/projects', { token: owner.token });
    expect(listed.body.find((project: { id: string }) => project.id === created.body.id).key).toBe(key);
  });

  it('are unique on the server: a key another project has is a 409 PROJECT_KEY_TAKEN, whoever asks', async () => {
    const key = freshKey('UNQ');
    expect((await newProject({ name: 'First', key })).status).toBe(201);
    const again = await newProject({ name: 'Second', key: key.toLowerCase() }, outsider);
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe('PROJECT_KEY_TAKEN');
  });

  it('refuse what is not 2–10 letters and digits starting with a letter (400 naming key)', async () => {
    for (const key of ['A', '1AB', 'AB-C', 'ABCDEFGHIJK', '', 'ÄB']) {
      const response = await newProject({ name: 'Bad key', key });
      expect(response.status, key).toBe(400);
      expect(response.body.issues[0].path).toEqual(['key']);
    }
  });

  it('are derived from the name when not given: initials, or the first letters, then a number when taken', async () => {
    const derived = async (name: string) => (await newProject({ name })).body.key as string;
    expect(await derived('Quarterly Zebra Xylophone')).toBe('QZX');
    expect(await derived('Quarterly Zebra Xylophone')).toBe('QZX2');
    expect(await derived('Quarterly Zebra Xylophone')).toBe('QZX3');
    expect(await derived('Zyxwvut')).toBe('ZYX');
    expect(await derived('Ézyx émoi')).toBe('EE');
    // Never a digit first: the initials would be "2Z", so the first letters are taken instead.
    expect(await derived('2027 zyxwv')).toMatch(/^ZYX\d+$/);
    expect(await derived('!!! ???')).toMatch(/^P\d+$/);
    expect(await derived('Ω')).toMatch(/^P\d+$/);
  });

  it('derive distinct keys for concurrent creations of one name, and refuse all but one of a given key', async () => {
    const name = 'Concurrent Kangaroo Quokka';
    const derived = await Promise.all(Array.from({ length: 6 }, () => newProject({ name })));
    expect(derived.map((response) => response.status)).toEqual(Array(6).fill(201));
    expect(new Set(derived.map((response) => response.body.key)).size).toBe(6);

    const key = freshKey('RACE');
    const given = await Promise.all(Array.from({ length: 6 }, () => newProject({ name: 'Racing', key })));
    expect(given.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it('are changed by an ADMIN, not an EDITOR; the history shows it', async () => {
    const project = (await newProject({ name: 'Renamed', key: freshKey('OLD') })).body;
    await invite(t, owner, project.id, admin, 'ADMIN');
    await invite(t, owner, project.id, editor, 'EDITOR');
    const key = freshKey('NEW');
    expect((await t.request('PATCH', `/api/v1/projects/${project.id}`, { token: editor.token, body: { key } })).status).toBe(403);
    const changed = await t.request('PATCH', `/api/v1/projects/${project.id}`, { token: admin.token, body: { key } });
    expect(changed.status).toBe(200);
    expect(changed.body.key).toBe(key);
    const history = await t.request('GET', `/api/v1/projects/${project.id}/activity`, { token: owner.token });
    expect(history.body[0]).toMatchObject({ type: 'project.updated', changes: { key: { old: project.key, new: key } } });
  });

  it('stay with their project: another project cannot take a former key; the project itself can take it back', async () => {
    const oldKey = freshKey('KEEP');
    const project = (await newProject({ name: 'Keeper', key: oldKey })).body;
    expect((await t.request('PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { key: freshKey('MOVED') } })).status).toBe(200);
    const other = (await newProject({ name: 'Other' })).body;
    const taken = await t.request('PATCH', `/api/v1/projects/${other.id}`, { token: owner.token, body: { key: oldKey } });
    expect(taken.status).toBe(409);
    expect(taken.body.reason).toBe('PROJECT_KEY_TAKEN');
    expect((await newProject({ name: 'Another', key: oldKey })).status).toBe(409);
    const back = await t.request('PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { key: oldKey.toLowerCase() } });
    expect(back.status).toBe(200);
    expect(back.body.key).toBe(oldKey);
  });
});

describe('task numbers and keys', () => {
  it('number tasks 1, 2, 3 … per project, with the key on every read', async () => {
    const key = freshKey('NUM');
    const project = (await newProject({ name: 'Numbered', key })).body;
    const first = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: 'One', projectId: project.id } });
    expect(first.body).toMatchObject({ number: 1, key: `${key}-1` });
    const second = await createTask(t, owner, project.id, { title: 'Two' });
    expect(second).toMatchObject({ number: 2, key: `${key}-2` });
    expect((await getTask(first.body.id)).body).toMatchObject({ number: 1, key: `${key}-1` });
    const patched = await t.request('PATCH', `/api/v1/tasks/${first.body.id}`, { token: owner.token, body: { title: 'Uno' } });
    expect(patched.body).toMatchObject({ number: 1, key: `${key}-1` });
    const listed = await t.request('GET', `/api/v1/tasks/project/${project.id}`, { token: owner.token });
    expect(listed.body.map((task: { key: string }) => task.key)).toEqual([`${key}-1`, `${key}-2`]);
    // Another project numbers from 1 too.
    const other = (await newProject({ name: 'Other numbers' })).body;
    expect((await createTask(t, owner, other.id))).toMatchObject({ number: 1, key: `${other.key}-1` });
  });

  it('give 20 concurrent creations distinct consecutive numbers', async () => {
    const project = (await newProject({ name: 'Busy' })).body;
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, index) => t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: `Task ${index}`, projectId: project.id } })),
    );
    expect(created.every((response) => response.status === 201)).toBe(true);
    const numbers = created.map((response) => response.body.number as number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
  });

  it('never reuse a deleted task’s number', async () => {
    const project = (await newProject({ name: 'Forgetful' })).body;
    await createTask(t, owner, project.id);
    const second = await createTask(t, owner, project.id);
    expect((await t.request('DELETE', `/api/v1/tasks/${second.id}`, { token: owner.token })).status).toBe(200);
    expect(await createTask(t, owner, project.id)).toMatchObject({ number: 3, key: `${project.key}-3` });
  });

  it('find a task by its key, in any case; a key with no task, or of a project the caller is not in, is a 404', async () => {
    const project = (await newProject({ name: 'Findable' })).body;
    const task = await createTask(t, owner, project.id, { title: 'Find me' });
    for (const key of [`${project.key}-1`, `${project.key.toLowerCase()}-1`]) {
      const found = await getTask(key);
      expect(found.status, key).toBe(200);
      expect(found.body.id).toBe(task.id);
      expect(found.headers.etag).toBeDefined();
    }
    expect((await getTask(`${project.key}-2`)).status).toBe(404);
    expect((await getTask(`${project.key}-99999999999`)).status).toBe(404);
    expect((await getTask('NOSUCHKEY-1')).status).toBe(404);
    expect((await getTask(`${project.key}-1`, outsider)).status).toBe(404);
    expect((await getTask('not a key')).status).toBe(404);
  });

  it('keep finding a task by its old key after the project’s key changes; reads show the new key', async () => {
    const oldKey = freshKey('BEFORE');
    const project = (await newProject({ name: 'Rekeyed', key: oldKey })).body;
    const task = await createTask(t, owner, project.id);
    const newKey = freshKey('AFTER');
    expect((await t.request('PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { key: newKey } })).status).toBe(200);
    const byOld = await getTask(`${oldKey.toLowerCase()}-1`);
    expect(byOld.status).toBe(200);
    expect(byOld.body).toMatchObject({ id: task.id, key: `${newKey}-1` });
    expect((await getTask(`${newKey}-1`)).body.id).toBe(task.id);
    expect((await getTask(`${oldKey}-1`, outsider)).status).toBe(404);
  });

  it('match a task by its exact key in q, in any case', async () => {
    const project = (await newProject({ name: 'Searchable' })).body;
    const tasks = [];
    for (let index = 0; index < 12; index += 1) tasks.push(await createTask(t, owner, project.id, { title: `Plain ${index}` }));
    const search = async (q: string) =>
      (await t.request('GET', `/api/v1/tasks/project/${project.id}?q=${encodeURIComponent(q)}`, { token: owner.token })).body.map((task: { id: string }) => task.id);
    expect(await search(`${project.key}-1`)).toEqual([tasks[0]!.id]);
    expect(await search(`${project.key.toLowerCase()}-12`)).toEqual([tasks[11]!.id]);
    expect(await search(`${project.key}-13`)).toEqual([]);
    // Across projects too ("my work").
    const mine = await t.request('GET', `/api/v1/tasks?q=${project.key}-2`, { token: owner.token });
    expect(mine.body.map((task: { id: string }) => task.id)).toEqual([tasks[1]!.id]);
  });
});
