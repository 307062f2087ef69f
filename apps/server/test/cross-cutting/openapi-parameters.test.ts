import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, registerUser, startTestApp, testConfig, type TestApp, type TestUser } from '../support/harness';

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

  it('documents status (state keys) and priority (an enum) as comma lists, and the server decodes them so', async () => {
    for (const path of ['/tasks/project/{projectId}', '/tasks']) {
      const priority = parameter(path, 'priority');
      const priorities = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'];
      expect(priority, `${path} priority`).toMatchObject({ style: 'form', explode: false, schema: { type: 'array', items: { enum: priorities } } });
      const validPriorities = validator(priority.schema);
      expect(validPriorities(['LOW', 'MEDIUM'])).toBe(true);
      expect(validPriorities(['NOPE'])).toBe(false);
      expect(validPriorities(['low'])).toBe(false);
      // A status is the key of one of the project's states: any UPPER_SNAKE key is well formed.
      const status = parameter(path, 'status');
      expect(status, `${path} status`).toMatchObject({ style: 'form', explode: false, schema: { type: 'array', items: { type: 'string', pattern: expect.any(String) } } });
      const validStatuses = validator(status.schema);
      expect(validStatuses(['TODO', 'IN_QA'])).toBe(true);
      expect(validStatuses(['todo'])).toBe(false);
      expect(validStatuses(['IN PROGRESS'])).toBe(false);
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
    const typed = await query('tasks.listForProject', { projectId, status: ['TODO', 'DONE'], limit: 1 });
    expect(typed.status).toBe(200);
    expect(typed.body.result.data.items).toHaveLength(1);
    expect(typed.body.result.data.nextCursor).toEqual(expect.any(String));
    for (const input of [{ limit: '1' }, { limit: true }, { limit: [1] }, { limit: 0 }, { limit: 1.5 }, { status: 'TODO' }, { status: ['todo'] }, { status: [] }]) {
      const response = await query('tasks.listForProject', { projectId, ...input });
      expect(response.status, JSON.stringify(input)).toBe(400);
    }
    // A REST request first, then the same wrong types on tRPC: the REST decoding changes no schema.
    expect((await t.request('GET', `/api/v1/projects?limit=1`, { token: owner.token })).status).toBe(200);
    expect((await query('projects.list', { limit: '1' })).status).toBe(400);
    expect((await query('projects.list', { limit: true })).status).toBe(400);
  });
});

/**
 * Every parameter of the document, walked: a value the document accepts is one the server accepts
 * (so a generated client refuses what the server refuses), every path parameter has an example,
 * every 201 names its `Location` (and the server sends it), and the event stream is there.
 */
