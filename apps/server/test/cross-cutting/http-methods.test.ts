import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestResponse, type TestUser } from '../support/harness';
import { pathPattern } from '../support/openapi-conformance';
import { discoverRestRoutes, fillPath, type RestRoute } from '../support/routes';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const headerList = (value: unknown) => String(value).split(',').map((item) => item.trim());

/** What HEAD must answer exactly as GET does. */
const heading = (response: TestResponse) => ({
  status: response.status,
  etag: response.headers.etag,
  link: response.headers.link,
  location: response.headers.location,
  allow: response.headers.allow,
  contentType: response.headers['content-type'],
  contentLength: response.headers['content-length'],
});

/**
 * HEAD and 405 on every path of the OpenAPI document (so a route added later is covered): HEAD
 * answers as GET does without the body, and a method a path does not have is a 405 naming the
 * ones it has.
 */
describe('HEAD and the methods of each path', () => {
  let t: TestApp;
  let owner: TestUser;
  let routes: RestRoute[];
  /** Real ids for every path parameter, so each GET answers with its resource (ETag) or page (Link). */
  let ids: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    const project = await createProject(t, owner);
    await createProject(t, owner);
    const task = await createTask(t, owner, project.id);
    const other = await createTask(t, owner, project.id);
    const comment = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'One' } });
    await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'Two' } });
    const label = await t.request('POST', `/api/v1/projects/${project.id}/labels`, { token: owner.token, body: { name: 'Bug' } });
    await t.request('POST', `/api/v1/projects/${project.id}/labels`, { token: owner.token, body: { name: 'Idea' } });
    // Inactive: no delivery attempt changes it between a GET and a HEAD.
    const webhook = await t.request('POST', `/api/v1/projects/${project.id}/webhooks`, { token: owner.token, body: { url: 'http://127.0.0.1:9/hook', active: false } });
    const member = await invite(t, owner, project.id, await registerUser(t), 'VIEWER');
    const state = await t.request('POST', `/api/v1/projects/${project.id}/states`, { token: owner.token, body: { name: 'Waiting', category: 'started' } });
    const relation = await t.request('POST', `/api/v1/tasks/${task.id}/relations`, { token: owner.token, body: { type: 'relates_to', taskId: other.id } });
    const field = await t.request('POST', `/api/v1/projects/${project.id}/fields`, { token: owner.token, body: { name: 'Points', type: 'number' } });
    const view = await t.request('POST', `/api/v1/projects/${project.id}/views`, { token: owner.token, body: { name: 'Board', layout: 'board' } });
    const invitation = await t.request('POST', `/api/v1/projects/${project.id}/members/invite`, { token: owner.token, body: { email: 'invited-nobody@example.com' } });
    ids = {
      projectId: project.id,
      taskId: task.id,
      commentId: comment.body.id,
      labelId: label.body.id,
      webhookId: webhook.body.id,
      memberId: member.id,
      stateId: state.body.id,
      relationId: relation.body.id,
      fieldId: field.body.id,
      viewId: view.body.id,
      invitationId: invitation.body.id,
      token: String(invitation.body.acceptUrl).split('/invite/')[1]!,
    };
    routes = await discoverRestRoutes(t);
  });
  afterAll(() => t.close());

  /** A route's URL with its parameters filled: `{id}` is the id of the resource the path starts with. */
  const urlOf = (route: RestRoute) => {
    const id = route.path.startsWith('/tasks') ? ids.taskId : ids.projectId;
    const url = fillPath(route.path, { ...ids, id: id! });
    return route.queryParams.includes('limit') ? `${url}?limit=1` : url;
  };
  const gets = () => routes.filter((route) => route.method === 'GET');

  it('HEAD answers every GET of the document with its status, ETag, Link and Content-Length (none for a streamed download), and no body', async () => {
    const seen = { etag: 0, link: 0 };
    for (const route of gets()) {
      const url = urlOf(route);
      const get = await t.request('GET', url, { token: owner.token });
      const head = await t.request('HEAD', url, { token: owner.token });
      expect(heading(head), `HEAD ${route.path}`).toEqual(heading(get));
      expect(head.body, `HEAD ${route.path}`).toBeUndefined();
      // A download streamed as it is made (an export) has no length before it ends: neither answer names one.
      if (String(get.headers['content-disposition'] ?? '').startsWith('attachment') && get.headers['content-length'] === undefined) {
        expect(head.headers['content-length'], `HEAD ${route.path}`).toBeUndefined();
      } else {
        expect(Number(head.headers['content-length']), `HEAD ${route.path}`).toBeGreaterThan(0);
      }
      if (get.headers.etag) seen.etag += 1;
      if (get.headers.link) seen.link += 1;
    }
    // The walk reached resources and pages, not only refusals.
    expect(seen.etag).toBeGreaterThanOrEqual(5);
    expect(seen.link).toBeGreaterThanOrEqual(8);
  });

  it('HEAD answers as GET without a token, on unknown paths and ids, and on the document itself', async () => {
    const protectedGets = gets().filter((route) => route.isProtected);
    for (const route of protectedGets) {
      const head = await t.request('HEAD', urlOf(route));
      expect(heading(head), `HEAD ${route.path}`).toEqual(heading(await t.request('GET', urlOf(route))));
      expect(head.status).toBe(401);
      expect(head.headers['www-authenticate']).toBe('Bearer');
    }
    for (const url of ['/api/v1/nowhere', '/api/v1/tasks/not-an-id', `/api/v1/projects/${ids.taskId}`, '/api/v1/openapi.json']) {
      const head = await t.request('HEAD', url, { token: owner.token });
      expect(heading(head), `HEAD ${url}`).toEqual(heading(await t.request('GET', url, { token: owner.token })));
      expect(head.body).toBeUndefined();
    }
    expect((await t.request('HEAD', '/api/v1/nowhere')).status).toBe(404);
  });

  it('a method a path does not have is a 405 with Allow listing the methods it has, and the error body', async () => {
    const byPath = new Map<string, string[]>();
    for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
    // The event streams are documented GETs too.
    byPath.set('/projects/{id}/events', ['GET']).set('/notifications/events', ['GET']);
    let refused = 0;
    for (const [path, own] of byPath) {
      const url = urlOf({ path, queryParams: [] } as unknown as RestRoute);
      // What routes the URL: its path's methods, and those of any other path it matches too
      // (`/auth/sessions/sign-out-others` is also a `/auth/sessions/{id}`).
      const methods = [...byPath].flatMap(([template, its]) => (pathPattern(template).test(url) ? its : []));
      for (const method of [...METHODS.filter((candidate) => !methods.includes(candidate)), ...(methods.includes('GET') ? [] : ['HEAD']), 'OPTIONS']) {
        // No token, and a body that is not even JSON: the method is refused before either is read.
        const response = await t.request(method, url, { rawBody: 'not json', headers: { 'content-type': 'application/json' } });
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 405 });
        // Every method of the path (and of another path the URL also matches: the harness checks
        // Allow against the document exactly), never the one refused.
        const allow = headerList(response.headers.allow);
        expect(allow, `${method} ${path}`).toEqual(expect.arrayContaining([...own, ...(own.includes('GET') ? ['HEAD'] : [])]));
        expect(allow, `${method} ${path}`).not.toContain(method);
        if (method !== 'HEAD') expectErrorBody(response, 405);
        refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(50);
    // A path the API does not have stays a 404, whatever the method.
    for (const method of [...METHODS, 'OPTIONS']) expectErrorBody(await t.request(method, '/api/v1/nowhere/at/all'), 404);
  });

  it('HEAD of a live event stream answers its head and ends, as GET would start it', async () => {
    for (const url of [`/api/v1/projects/${ids.projectId}/events`, '/api/v1/notifications/events']) {
      const head = await t.request('HEAD', url, { token: owner.token });
      expect({ url, status: head.status, type: head.headers['content-type'], body: head.body }).toEqual({ url, status: 200, type: 'text/event-stream; charset=utf-8', body: undefined });
      expect(heading(await t.request('HEAD', url)), url).toEqual(heading(await t.request('GET', url)));
    }
    expect((await t.request('HEAD', `/api/v1/projects/${ids.taskId}/events`, { token: owner.token })).status).toBe(404);
  });

  it('the methods a path has still answer as before', async () => {
    const response = await t.request('PUT', `/api/v1/tasks/${ids.taskId}/subscription`, { token: owner.token });
    expect(response.status).toBe(200);
    expect((await t.request('DELETE', `/api/v1/tasks/${ids.taskId}/subscription`, { token: owner.token })).status).toBe(200);
  });
});

