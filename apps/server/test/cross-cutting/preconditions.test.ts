import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSnapshot, expectErrorBody, expectTrpcError } from '../support/checks';
import { createProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from '../support/harness';

type Operation = { parameters?: { in?: string; name?: string }[] };

/** A fresh resource of one route, its URL under /api/v1, its current ETag and a valid PATCH body (sent to `patchUrl` when its PATCH has a path of its own). */
interface Target {
  url: string;
  etag: string;
  patch: Record<string, unknown>;
  patchUrl?: string;
}

/** A member invited into a new project: read at its own URL, changed through its role's. */
const memberFixture = async (t: TestApp, owner: TestUser): Promise<Target> => {
  const project = await createProject(t, owner);
  const invitee = await registerUser(t);
  const invited = await t.request('POST', `/api/v1/projects/${project.id}/members/invite`, { token: owner.token, body: { email: invitee.email } });
  const url = `/api/v1/projects/${project.id}/members/${invited.body.id}`;
  return { url, etag: invited.headers.etag as string, patch: { role: 'EDITOR' }, patchUrl: `${url}/role` };
};

/** A fresh resource of each path with a version (found in the document, every one needs a fixture here). */
const FIXTURES: Record<string, (t: TestApp, owner: TestUser) => Promise<Target>> = {
  '/projects/{id}': async (t, owner) => {
    const created = await t.request('POST', '/api/v1/projects', { token: owner.token, body: { name: 'P' } });
    return { url: `/api/v1/projects/${created.body.id}`, etag: created.headers.etag as string, patch: { name: 'Renamed' } };
  },
  '/tasks/{id}': async (t, owner) => {
    const project = await createProject(t, owner);
    const task = await createTask(t, owner, project.id);
    const read = await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token });
    return { url: `/api/v1/tasks/${task.id}`, etag: read.headers.etag as string, patch: { title: 'Retitled' } };
  },
  // A move with no neighbour named: to the end of the task's column (its version moves with it).
  '/tasks/{id}/move': async (t, owner) => {
    const project = await createProject(t, owner);
    const task = await createTask(t, owner, project.id);
    const read = await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token });
    return { url: `/api/v1/tasks/${task.id}/move`, etag: read.headers.etag as string, patch: {} };
  },
  '/tasks/{id}/comments/{commentId}': async (t, owner) => {
    const project = await createProject(t, owner);
    const task = await createTask(t, owner, project.id);
    const created = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'One' } });
    return { url: `/api/v1/tasks/${task.id}/comments/${created.body.id}`, etag: created.headers.etag as string, patch: { text: 'Two' } };
  },
  '/projects/{id}/labels/{labelId}': async (t, owner) => {
    const project = await createProject(t, owner);
    const created = await t.request('POST', `/api/v1/projects/${project.id}/labels`, { token: owner.token, body: { name: 'Bug' } });
    return { url: `/api/v1/projects/${project.id}/labels/${created.body.id}`, etag: created.headers.etag as string, patch: { color: '#00ff00' } };
  },
  '/projects/{id}/states/{stateId}': async (t, owner) => {
    const project = await createProject(t, owner);
    const created = await t.request('POST', `/api/v1/projects/${project.id}/states`, { token: owner.token, body: { name: 'Doing', category: 'started' } });
    return { url: `/api/v1/projects/${project.id}/states/${created.body.id}`, etag: created.headers.etag as string, patch: { color: '#00ff00' } };
  },
  '/projects/{id}/fields/{fieldId}': async (t, owner) => {
    const project = await createProject(t, owner);
    const created = await t.request('POST', `/api/v1/projects/${project.id}/fields`, { token: owner.token, body: { name: 'Points', type: 'number' } });
    return { url: `/api/v1/projects/${project.id}/fields/${created.body.id}`, etag: created.headers.etag as string, patch: { name: 'Estimate' } };
  },
  '/projects/{id}/webhooks/{webhookId}': async (t, owner) => {
    const project = await createProject(t, owner);
    const created = await t.request('POST', `/api/v1/projects/${project.id}/webhooks`, { token: owner.token, body: { url: 'http://127.0.0.1:9/hook', active: false } });
    return { url: `/api/v1/projects/${project.id}/webhooks/${created.body.id}`, etag: created.headers.etag as string, patch: { events: ['task.created'] } };
  },
  // A rotation takes no body: the POST sends an empty one.
  '/projects/{id}/webhooks/{webhookId}/rotate-secret': async (t, owner) => {
    const project = await createProject(t, owner);
    const created = await t.request('POST', `/api/v1/projects/${project.id}/webhooks`, { token: owner.token, body: { url: 'http://127.0.0.1:9/hook', active: false } });
    return { url: `/api/v1/projects/${project.id}/webhooks/${created.body.id}/rotate-secret`, etag: created.headers.etag as string, patch: {} };
  },
  '/projects/{id}/views/{viewId}': async (t, owner) => {
    const project = await createProject(t, owner);
    const created = await t.request('POST', `/api/v1/projects/${project.id}/views`, { token: owner.token, body: { name: 'Mine', layout: 'list' } });
    return { url: `/api/v1/projects/${project.id}/views/${created.body.id}`, etag: created.headers.etag as string, patch: { name: 'Renamed' } };
  },
  '/projects/{id}/members/{memberId}': memberFixture,
  '/projects/{id}/members/{memberId}/role': memberFixture,
};

