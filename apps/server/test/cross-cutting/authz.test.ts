import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, temporaryDataDir, upload } from '../support/attachments';
import { databaseSnapshot, expectErrorBody, signTestToken, unacceptableAuthorizations } from '../support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from '../support/harness';
import { discoverRestRoutes, fillPath, type RestRoute } from '../support/routes';

/**
 * A token of a user who is not a member of a project never reads or changes anything of it, on
 * every route of the OpenAPI document (routes added later included): each is called with the
 * project's real ids in its path, query and body, and must neither succeed on them, nor leak
 * them, nor write a row.
 */
describe('an outsider across every route', () => {
  let t: TestApp;
  let outsider: TestUser;
  let secrets: string[];
  let ids: Record<string, string>;
  let routes: RestRoute[];
  const dataDir = temporaryDataDir();

  beforeAll(async () => {
    t = await startTestApp({ dataDir: dataDir.dir });
    const owner = await registerUser(t, 'Owner');
    const member = await registerUser(t, 'Member');
    outsider = await registerUser(t, 'Outsider');
    const project = await createProject(t, owner, 'Secret project 7f3a');
    const membership = await invite(t, owner, project.id, member, 'EDITOR');
    const task = await createTask(t, owner, project.id, { title: 'Secret task 9c1e', assigneeId: member.id });
    const comment = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'Secret comment 5d2b' } });
    const attachment = await upload(t, owner.token, task.id, 'Secret file 3e8a.txt', 'Secret bytes 6b0f');
    const entry = await t.request('POST', `/api/v1/tasks/${task.id}/time-entries`, { token: owner.token, body: { minutes: 30 } });
    ids = { project: project.id, task: task.id, member: membership.id, comment: comment.body.id, owner: owner.id, memberUser: member.id, attachment: attachment.body.id, timeEntry: entry.body.id };
    secrets = [...Object.values(ids), 'Secret project 7f3a', 'Secret task 9c1e', 'Secret comment 5d2b', 'Secret file 3e8a', 'Secret bytes 6b0f', attachment.body.sha256, member.email];
    // Logout revokes the outsider's own token (by design), which would turn every later call into a 401.
    routes = (await discoverRestRoutes(t)).filter((route) => route.path !== '/auth/logout');
  });
  afterAll(async () => {
    await t.close();
    dataDir.remove();
  });

  /** The project's own id for each parameter name: ids of tasks for task routes, and so on. */
  function idFor(name: string, path: string): string {
    if (/comment/i.test(name)) return ids.comment!;
    if (/member/i.test(name)) return ids.member!;
    if (/user|assignee/i.test(name)) return ids.memberUser!;
    if (/project/i.test(name)) return ids.project!;
    if (name === 'id' && path.startsWith('/attachments')) return ids.attachment!;
    if (name === 'id') return path.startsWith('/tasks') ? ids.task! : path.startsWith('/comments') ? ids.comment! : path.startsWith('/time-entries') ? ids.timeEntry! : ids.project!;
    return ids.task!;
  }

  /** A body that would be valid for the route, aimed at the project: only authorization can stop it. */
  function bodyFor(route: RestRoute): Record<string, unknown> | undefined {
    if (!route.hasBody) return undefined;
    const plausible: Record<string, unknown> = {
      name: 'Hijacked', title: 'Hijacked', text: 'Hijacked', description: 'Hijacked', role: 'ADMIN', status: 'DONE',
      priority: 'LOW', dueDate: '2030-01-01T00:00:00.000Z', email: `victim-${Date.now()}@example.com`,
      url: 'https://93.184.216.34/hook', type: 'relates_to', category: 'started', minutes: 30, layout: 'board',
    };
    // A custom field's type (relations' `type` is theirs).
    if (route.path.endsWith('/fields')) plausible.type = 'text';
    // fields this test cannot guess are left out: optional ones do not matter, a required one shows as a 400
    return Object.fromEntries(
      route.bodyFields.flatMap((field) =>
        /Id$/.test(field) ? [[field, idFor(field, route.path)]] : field in plausible ? [[field, plausible[field]]] : [],
      ),
    );
  }

  // Two database snapshots per route: the walk grows with every route the document gains.
  it('is refused (404/403) on every project-scoped route and never sees or writes the project’s data', async () => {
    expect(routes.length).toBeGreaterThanOrEqual(15);
    const scoped = routes.filter((route) => route.isProtected && (route.pathParams.length > 0 || route.bodyFields.some((field) => /Id$/.test(field))));
    expect(scoped.length).toBeGreaterThanOrEqual(10);
    for (const route of routes.filter((candidate) => candidate.isProtected)) {
      const before = await databaseSnapshot(t);
      const values = Object.fromEntries(route.pathParams.map((name) => [name, idFor(name, route.path)]));
      // Ids aimed at the project, and the required parameters a valid request has (a report's range).
      const required: Record<string, string> = { from: '2026-01-01', to: '2026-12-31', groupBy: 'user' };
      const query = new URLSearchParams([
        ...route.queryParams.filter((name) => /Id$/.test(name)).map((name): [string, string] => [name, idFor(name, route.path)]),
        ...route.queryParams.filter((name) => name in required).map((name): [string, string] => [name, required[name]!]),
      ]).toString();
      const body = bodyFor(route);
      // An upload's body is a file (multipart/form-data), not JSON.
      const file = route.path === '/tasks/{id}/attachments' && route.method === 'POST' ? multipartBody([{ name: 'file', filename: 'hijack.txt', content: 'Hijacked' }]) : undefined;
      const response = await t.request(route.method, `${fillPath(route.path, values)}${query ? `?${query}` : ''}`, {
        token: outsider.token,
        ...(file ? { rawBody: file.body, headers: { 'content-type': file.contentType } } : body ? { body } : {}),
      });
      const label = `${route.method} ${route.path} → ${response.status}`;
      const text = JSON.stringify(response.body) ?? '';
      for (const secret of secrets) expect(text.includes(secret), `${label} leaks ${secret}`).toBe(false);
      if (scoped.includes(route)) {
        expect([403, 404], label).toContain(response.status);
        // An invitation's link names no project: a token that is none is its own 404.
        expectErrorBody(response, response.status, route.path === '/invitations/{token}/accept' ? { reason: 'INVITATION_INVALID' } : {});
        expect(await databaseSnapshot(t), `${label} wrote to the database`).toEqual(before);
      } else {
        expect(response.status, label).toBeLessThan(500);
      }
    }
  }, 120_000);

  it('refuses tokens signed with another secret, unsigned (alg none), expired, or with a tampered payload', async () => {
    const [header, , signature] = outsider.token.split('.');
    const ownerClaims = JSON.parse(Buffer.from((await signTestToken(ids.owner!)).split('.')[1]!, 'base64url').toString());
    const tampered = `${header}.${Buffer.from(JSON.stringify(ownerClaims)).toString('base64url')}.${signature}`;
    const forged = await unacceptableAuthorizations(ids.owner!);
    const attempts = {
      'tampered payload': `Bearer ${tampered}`,
      'another secret': forged['token signed with another secret'],
      'alg none': forged['unsigned token (alg none)'],
      expired: forged['expired token'],
    };
    for (const [kind, authorization] of Object.entries(attempts)) {
      for (const url of ['/api/v1/auth/me', `/api/v1/projects/${ids.project}`, `/api/v1/tasks/${ids.task}`]) {
        const response = await t.request('GET', url, { headers: { authorization: authorization! } });
        expect(response.status, `${kind} on ${url}`).toBe(401);
        expectErrorBody(response, 401);
      }
      const trpc = await t.request('GET', '/api/trpc/auth.me', { headers: { authorization: authorization! } });
      expect(trpc.status, `${kind} on tRPC`).toBe(401);
    }
  });
});
