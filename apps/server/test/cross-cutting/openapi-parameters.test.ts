import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from '../support/harness';

type Parameter = { name: string; in: string; schema: Record<string, unknown>; style?: string; explode?: boolean };
type Operation = { parameters?: Parameter[] };

/**
 * Query parameters as a generated client sees them (the OpenAPI document) and as the server checks
 * them, on both transports: what the document refuses, the server refuses, and the other way round.
 */
describe('typed query parameters', () => {
  let t: TestApp;
  let owner: TestUser;
  let projectId: string;
  let document: { paths: Record<string, Record<string, Operation>> };

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    projectId = (await createProject(t, owner)).id;
    await createTask(t, owner, projectId, { title: 'a', status: 'TODO', priority: 'HIGH', assigneeId: owner.id });
    await createTask(t, owner, projectId, { title: 'b', status: 'DONE', priority: 'LOW' });
    await createTask(t, owner, projectId, { title: 'c', status: 'IN_PROGRESS', priority: 'LOW' });
    document = (await t.request('GET', '/api/v1/openapi.json')).body;
  }, 120_000);
  afterAll(() => t.close());

  const parameter = (path: string, name: string): Parameter => {
    const found = document.paths[path]!.get!.parameters!.find((candidate) => candidate.name === name && candidate.in === 'query');
    if (!found) throw new Error(`${path} documents no query parameter ${name}`);
    return found;
  };
  const validator = (schema: Record<string, unknown>) => addFormats(new Ajv({ strict: false })).compile(schema);

  const lists = () =>
    Object.entries(document.paths).flatMap(([path, operations]) =>
      operations.get?.parameters?.some((candidate) => candidate.name === 'limit') ? [path] : [],
    );

  it('documents limit as an integer from 1 to 500 on every list, and the server agrees', async () => {
    expect(lists().length).toBeGreaterThanOrEqual(7);
    for (const path of lists()) {
      const limit = parameter(path, 'limit');
      expect(limit.schema, path).toMatchObject({ type: 'integer', minimum: 1, maximum: 500 });
      const valid = validator(limit.schema);
      for (const value of [0, 501, 2.5, -1]) expect(valid(value), `${path} limit=${value}`).toBe(false);
      for (const value of [1, 50, 500]) expect(valid(value), `${path} limit=${value}`).toBe(true);
    }
    const url = `/api/v1/tasks/project/${projectId}`;
    for (const value of ['0', '501', '2.5', '-1', '1e2', '0x10', ' 5', 'abc', 'true']) {
      const response = await t.request('GET', `${url}?limit=${encodeURIComponent(value)}`, { token: owner.token });
      expect(response.status, `limit=${value}`).toBe(400);
      expect(response.body.issues.map((issue: { path: unknown[] }) => issue.path), `limit=${value}`).toEqual([['limit']]);
    }
    const two = await t.request('GET', `${url}?limit=2`, { token: owner.token });
    expect(two.status).toBe(200);
    expect(two.body).toHaveLength(2);
  });

  it('documents status and priority as comma lists of their enums, and the server decodes them so', async () => {
    for (const path of ['/tasks/project/{projectId}', '/tasks']) {
      for (const [name, values] of [
        ['status', ['TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELLED']],
        ['priority', ['LOW', 'MEDIUM', 'HIGH', 'URGENT']],
      ] as const) {
        const documented = parameter(path, name);
        expect(documented, `${path} ${name}`).toMatchObject({ style: 'form', explode: false, schema: { type: 'array', items: { enum: values } } });
        const valid = validator(documented.schema);
        expect(valid([values[0], values[1]])).toBe(true);
        expect(valid(['NOPE'])).toBe(false);
        expect(valid([values[0].toLowerCase()])).toBe(false);
      }
    }
    const url = `/api/v1/tasks/project/${projectId}`;
    const titles = async (query: string) =>
      (await t.request('GET', `${url}?${query}`, { token: owner.token })).body.map((task: { title: string }) => task.title).sort();
    expect(await titles('status=TODO,DONE')).toEqual(['a', 'b']);
    expect(await titles('status=TODO')).toEqual(['a']);
    expect(await titles('priority=LOW&status=DONE,IN_PROGRESS')).toEqual(['b', 'c']);
    for (const query of ['status=todo', 'status=TODO,', 'priority=LOW,NOPE']) {
      expect((await t.request('GET', `${url}?${query}`, { token: owner.token })).status, query).toBe(400);
    }
  });

  it('documents assigneeId with its pattern, and the server refuses what the pattern refuses', async () => {
    for (const path of ['/tasks/project/{projectId}', '/tasks']) {
      const valid = validator(parameter(path, 'assigneeId').schema);
      expect(valid('me')).toBe(true);
      expect(valid('none')).toBe(true);
      expect(valid(owner.id)).toBe(true);
      expect(valid('someone')).toBe(false);
      expect(valid('me,none')).toBe(false);
    }
    const url = `/api/v1/tasks/project/${projectId}`;
    const mine = await t.request('GET', `${url}?assigneeId=me`, { token: owner.token });
    expect(mine.body.map((task: { title: string }) => task.title)).toEqual(['a']);
    const someone = await t.request('GET', `${url}?assigneeId=someone`, { token: owner.token });
    expect(someone.status).toBe(400);
    expect(someone.body.issues.map((issue: { path: unknown[] }) => issue.path)).toEqual([['assigneeId']]);
  });

  it('tRPC callers send the typed values (a number, an array), and strings are refused there', async () => {
    const query = (path: string, input: unknown) =>
      t.request('GET', `/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { token: owner.token });
    const typed = await query('tasks.listForProjectPage', { projectId, status: ['TODO', 'DONE'], limit: 1 });
    expect(typed.status).toBe(200);
    expect(typed.body.result.data.items).toHaveLength(1);
    expect(typed.body.result.data.nextCursor).toEqual(expect.any(String));
    for (const input of [{ limit: '1' }, { limit: true }, { limit: [1] }, { limit: 0 }, { limit: 1.5 }, { status: 'TODO' }, { status: ['todo'] }, { status: [] }]) {
      const response = await query('tasks.listForProjectPage', { projectId, ...input });
      expect(response.status, JSON.stringify(input)).toBe(400);
    }
    // A REST request first, then the same wrong types on tRPC: the REST decoding changes no schema.
    expect((await t.request('GET', `/api/v1/projects?limit=1`, { token: owner.token })).status).toBe(200);
    expect((await query('projects.listPage', { limit: '1' })).status).toBe(400);
    expect((await query('projects.listPage', { limit: true })).status).toBe(400);
  });
});