/**
 * If-Match as RFC 9110 defines it, on every route that honours it (found in the OpenAPI document):
 * `*` only alone, lists of strong or weak tags compared strongly, and any malformed value a 400
 * that writes nothing, never an unconditional write.
 */
describe('If-Match on every route that honours it', () => {
  let t: TestApp;
  let owner: TestUser;
  let routes: { method: string; path: string }[];


  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t);
    const paths = (await t.request('GET', '/api/v1/openapi.json')).body.paths as Record<string, Record<string, Operation>>;
    routes = Object.entries(paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        (operation.parameters ?? []).some((parameter) => parameter.in === 'header' && parameter.name === 'If-Match') ? [{ method: method.toUpperCase(), path }] : [],
      ),
    );
  });
  afterAll(() => t.close());

  const send = (route: { method: string }, target: Target, ifMatch: string) =>
    t.request(route.method, route.method === 'PATCH' ? (target.patchUrl ?? target.url) : target.url, {
      token: owner.token,
      headers: { 'if-match': ifMatch },
      // A PATCH sends its change; a POST (a move) its body.
      ...(route.method === 'PATCH' || route.method === 'POST' ? { body: target.patch } : {}),
    });

  it('finds PATCH and DELETE of projects, tasks, comments, labels, webhooks and members, each with a fixture here', () => {
    expect(routes.length).toBeGreaterThanOrEqual(12);
    for (const route of routes) expect(Object.keys(FIXTURES), `${route.method} ${route.path}`).toContain(route.path);
  });

  const malformed = [
    ['"*" inside a list', (etag: string) => `*, ${etag}`],
    ['"*" after a tag', (etag: string) => `${etag}, *`],
    ['a bare word', () => 'abc'],
    ['an unquoted current version', (etag: string) => etag.slice(1, -1)],
    ['an unterminated tag', (etag: string) => etag.slice(0, -1)],
    ['two tags without a comma', (etag: string) => `${etag} ${etag}`],
    ['a lowercase weak prefix', (etag: string) => `w/${etag}`],
    ['a weak prefix on a bare word', () => 'W/abc'],
    ['only commas', () => ', ,'],
    ['a quote inside a tag', () => '"a"b"'],
    ['a date instead of a tag', () => 'Thu, 01 Jan 2026 00:00:00 GMT'],
  ] as const;

  for (const [name, value] of malformed) {
    it(`${name}: 400 INVALID_IF_MATCH, nothing written`, async () => {
      for (const route of routes) {
        const target = await FIXTURES[route.path]!(t, owner);
        const before = await databaseSnapshot(t);
        const response = await send(route, target, value(target.etag));
        expect({ route, status: response.status }).toEqual({ route, status: 400 });
        expectErrorBody(response, 400, { reason: 'INVALID_IF_MATCH' });
        expect(await databaseSnapshot(t)).toEqual(before);
      }
    });
  }

  const matching = [
    ['"*" alone', () => '*'],
    ['the current tag', (etag: string) => etag],
    ['a list holding the current tag', (etag: string) => `"0", ${etag}, "zz"`],
    ['a list with empty elements', (etag: string) => `, ${etag} ,,`],
    ['a tag holding a comma, then the current one', (etag: string) => `"a,b", ${etag}`],
  ] as const;

  for (const [name, value] of matching) {
    it(`${name}: the write happens`, async () => {
      for (const route of routes) {
        const target = await FIXTURES[route.path]!(t, owner);
        const response = await send(route, target, value(target.etag));
        expect({ route, status: response.status }).toEqual({ route, status: 200 });
      }
    });
  }

  const notMatching = [
    ['the current tag as a weak tag (strong comparison)', (etag: string) => `W/${etag}`],
    ['a list of other tags', () => '"0", "zz", W/"1"'],
    ['a tag the server never issues', () => '"not-one-of-ours"'],
  ] as const;

  for (const [name, value] of notMatching) {
    it(`${name}: 412 STALE_VERSION with the current ETag, nothing written`, async () => {
      for (const route of routes) {
        const target = await FIXTURES[route.path]!(t, owner);
        const before = await databaseSnapshot(t);
        const response = await send(route, target, value(target.etag));
        expect({ route, status: response.status }).toEqual({ route, status: 412 });
        expectErrorBody(response, 412, { reason: 'STALE_VERSION' });
        expect(response.headers.etag).toBe(target.etag);
        expect(await databaseSnapshot(t)).toEqual(before);
      }
    });
  }

  it('native tRPC reads the same header the same way', async () => {
    const target = await FIXTURES['/tasks/{id}']!(t, owner);
    const id = target.url.split('/').at(-1);
    const call = (ifMatch: string) =>
      t.request('POST', '/api/trpc/tasks.update', { token: owner.token, headers: { 'if-match': ifMatch }, body: { id, title: 'Over tRPC' } });
    expectTrpcError(await call(`*, ${target.etag}`), 400, { reason: 'INVALID_IF_MATCH' });
    expectTrpcError(await call(`W/${target.etag}`), 412, { reason: 'STALE_VERSION' });
    expect((await call(`"0", ${target.etag}`)).status).toBe(200);
  });
});