describe('the document is no looser than the server', () => {
  let t: TestApp;
  let owner: TestUser;
  let document: { paths: Record<string, Record<string, Operation & { responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }> }>>; components?: { schemas?: Record<string, unknown> } };
  let ids: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp({ webhooks: { ...testConfig().webhooks, allowPrivate: true } });
    owner = await registerUser(t, 'Owner');
    const project = await createProject(t, owner);
    const task = await createTask(t, owner, project.id);
    const comment = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'c' } });
    const webhook = await t.request('POST', `/api/v1/projects/${project.id}/webhooks`, { token: owner.token, body: { url: 'http://127.0.0.1:9/hook' } });
    expect(webhook.status).toBe(201);
    ids = { project: project.id, task: task.id, comment: comment.body.id, webhook: webhook.body.id };
    document = (await t.request('GET', '/api/v1/openapi.json')).body;
  }, 120_000);
  afterAll(() => t.close());

  const validator = (schema: Record<string, unknown>) => addFormats(new Ajv({ strict: false })).compile(schema);
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, operation]) => ({ path, method, operation })));

  /** The real id for each path parameter, so that only the parameter under test can be refused. */
  const fill = (path: string) =>
    `/api/v1${path
      .replace('{projectId}', ids.project!)
      .replace('{commentId}', ids.comment!)
      .replace('{webhookId}', ids.webhook!)
      .replace('{id}', path.startsWith('/tasks') ? ids.task! : ids.project!)}`;

  const CANDIDATES = [
    '0', '1', '2', '500', '501', '1000', '-1', '2.5', '1e2', 'abc', '', 'true', 'TODO', 'todo', 'TODO,DONE', 'TODO,', 'LOW', 'LOW,URGENT',
    'me', 'none', 'me,none', '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b', 'urn:uuid:0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b',
    '2026-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01', 'createdAt', '-title', 'title,-createdAt', 'x'.repeat(201), 'x'.repeat(600),
  ];

  it('every query value the document accepts, the server accepts (GET routes)', async () => {
    let checked = 0;
    for (const { path, method, operation } of operations()) {
      if (method !== 'get' || path.endsWith('/events')) continue;
      for (const parameter of (operation.parameters ?? []).filter((candidate) => candidate.in === 'query')) {
        const valid = validator(parameter.schema);
        for (const value of CANDIDATES) {
          // As a generated client sends it: an array parameter (style form, explode false) is one comma list.
          const typed = parameter.schema.type === 'array' ? value.split(',') : parameter.schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
          if (!valid(typed)) continue;
          checked += 1;
          const response = await t.request('GET', `${fill(path)}?${parameter.name}=${encodeURIComponent(value)}`, { token: owner.token });
          const refusedHere = response.status === 400 && (response.body.issues ?? []).some((issue: { path: unknown[] }) => issue.path[0] === parameter.name);
          expect({ route: `${method} ${path}`, parameter: parameter.name, value, refusedHere }).toEqual({ route: `${method} ${path}`, parameter: parameter.name, value, refusedHere: false });
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('every request header value the document accepts, the server accepts', async () => {
    const headerSchema = (path: string, method: string, name: string) =>
      document.paths[path]![method]!.parameters!.find((parameter) => parameter.in === 'header' && parameter.name === name)!.schema;
    const ifMatch = validator(headerSchema('/tasks/{id}', 'patch', 'If-Match'));
    const idempotencyKey = validator(headerSchema('/projects', 'post', 'Idempotency-Key'));
    const candidates = ['*', '"a"', 'W/"a"', '"a", "b"', ', "a" ,,', '"a,b"', '*, "a"', 'a', '"a" "b"', '', ' ', 'w/"a"', '"a', 'key-1', 'k'.repeat(255), 'k'.repeat(256), 'with space', 'ü'];
    let checked = 0;
    for (const value of candidates) {
      if (ifMatch(value)) {
        checked += 1;
        const response = await t.request('PATCH', `/api/v1/tasks/${ids.task}`, { token: owner.token, body: { title: 't' }, headers: { 'if-match': value } });
        expect({ value, status: response.status }).not.toEqual({ value, status: 400 });
      }
      if (idempotencyKey(value)) {
        checked += 1;
        const response = await t.request('POST', '/api/v1/projects', { token: owner.token, body: { name: `k${checked}` }, headers: { 'idempotency-key': `${value}`.slice(0, 255) } });
        expect({ value, status: response.status }).not.toEqual({ value, status: 400 });
      }
    }
    expect(checked).toBeGreaterThan(8);
    for (const value of ['*, "a"', 'a', '"a" "b"', 'w/"a"']) expect(ifMatch(value), value).toBe(false);
    for (const value of ['', 'with space', 'k'.repeat(256)]) expect(idempotencyKey(value), value).toBe(false);
  });

  it('the limit the document accepts is exactly 1–500', () => {
    for (const { path, operation } of operations()) {
      const limit = operation.parameters?.find((candidate) => candidate.name === 'limit' && candidate.in === 'query');
      if (!limit) continue;
      const valid = validator(limit.schema);
      expect({ path, zero: valid(0), over: valid(501), one: valid(1), max: valid(500) }).toEqual({ path, zero: false, over: false, one: true, max: true });
    }
  });

  it('every path parameter has an example its schema accepts, and refuses what the server cannot find', async () => {
    for (const { path, method, operation } of operations()) {
      for (const parameter of (operation.parameters ?? []).filter((candidate) => candidate.in === 'path')) {
        const { example } = parameter as Parameter & { example?: unknown };
        expect(example, `${method} ${path} ${parameter.name}`).toBeDefined();
        const valid = validator(parameter.schema);
        expect(valid(example), `${method} ${path} ${parameter.name}`).toBe(true);
        for (const malformed of ['x', 'urn:uuid:0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b', '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b0', '']) {
          expect(valid(malformed), `${method} ${path} ${parameter.name} ${malformed}`).toBe(false);
        }
      }
    }
    // …which the server answers with 404, for every kind of id.
    for (const path of ['/projects/x', '/tasks/x', `/tasks/${ids.task}/comments/x`, `/projects/${ids.project}/webhooks/x`]) {
      expect((await t.request('GET', `/api/v1${path}`, { token: owner.token })).status, path).toBe(404);
    }
  });

  it('every 201 documents Location, and the server sends it, pointing at the created resource', async () => {
    const created = operations().filter(({ operation }) => operation.responses['201']);
    expect(created.length).toBeGreaterThanOrEqual(7);
    for (const { path, method, operation } of created) expect(operation.responses['201']!.headers, `${method} ${path}`).toHaveProperty('Location');
    const task = await t.request('POST', '/api/v1/tasks', { token: owner.token, body: { title: 'located', projectId: ids.project } });
    expect(task.headers.location).toBe(`/api/v1/tasks/${task.body.id}`);
    expect((await t.request('GET', task.headers.location as string, { token: owner.token })).body.title).toBe('located');
    const comment = await t.request('POST', `/api/v1/tasks/${ids.task}/comments`, { token: owner.token, body: { text: 'located' } });
    expect((await t.request('GET', comment.headers.location as string, { token: owner.token })).body.text).toBe('located');
    const project = await t.request('POST', '/api/v1/projects', { token: owner.token, body: { name: 'located' } });
    expect((await t.request('GET', project.headers.location as string, { token: owner.token })).body.name).toBe('located');
    const webhook = await t.request('POST', `/api/v1/projects/${ids.project}/webhooks`, { token: owner.token, body: { url: 'http://127.0.0.1:9/other' } });
    expect((await t.request('GET', webhook.headers.location as string, { token: owner.token })).body.id).toBe(webhook.body.id);
    const label = await t.request('POST', `/api/v1/projects/${ids.project}/labels`, { token: owner.token, body: { name: 'located' } });
    expect(label.headers.location).toBe(`/api/v1/projects/${ids.project}/labels/${label.body.id}`);
    expect((await t.request('GET', label.headers.location as string, { token: owner.token })).body.name).toBe('located');
    const token = await t.request('POST', '/api/v1/auth/tokens', { token: owner.token, body: { name: 'ci', scopes: ['read'] } });
    expect(token.headers.location).toBe(`/api/v1/auth/tokens/${token.body.id}`);
    const other = await registerUser(t, 'Other');
    const member = await t.request('POST', `/api/v1/projects/${ids.project}/members/invite`, { token: owner.token, body: { email: other.email, role: 'VIEWER' } });
    expect(member.headers.location).toBe(`/api/v1/projects/${ids.project}/members/${member.body.id}`);
    expect((await t.request('DELETE', member.headers.location as string, { token: owner.token })).status).toBe(200);
    const registered = await t.request('POST', '/api/v1/auth/register', { body: { name: 'New', email: `located-${Date.now()}@example.com`, password: 'password-123' } });
    expect(registered.headers.location).toBe('/api/v1/auth/me');
  });

  it('documents both event streams as text/event-stream with their event schema', () => {
    for (const [path, item] of [
      ['/projects/{id}/events', 'Activity'],
      ['/notifications/events', 'Notification'],
    ] as const) {
      const events = document.paths[path]?.get;
      expect(events, path).toBeDefined();
      expect(events!.responses['200']!.content, path).toHaveProperty(['text/event-stream', 'x-itemSchema'], { $ref: `#/components/schemas/${item}` });
      expect(document.components?.schemas, path).toHaveProperty(item);
      const lastEventId = events!.parameters!.find((parameter) => parameter.name === 'lastEventId')!;
      const valid = validator(lastEventId.schema);
      expect([valid('1042'), valid('x'), valid('1'.repeat(19))], path).toEqual([true, false, false]);
    }
  });
});