describe('CORS for every method and every header a client reads', () => {
  const ORIGIN = 'https://app.example.com';
  let t: TestApp;
  let routes: RestRoute[];

  beforeAll(async () => {
    t = await startTestApp({ corsOrigins: [ORIGIN] });
    routes = await discoverRestRoutes(t);
  });
  afterAll(() => t.close());

  const preflight = (url: string, headers: Record<string, string>) => t.request('OPTIONS', url, { headers });

  it('a preflight allows every method of every path of the document, HEAD included', async () => {
    const methods = new Set(routes.map((route) => route.method));
    expect([...methods]).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
    for (const route of routes) {
      for (const method of [route.method, ...(route.method === 'GET' ? ['HEAD'] : [])]) {
        const response = await preflight(fillPath(route.path, {}), { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,if-none-match,if-match' });
        expect({ path: route.path, method, status: response.status, origin: response.headers['access-control-allow-origin'] }).toEqual({ path: route.path, method, status: 204, origin: ORIGIN });
        expect(headerList(response.headers['access-control-allow-methods']), `${method} ${route.path}`).toContain(method);
      }
    }
  });

  it('exposes every response header a client reads', async () => {
    const user = await registerUser(t);
    const response = await t.request('GET', '/api/v1/projects', { token: user.token, headers: { origin: ORIGIN } });
    expect(response.status).toBe(200);
    expect(headerList(response.headers['access-control-expose-headers']).sort()).toEqual(
      ['ETag', 'Link', 'Location', 'Idempotent-Replayed', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id', 'Tasklane-Lsn'].sort(),
    );
  });

  it('a malformed preflight gets the JSON error body; an OPTIONS that is no preflight, a 405', async () => {
    expectErrorBody(await preflight('/api/v1/projects', { origin: ORIGIN }), 400);
    expectErrorBody(await preflight('/api/v1/projects', { 'access-control-request-method': 'POST' }), 400);
    const plain = await preflight('/api/v1/projects', {});
    expectErrorBody(plain, 405);
    expect(plain.headers.allow).toBe('GET, HEAD, POST');
  });
});