/**
 * Conditional reads (RFC 9110 §13.1.2) on every GET whose answer carries an ETag (found in the
 * OpenAPI document): If-None-Match naming the current version is a 304 without a body, compared
 * weakly; anything else, a malformed value included, gets the full answer.
 */
describe('If-None-Match on every read with an ETag', () => {
  let t: TestApp;
  let owner: TestUser;
  let reads: string[];


  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t);
    const paths = (await t.request('GET', '/api/v1/openapi.json')).body.paths as Record<string, Record<string, { responses: Record<string, { headers?: object; content?: object }> }>>;
    // Resources (JSON) with a version; an attachment's bytes and preview (ETag: their SHA-256) answer the same cases in attachments.test.ts.
    reads = Object.entries(paths).flatMap(([path, operations]) => {
      const success = operations.get?.responses['200'];
      return success?.headers && 'ETag' in success.headers && success.content && 'application/json' in success.content ? [path] : [];
    });
  });
  afterAll(() => t.close());

  const read = (method: 'GET' | 'HEAD', target: Target, ifNoneMatch: string, token = owner.token) =>
    t.request(method, target.url, { token, headers: { 'if-none-match': ifNoneMatch } });

  it('finds the reads of projects, tasks, comments, labels, webhooks and members, each with a fixture here', () => {
    expect(reads.length).toBeGreaterThanOrEqual(6);
    for (const path of reads) expect(Object.keys(FIXTURES), path).toContain(path);
  });

  const naming = [
    ['the current tag', (etag: string) => etag],
    ['the current tag as a weak tag (weak comparison)', (etag: string) => `W/${etag}`],
    ['a list holding the current tag', (etag: string) => `"0", ${etag}`],
    ['"*"', () => '*'],
  ] as const;

  for (const [name, value] of naming) {
    it(`${name}: 304 with the ETag and no body, on GET and HEAD`, async () => {
      for (const path of reads) {
        const target = await FIXTURES[path]!(t, owner);
        for (const method of ['GET', 'HEAD'] as const) {
          const response = await read(method, target, value(target.etag));
          expect({ path, method, status: response.status, etag: response.headers.etag }).toEqual({ path, method, status: 304, etag: target.etag });
          expect(response.body).toBeUndefined();
          expect(response.headers['content-type']).toBeUndefined();
        }
      }
    });
  }

  const notNaming = [
    ['another tag', () => '"0"'],
    ['a malformed value', () => 'not-a-tag'],
    ['"*" inside a list', (etag: string) => `*, ${etag}`],
  ] as const;

  for (const [name, value] of notNaming) {
    it(`${name}: the full answer`, async () => {
      for (const path of reads) {
        const target = await FIXTURES[path]!(t, owner);
        const response = await read('GET', target, value(target.etag));
        expect({ path, status: response.status, etag: response.headers.etag }).toEqual({ path, status: 200, etag: target.etag });
        expect(response.body.id).toBe(target.url.split('/').at(-1));
      }
    });
  }

  it('after a change the old tag gets the new version in full; a refusal stays a refusal', async () => {
    const stranger = await registerUser(t);
    for (const path of reads) {
      const target = await FIXTURES[path]!(t, owner);
      const changed = await t.request('PATCH', target.patchUrl ?? target.url, { token: owner.token, body: target.patch });
      expect(changed.headers.etag).not.toBe(target.etag);
      const response = await read('GET', target, target.etag);
      expect({ path, status: response.status, etag: response.headers.etag }).toEqual({ path, status: 200, etag: changed.headers.etag });
      expect((await read('GET', target, changed.headers.etag as string)).status).toBe(304);
      expectErrorBody(await read('GET', target, target.etag, stranger.token), 404);
      expectErrorBody(await t.request('GET', target.url, { headers: { 'if-none-match': '*' } }), 401);
    }
  });
});
