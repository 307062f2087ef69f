import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSnapshot, expectErrorBody, UNACCEPTABLE_TOKENS, unacceptableAuthorizations } from './checks';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/platform/sql';
import { csvImportRequest } from './attachments';
import { castProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './harness';

/**
 * Every REST endpoint × every kind of caller → the status of DESIGN.md's permission table:
 * non-members 404 (existence is not leaked), a role too low 403, a token that does not hold 401.
 * Each resource's test file checks its own rows with `describePermissions`.
 */

const CALLERS = ['non-member', 'VIEWER', 'EDITOR', 'ADMIN', 'owner'] as const;
type Caller = (typeof CALLERS)[number];

const EXPECTED = {
  //                                             non-member VIEWER EDITOR ADMIN owner
  'GET /auth/me':                                  [200,     200,   200,   200,  200],
  'GET /projects':                                 [200,     200,   200,   200,  200],
  'POST /projects':                                [201,     201,   201,   201,  201],
  'GET /projects/{id}':                            [404,     200,   200,   200,  200],
  'PATCH /projects/{id}':                          [404,     403,   403,   200,  200],
  'DELETE /projects/{id}':                         [404,     403,   403,   403,  200],
  'POST /projects/{id}/members/invite':            [404,     403,   403,   201,  201],
  'PATCH /projects/{id}/members/{memberId}/role':  [404,     403,   403,   200,  200],
  'GET /projects/{id}/members/{memberId}':         [404,     200,   200,   200,  200],
  // Invitations of emails without an account; accepting is open to anyone holding the link (a member: joined false).
  'GET /projects/{id}/invitations':                [404,     403,   403,   200,  200],
  'DELETE /projects/{id}/invitations/{invitationId}': [404,  403,   403,   200,  200],
  'POST /invitations/{token}/accept':              [200,     200,   200,   200,  200],
  'POST /tasks':                                   [404,     403,   201,   201,  201],
  'GET /tasks/project/{projectId}':                [404,     200,   200,   200,  200],
  'GET /tasks':                                    [200,     200,   200,   200,  200],
  'GET /tasks/{id}':                               [404,     200,   200,   200,  200],
  'PATCH /tasks/{id}':                             [404,     403,   200,   200,  200],
  'DELETE /tasks/{id}':                            [404,     403,   200,   200,  200],
  'POST /tasks/{id}/comments':                     [404,     403,   201,   201,  201],
  'GET /projects/{id}/activity':                   [404,     200,   200,   200,  200],
  'GET /tasks/{id}/activity':                      [404,     200,   200,   200,  200],
  'GET /projects/{id}/labels':                     [404,     200,   200,   200,  200],
  'POST /projects/{id}/labels':                    [404,     403,   201,   201,  201],
  'GET /projects/{id}/labels/{labelId}':           [404,     200,   200,   200,  200],
  'PATCH /projects/{id}/labels/{labelId}':         [404,     403,   200,   200,  200],
  'DELETE /projects/{id}/labels/{labelId}':        [404,     403,   200,   200,  200],
  'GET /projects/{id}/states':                     [404,     200,   200,   200,  200],
  'POST /projects/{id}/states':                    [404,     403,   403,   201,  201],
  'GET /projects/{id}/states/{stateId}':           [404,     200,   200,   200,  200],
  'PATCH /projects/{id}/states/{stateId}':         [404,     403,   403,   200,  200],
  'DELETE /projects/{id}/states/{stateId}':        [404,     403,   403,   200,  200],
  'GET /projects/{id}/fields':                     [404,     200,   200,   200,  200],
  'POST /projects/{id}/fields':                    [404,     403,   403,   201,  201],
  'GET /projects/{id}/fields/{fieldId}':           [404,     200,   200,   200,  200],
  'PATCH /projects/{id}/fields/{fieldId}':         [404,     403,   403,   200,  200],
  'DELETE /projects/{id}/fields/{fieldId}':        [404,     403,   403,   200,  200],
  'GET /tasks/{id}/relations':                     [404,     200,   200,   200,  200],
  'POST /tasks/{id}/relations':                    [404,     403,   201,   201,  201],
  'DELETE /tasks/{id}/relations/{relationId}':     [404,     403,   200,   200,  200],
  'GET /tasks/{id}/time-entries':                  [404,     200,   200,   200,  200],
  'POST /tasks/{id}/time-entries':                 [404,     403,   201,   201,  201],
  'GET /time-entries/{id}':                        [404,     200,   200,   200,  200],
  'PATCH /time-entries/{id}':                      [404,     403,   403,   200,  200],
  'DELETE /time-entries/{id}':                     [404,     403,   403,   200,  200],
  'POST /tasks/{id}/timer':                        [404,     403,   200,   200,  200],
  'GET /projects/{id}/time-report':                [404,     200,   200,   200,  200],
  // A shared view; the owner's, for the PATCH and the DELETE (another member's shared view).
  'GET /projects/{id}/views':                      [404,     200,   200,   200,  200],
  'POST /projects/{id}/views':                     [404,     403,   201,   201,  201],
  'GET /projects/{id}/views/{viewId}':             [404,     200,   200,   200,  200],
  'PATCH /projects/{id}/views/{viewId}':           [404,     403,   403,   200,  200],
  'DELETE /projects/{id}/views/{viewId}':          [404,     403,   403,   200,  200],
  // A disabled webhook of the owner's (a test delivery is queued all the same).
  'POST /projects/{id}/webhooks/{webhookId}/test':          [404, 403, 403, 202, 202],
  'POST /projects/{id}/webhooks/{webhookId}/rotate-secret': [404, 403, 403, 200, 200],
  // The exports (a download, not a resource): the project's for its ADMINs and owner, one's own data for anyone.
  'GET /projects/{id}/export':                     [404,     403,   403,   200,  200],
  'GET /auth/me/export':                           [200,     200,   200,   200,  200],
  // Imports make a project of the caller's own; an import is seen by its creator only (here the owner's).
  'POST /imports':                                 [202,     202,   202,   202,  202],
  'GET /imports/{id}':                             [404,     404,   404,   404,  200],
} satisfies Record<string, [number, number, number, number, number]>;
export type Endpoint = keyof typeof EXPECTED;

interface World {
  t: TestApp;
  users: Record<Caller, TestUser>;
  /** The test's own project, with the whole cast as members, and a task in it. */
  projectId: string;
  taskId: string;
  /** Another such project, for requests that destroy one. */
  freshProject(): Promise<string>;
}

/** How to call each endpoint; a call creates whatever it consumes (a task to delete, a user to invite). */
/** A request of an endpoint: a JSON body, or a raw one with its headers (a multipart upload). */
type Call = { url: string; body?: unknown; rawBody?: Buffer; headers?: Record<string, string> };

const importCall = (): Call => ({ url: '/api/v1/imports', ...csvImportRequest() });

/**
 * Waits for an import to end and for the work derived from its events (the dispatcher marks them
 * dispatched), so that none of it lands during a call that must change nothing.
 */
export async function importSettled(t: TestApp, token: string, url: string): Promise<void> {
  while (!['succeeded', 'failed'].includes((await t.request('GET', url, { token })).body.status)) await new Promise((resolve) => setTimeout(resolve, 50));
  for (;;) {
    const [row] = rowsOf<{ waiting: number }>(await t.database.db.execute(sql`select count(*)::int as waiting from activity where dispatched_at is null`));
    if (row!.waiting === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const CALLS: Record<Endpoint, (world: World, caller: Caller) => Promise<Call> | Call> = {
  'GET /auth/me': () => ({ url: '/api/v1/auth/me' }),
  'GET /projects': () => ({ url: '/api/v1/projects' }),
  'POST /projects': () => ({ url: '/api/v1/projects', body: { name: 'Mine' } }),
  'GET /projects/{id}': ({ projectId }) => ({ url: `/api/v1/projects/${projectId}` }),
  'PATCH /projects/{id}': ({ projectId }, caller) => ({ url: `/api/v1/projects/${projectId}`, body: { description: `edited by ${caller}` } }),
  'DELETE /projects/{id}': async ({ freshProject }) => ({ url: `/api/v1/projects/${await freshProject()}` }),
  'POST /projects/{id}/members/invite': async ({ t, projectId }) => ({
    url: `/api/v1/projects/${projectId}/members/invite`,
    body: { email: (await registerUser(t, 'Invitee')).email, role: 'EDITOR' },
  }),
  'PATCH /projects/{id}/members/{memberId}/role': async ({ t, users, projectId }) => {
    const member = await invite(t, users.owner, projectId, await registerUser(t, 'Member'), 'VIEWER');
    return { url: `/api/v1/projects/${projectId}/members/${member.id}/role`, body: { role: 'EDITOR' } };
  },
  'GET /projects/{id}/members/{memberId}': async ({ t, users, projectId }) => {
    const member = await invite(t, users.owner, projectId, await registerUser(t, 'Member'), 'VIEWER');
    return { url: `/api/v1/projects/${projectId}/members/${member.id}` };
  },
  'GET /projects/{id}/invitations': ({ projectId }) => ({ url: `/api/v1/projects/${projectId}/invitations` }),
  'DELETE /projects/{id}/invitations/{invitationId}': async ({ t, users, projectId }) => ({
    url: `/api/v1/projects/${projectId}/invitations/${(await invitationOf(t, users.owner, projectId)).id}`,
  }),
  'POST /invitations/{token}/accept': async ({ t, users, projectId }) => ({
    url: `/api/v1/invitations/${/\/invite\/(.+)$/.exec((await invitationOf(t, users.owner, projectId)).acceptUrl)![1]}/accept`,
  }),
  'POST /tasks': ({ projectId }) => ({ url: '/api/v1/tasks', body: { title: 'New task', projectId } }),
  'GET /tasks/project/{projectId}': ({ projectId }) => ({ url: `/api/v1/tasks/project/${projectId}` }),
  'GET /tasks': () => ({ url: '/api/v1/tasks' }),
  'GET /tasks/{id}': ({ taskId }) => ({ url: `/api/v1/tasks/${taskId}` }),
  'PATCH /tasks/{id}': ({ taskId }) => ({ url: `/api/v1/tasks/${taskId}`, body: { status: 'IN_PROGRESS' } }),
  'DELETE /tasks/{id}': async ({ t, users, projectId }) => ({ url: `/api/v1/tasks/${(await createTask(t, users.owner, projectId)).id}` }),
  'POST /tasks/{id}/comments': ({ taskId }) => ({ url: `/api/v1/tasks/${taskId}/comments`, body: { text: 'A comment' } }),
  'GET /projects/{id}/activity': ({ projectId }) => ({ url: `/api/v1/projects/${projectId}/activity` }),
  'GET /tasks/{id}/activity': ({ taskId }) => ({ url: `/api/v1/tasks/${taskId}/activity` }),
  'GET /projects/{id}/labels': ({ projectId }) => ({ url: `/api/v1/projects/${projectId}/labels` }),
  'POST /projects/{id}/labels': ({ projectId }, caller) => ({ url: `/api/v1/projects/${projectId}/labels`, body: { name: `Made by ${caller}`, color: '#d73a4a' } }),
  'GET /projects/{id}/labels/{labelId}': async ({ t, users, projectId }) => ({ url: `/api/v1/projects/${projectId}/labels/${await labelOf(t, users.owner, projectId)}` }),
  'PATCH /projects/{id}/labels/{labelId}': async ({ t, users, projectId }, caller) => ({
    url: `/api/v1/projects/${projectId}/labels/${await labelOf(t, users.owner, projectId)}`,
    body: { name: `Renamed by ${caller}` },
  }),
  'DELETE /projects/{id}/labels/{labelId}': async ({ t, users, projectId }) => ({
    url: `/api/v1/projects/${projectId}/labels/${await labelOf(t, users.owner, projectId)}`,
  }),
  'GET /projects/{id}/states': ({ projectId }) => ({ url: `/api/v1/projects/${projectId}/states` }),
  'POST /projects/{id}/states': ({ projectId }, caller) => ({ url: `/api/v1/projects/${projectId}/states`, body: { name: `Made by ${caller}`, category: 'started' } }),
  'GET /projects/{id}/states/{stateId}': async ({ t, users, projectId }) => ({ url: `/api/v1/projects/${projectId}/states/${await stateOf(t, users.owner, projectId)}` }),
  'PATCH /projects/{id}/states/{stateId}': async ({ t, users, projectId }, caller) => ({
    url: `/api/v1/projects/${projectId}/states/${await stateOf(t, users.owner, projectId)}`,
    body: { name: `Renamed by ${caller}` },
  }),
  'DELETE /projects/{id}/states/{stateId}': async ({ t, users, projectId }) => ({ url: `/api/v1/projects/${projectId}/states/${await stateOf(t, users.owner, projectId)}` }),
  'GET /projects/{id}/fields': ({ projectId }) => ({ url: `/api/v1/projects/${projectId}/fields` }),
  'POST /projects/{id}/fields': ({ projectId }, caller) => ({ url: `/api/v1/projects/${projectId}/fields`, body: { name: `Made by ${caller}`, type: 'text' } }),
  'GET /projects/{id}/fields/{fieldId}': async ({ t, users, projectId }) => ({ url: `/api/v1/projects/${projectId}/fields/${await fieldOf(t, users.owner, projectId)}` }),
  'PATCH /projects/{id}/fields/{fieldId}': async ({ t, users, projectId }, caller) => ({
    url: `/api/v1/projects/${projectId}/fields/${await fieldOf(t, users.owner, projectId)}`,
    body: { name: `Renamed by ${caller}` },
  }),
  'DELETE /projects/{id}/fields/{fieldId}': async ({ t, users, projectId }) => ({ url: `/api/v1/projects/${projectId}/fields/${await fieldOf(t, users.owner, projectId)}` }),
  'GET /tasks/{id}/relations': ({ taskId }) => ({ url: `/api/v1/tasks/${taskId}/relations` }),
  'POST /tasks/{id}/relations': async ({ t, users, projectId, taskId }) => ({
    url: `/api/v1/tasks/${taskId}/relations`,
    body: { type: 'blocks', taskId: (await createTask(t, users.owner, projectId, { title: 'Blocked' })).id },
  }),
  'DELETE /tasks/{id}/relations/{relationId}': async ({ t, users, projectId, taskId }) => {
    const other = await createTask(t, users.owner, projectId, { title: 'Related' });
    const response = await t.request('POST', `/api/v1/tasks/${taskId}/relations`, { token: users.owner.token, body: { type: 'relates_to', taskId: other.id } });
    if (response.status !== 201) throw new Error(`create relation failed: ${response.status} ${JSON.stringify(response.body)}`);
    return { url: `/api/v1/tasks/${taskId}/relations/${response.body.id}` };
  },
  'GET /tasks/{id}/time-entries': ({ taskId }) => ({ url: `/api/v1/tasks/${taskId}/time-entries` }),
  'POST /tasks/{id}/time-entries': ({ taskId }) => ({ url: `/api/v1/tasks/${taskId}/time-entries`, body: { minutes: 30 } }),
  // The owner's entry: another member's for every caller but the owner (who may change any).
  'GET /time-entries/{id}': async ({ t, users, taskId }) => ({ url: `/api/v1/time-entries/${await entryOf(t, users.owner, taskId)}` }),
  'PATCH /time-entries/{id}': async ({ t, users, taskId }) => ({ url: `/api/v1/time-entries/${await entryOf(t, users.owner, taskId)}`, body: { minutes: 45 } }),
  'DELETE /time-entries/{id}': async ({ t, users, taskId }) => ({ url: `/api/v1/time-entries/${await entryOf(t, users.owner, taskId)}` }),
  'POST /tasks/{id}/timer': ({ taskId }) => ({ url: `/api/v1/tasks/${taskId}/timer` }),
  'GET /projects/{id}/time-report': ({ projectId }) => ({ url: `/api/v1/projects/${projectId}/time-report?from=2026-01-01&to=2026-12-31&groupBy=task` }),
  'GET /projects/{id}/views': ({ projectId }) => ({ url: `/api/v1/projects/${projectId}/views` }),
  'POST /projects/{id}/views': ({ projectId }, caller) => ({ url: `/api/v1/projects/${projectId}/views`, body: { name: `Shared by ${caller}`, layout: 'list', shared: true } }),
  'GET /projects/{id}/views/{viewId}': async ({ t, users, projectId }) => ({ url: `/api/v1/projects/${projectId}/views/${await sharedViewOf(t, users.owner, projectId)}` }),
  'PATCH /projects/{id}/views/{viewId}': async ({ t, users, projectId }, caller) => ({
    url: `/api/v1/projects/${projectId}/views/${await sharedViewOf(t, users.owner, projectId)}`,
    body: { name: `Renamed by ${caller}` },
  }),
  'DELETE /projects/{id}/views/{viewId}': async ({ t, users, projectId }) => ({ url: `/api/v1/projects/${projectId}/views/${await sharedViewOf(t, users.owner, projectId)}` }),
  'POST /projects/{id}/webhooks/{webhookId}/test': async ({ t, users, projectId }) => ({ url: `/api/v1/projects/${projectId}/webhooks/${await webhookOf(t, users.owner, projectId)}/test` }),
  'POST /projects/{id}/webhooks/{webhookId}/rotate-secret': async ({ t, users, projectId }) => ({
    url: `/api/v1/projects/${projectId}/webhooks/${await webhookOf(t, users.owner, projectId)}/rotate-secret`,
  }),
  'GET /projects/{id}/export': ({ projectId }) => ({ url: `/api/v1/projects/${projectId}/export?format=json` }),
  'GET /auth/me/export': () => ({ url: '/api/v1/auth/me/export' }),
  'POST /imports': () => importCall(),
  'GET /imports/{id}': async ({ t, users }) => {
    const { url: importsUrl, rawBody, headers } = importCall();
    const queued = await t.request('POST', importsUrl, { token: users.owner.token, ...(rawBody ? { rawBody } : {}), ...(headers ? { headers } : {}) });
    if (queued.status !== 202) throw new Error(`import failed: ${queued.status} ${JSON.stringify(queued.body)}`);
    const url = `/api/v1/imports/${queued.body.id}`;
    await importSettled(t, users.owner.token, url);
    return { url };
  },
};

/** A new disabled webhook of the project (to a closed port), made by its owner; its id. */
async function webhookOf(t: TestApp, owner: TestUser, projectId: string): Promise<string> {
  const response = await t.request('POST', `/api/v1/projects/${projectId}/webhooks`, { token: owner.token, body: { url: 'http://127.0.0.1:9/hook', active: false } });
  if (response.status !== 201) throw new Error(`create webhook failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id as string;
}

/** A new shared view of the project, saved by its owner; its id. */
async function sharedViewOf(t: TestApp, owner: TestUser, projectId: string): Promise<string> {
  const response = await t.request('POST', `/api/v1/projects/${projectId}/views`, { token: owner.token, body: { name: 'Team view', layout: 'board', shared: true } });
  if (response.status !== 201) throw new Error(`create view failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id as string;
}

/** A new time entry of the user's on the task; its id. */
async function entryOf(t: TestApp, user: TestUser, taskId: string): Promise<string> {
  const response = await t.request('POST', `/api/v1/tasks/${taskId}/time-entries`, { token: user.token, body: { minutes: 20 } });
  if (response.status !== 201) throw new Error(`create time entry failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id as string;
}

let labelCounter = 0;

/** A new label of the project, made by its owner; its id. */
async function labelOf(t: TestApp, owner: TestUser, projectId: string): Promise<string> {
  labelCounter += 1;
  const response = await t.request('POST', `/api/v1/projects/${projectId}/labels`, { token: owner.token, body: { name: `Label ${labelCounter}` } });
  if (response.status !== 201) throw new Error(`create label failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id as string;
}

let stateCounter = 0;
/** A new state of the project (holding no task), made by its owner; its id. */
async function stateOf(t: TestApp, owner: TestUser, projectId: string): Promise<string> {
  stateCounter += 1;
  const response = await t.request('POST', `/api/v1/projects/${projectId}/states`, { token: owner.token, body: { name: `State ${stateCounter}`, category: 'started' } });
  if (response.status !== 201) throw new Error(`create state failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id as string;
}

let fieldCounter = 0;
/** A new custom field of the project, made by its owner; its id. */
async function fieldOf(t: TestApp, owner: TestUser, projectId: string): Promise<string> {
  fieldCounter += 1;
  const response = await t.request('POST', `/api/v1/projects/${projectId}/fields`, { token: owner.token, body: { name: `Field ${fieldCounter}`, type: 'text' } });
  if (response.status !== 201) throw new Error(`create field failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id as string;
}

/** A new invitation of an email without an account, by the owner (the test app sends no email: the answer has the link). */
async function invitationOf(t: TestApp, owner: TestUser, projectId: string): Promise<{ id: string; acceptUrl: string }> {
  const email = `invitee-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const response = await t.request('POST', `/api/v1/projects/${projectId}/members/invite`, { token: owner.token, body: { email } });
  if (response.status !== 201) throw new Error(`invite failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

const methodOf = (endpoint: Endpoint) => endpoint.split(' ')[0]!;
/** What a 404 names: the task for task paths, the project for everything else. */
const notFoundMessage = (endpoint: Endpoint) =>
  endpoint.includes('/tasks/{id}') ? 'Task not found' : endpoint.includes('/imports/') ? 'Import not found' : endpoint.startsWith('GET /time-entries') || / \/time-entries\//.test(endpoint) ? 'Time entry not found' : 'Project not found';

/**
 * The permission table's rows of `endpoints`, each caller × endpoint a test of its own on a project
 * of its own (the users are shared: registering them changes nothing a test reads).
 */
export function describePermissions(endpoints: Endpoint[]) {
  describe('permissions', () => {
    let t: TestApp;
    const users = {} as Record<Caller, TestUser>;

    beforeAll(async () => {
      t = await startTestApp();
      for (const caller of CALLERS) users[caller] = await registerUser(t, caller);
    });
    afterAll(() => t.close());

    async function world(): Promise<World> {
      const freshProject = async () => (await castProject(t, users)).projectId;
      const projectId = await freshProject();
      const taskId = (await createTask(t, users.owner, projectId, { title: 'Shared task' })).id;
      return { t, users, projectId, taskId, freshProject };
    }

    const roleCases = endpoints.flatMap((endpoint) =>
      CALLERS.map((caller, index) => ({ endpoint, caller, status: EXPECTED[endpoint][index]! })),
    );

    for (const { endpoint, caller, status } of roleCases) {
      it(`${endpoint} as ${caller} → ${status}`, async () => {
        const { url, body, rawBody, headers } = await CALLS[endpoint](await world(), caller);
        const before = await databaseSnapshot(t);
        const response = await t.request(methodOf(endpoint), url, { token: users[caller].token, body, ...(rawBody ? { rawBody } : {}), ...(headers ? { headers } : {}) });

        if (status < 300) {
          expect({ status: response.status, body: response.body }).toMatchObject({ status });
          expect(response.body).not.toHaveProperty('code');
          return;
        }
        if (status === 403) {
          expectErrorBody(response, 403, { message: expect.stringMatching(new RegExp(`^Your role \\(${caller}\\) may not `)) });
        } else {
          expectErrorBody(response, 404, { message: notFoundMessage(endpoint) });
        }
        expect(await databaseSnapshot(t)).toEqual(before);
      });
    }

    describe('a token that does not hold: 401 with WWW-Authenticate: Bearer, nothing written', () => {
      let authorizations: Awaited<ReturnType<typeof unacceptableAuthorizations>>;
      beforeAll(async () => {
        authorizations = await unacceptableAuthorizations(users.owner.id);
      });

      const tokenCases = endpoints.flatMap((endpoint) => UNACCEPTABLE_TOKENS.map((kind) => ({ endpoint, kind })));

      for (const { endpoint, kind } of tokenCases) {
        it(`${endpoint} with ${kind} → 401`, async () => {
          const { url, body, rawBody, headers } = await CALLS[endpoint](await world(), 'owner');
          const authorization = authorizations[kind];
          const before = await databaseSnapshot(t);
          const response = await t.request(methodOf(endpoint), url, { body, ...(rawBody ? { rawBody } : {}), headers: { ...headers, ...(authorization ? { authorization } : {}) } });
          expectErrorBody(response, 401, { message: 'Missing, invalid or expired token' });
          expect(await databaseSnapshot(t)).toEqual(before);
        });
      }
    });
  });
}
