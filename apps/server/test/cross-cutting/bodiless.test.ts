import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, issueAt } from '../support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from '../support/harness';

type Operation = { requestBody?: { content?: Record<string, { schema?: { required?: string[] } }> } };

/**
 * A POST sent as `curl -X POST` sends it: no body, no Content-Type. Every action route that needs
 * no field (found in the OpenAPI document, so one added later is covered) works that way on REST
 * and native tRPC; a body, when sent, must still be JSON.
 */
describe('bodiless POSTs', () => {
  let t: TestApp;
  let actions: string[];

  beforeAll(async () => {
    t = await startTestApp();
    const paths = (await t.request('GET', '/api/v1/openapi.json')).body.paths as Record<string, Record<string, Operation>>;
    actions = Object.entries(paths).flatMap(([path, operations]) => {
      const content = operations.post?.requestBody?.content;
      // An upload's multipart body is no action's: it needs its file (attachments.test.ts sends it none).
      if (content?.['multipart/form-data']) return [];
      const body = content?.['application/json']?.schema;
      return operations.post && (body?.required ?? []).length === 0 ? [path] : [];
    });
  });
  afterAll(() => t.close());

  it('finds the action routes', () => {
    expect(actions).toEqual(expect.arrayContaining(['/auth/logout', '/auth/sessions/sign-out-others']));
  });

  /** The URL of an action route for `user`: a path parameter names something of theirs (a notification). */
  async function urlOf(path: string, user: TestUser): Promise<string> {
    if (path === '/notifications/{id}/read') {
      const owner = await registerUser(t);
      await invite(t, owner, (await createProject(t, owner)).id, user, 'VIEWER');
      const [notification] = (await t.request('GET', '/api/v1/notifications', { token: user.token })).body as { id: string }[];
      return `/api/v1/notifications/${notification!.id}/read`;
    }
    if (path === '/tasks/{id}/move') {
      // With no body, a move takes the task to the end of its column.
      const task = await createTask(t, user, (await createProject(t, user)).id);
      return `/api/v1/tasks/${task.id}/move`;
    }
    if (path === '/tasks/{id}/timer') {
      // A timer needs nothing but its task.
      const task = await createTask(t, user, (await createProject(t, user)).id);
      return `/api/v1/tasks/${task.id}/timer`;
    }
    if (path === '/invitations/{token}/accept') {
      // An invitation of someone else's project, its link taken from the answer (the test app sends no email).
      const owner = await registerUser(t);
      const invited = await t.request('POST', `/api/v1/projects/${(await createProject(t, owner)).id}/members/invite`, { token: owner.token, body: { email: `bodiless-${user.id}@example.com` } });
      return `/api/v1/invitations/${String(invited.body.acceptUrl).split('/invite/')[1]}/accept`;
    }
    if (path === '/projects/{id}/webhooks/{webhookId}/test' || path === '/projects/{id}/webhooks/{webhookId}/rotate-secret') {
      // A webhook of the user's own project; its address refuses connections at once (port 9), so the test delivery just fails.
      const project = await createProject(t, user);
      const hook = await t.request('POST', `/api/v1/projects/${project.id}/webhooks`, { token: user.token, body: { url: 'http://127.0.0.1:9/hook' } });
      expect(hook.status).toBe(201);
      return `/api/v1${path.replace('{id}', project.id).replace('{webhookId}', String(hook.body.id))}`;
    }
    expect(path, 'an action route with a path parameter needs an id chosen here').not.toContain('{');
    return `/api/v1${path}`;
  }

  it('every action route answers 2xx to a POST with no body and no Content-Type', async () => {
    for (const path of actions) {
      const user = await registerUser(t);
      const response = await t.request('POST', await urlOf(path, user), { token: user.token });
      expect({ path, status: response.status, body: response.body }).toMatchObject({ path, status: expect.toSatisfy((s: number) => s >= 200 && s < 300) });
    }
  });

  it('logout with no body signs the session out, on REST and on tRPC', async () => {
    const rest = await registerUser(t);
    expect((await t.request('POST', '/api/v1/auth/logout', { token: rest.token })).status).toBe(200);
    expectErrorBody(await t.request('GET', '/api/v1/auth/me', { token: rest.token }), 401);
    const trpc = await registerUser(t);
    expect((await t.request('POST', '/api/trpc/auth.logout', { token: trpc.token })).status).toBe(200);
    expectErrorBody(await t.request('GET', '/api/v1/auth/me', { token: trpc.token }), 401);
  });

  it('a body that is not JSON is still a 415, and an empty JSON body still a 400', async () => {
    const user = await registerUser(t);
    for (const path of actions) {
      const url = await urlOf(path, user);
      expectErrorBody(await t.request('POST', url, { token: user.token, rawBody: '{}', headers: { 'content-type': 'text/plain' } }), 415);
      expectErrorBody(await t.request('POST', url, { token: user.token, rawBody: '', headers: { 'content-type': 'application/json' } }), 400, {
        reason: 'MALFORMED_JSON',
      });
    }
    expect((await t.request('GET', '/api/v1/auth/me', { token: user.token })).status).toBe(200);
  });

  it('a route that needs fields names them when sent no body, rather than blaming a Content-Type', async () => {
    const user = await registerUser(t);
    expectErrorBody(await t.request('POST', '/api/v1/projects', { token: user.token }), 400, { issues: [issueAt(['name'])] });
  });
});
