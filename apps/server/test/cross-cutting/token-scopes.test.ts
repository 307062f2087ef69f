import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvImportRequest, multipartBody, temporaryDataDir, upload } from '../support/attachments';
import { importSettled } from '../support/permissions';
import { databaseSnapshot, expectErrorBody } from '../support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from '../support/harness';
import { discoverRestRoutes } from '../support/routes';
import { procedureMetas } from '../../src/transport/rest/openapi';
import { appRouter } from '../../src/transport/trpc/router';
import { scopesTable, TOKEN_NEEDS } from '../../src/transport/trpc/token-scopes';

/**
 * Every protected REST route × every scope of a personal access token held by the project's owner
 * (who may do everything): a scope that covers the route's need succeeds as the owner would; any
 * other is a 403 that writes nothing. `session`: no token at all (the account and its credentials).
 */
const SCOPES = ['read', 'write', 'admin'] as const;
type Scope = (typeof SCOPES)[number];
type Need = Scope | 'session';

const NEEDS = {
  'GET /auth/me': 'read',
  'PATCH /auth/me': 'session',
  'GET /auth/me/notification-settings': 'read',
  'PATCH /auth/me/notification-settings': 'session',
  'POST /auth/me/calendar-feed': 'session',
  'GET /auth/me/calendar-feed': 'read',
  'DELETE /auth/me/calendar-feed': 'session',
  'POST /auth/logout': 'session',
  'GET /auth/sessions': 'session',
  'DELETE /auth/sessions/{id}': 'session',
  'POST /auth/sessions/sign-out-others': 'session',
  'POST /auth/tokens': 'session',
  'GET /auth/tokens': 'session',
  'DELETE /auth/tokens/{id}': 'session',
  'GET /projects': 'read',
  'POST /projects': 'admin',
  'GET /projects/{id}': 'read',
  'PATCH /projects/{id}': 'admin',
  'DELETE /projects/{id}': 'admin',
  'POST /projects/{id}/transfer-ownership': 'admin',
  'GET /projects/{id}/members': 'read',
  'GET /projects/{id}/members/{memberId}': 'read',
  'POST /projects/{id}/members/invite': 'admin',
  'PATCH /projects/{id}/members/{memberId}/role': 'admin',
  'DELETE /projects/{id}/members/{memberId}': 'admin',
  'GET /projects/{id}/invitations': 'admin',
  'DELETE /projects/{id}/invitations/{invitationId}': 'admin',
  'POST /invitations/{token}/accept': 'session',
  'GET /tasks/project/{projectId}': 'read',
  'GET /tasks': 'read',
  'POST /tasks': 'write',
  'GET /tasks/{id}': 'read',
  'PATCH /tasks/{id}': 'write',
  'DELETE /tasks/{id}': 'write',
  'GET /tasks/{id}/comments': 'read',
  'POST /tasks/{id}/comments': 'write',
  'GET /tasks/{id}/comments/{commentId}': 'read',
  'PATCH /tasks/{id}/comments/{commentId}': 'write',
  'DELETE /tasks/{id}/comments/{commentId}': 'write',
  'GET /projects/{id}/activity': 'read',
  'GET /tasks/{id}/activity': 'read',
  'POST /projects/{id}/webhooks': 'admin',
  'GET /projects/{id}/webhooks': 'read',
  'GET /projects/{id}/webhooks/{webhookId}': 'read',
  'PATCH /projects/{id}/webhooks/{webhookId}': 'admin',
  'DELETE /projects/{id}/webhooks/{webhookId}': 'admin',
  'GET /projects/{id}/webhooks/{webhookId}/deliveries': 'read',
  'POST /projects/{id}/webhooks/{webhookId}/test': 'admin',
  'POST /projects/{id}/webhooks/{webhookId}/rotate-secret': 'admin',
  'GET /notifications': 'read',
  'GET /notifications/unread-count': 'read',
  'POST /notifications/{id}/read': 'write',
  'POST /notifications/read-all': 'write',
  'GET /tasks/{id}/subscription': 'read',
  'PUT /tasks/{id}/subscription': 'write',
  'DELETE /tasks/{id}/subscription': 'write',
  'GET /projects/{id}/labels': 'read',
  'POST /projects/{id}/labels': 'write',
  'GET /projects/{id}/labels/{labelId}': 'read',
  'PATCH /projects/{id}/labels/{labelId}': 'write',
  'DELETE /projects/{id}/labels/{labelId}': 'write',
  'GET /projects/{id}/views': 'read',
  'POST /projects/{id}/views': 'write',
  'GET /projects/{id}/views/{viewId}': 'read',
  'PATCH /projects/{id}/views/{viewId}': 'write',
  'DELETE /projects/{id}/views/{viewId}': 'write',
  'GET /tasks/{id}/relations': 'read',
  'POST /tasks/{id}/relations': 'write',
  'POST /tasks/{id}/move': 'write',
  'DELETE /tasks/{id}/relations/{relationId}': 'write',
  'GET /projects/{id}/states': 'read',
  'POST /projects/{id}/states': 'admin',
  'GET /projects/{id}/states/{stateId}': 'read',
  'PATCH /projects/{id}/states/{stateId}': 'admin',
  'DELETE /projects/{id}/states/{stateId}': 'admin',
  'GET /tasks/{id}/attachments': 'read',
  'POST /tasks/{id}/attachments': 'write',
  'GET /attachments/{id}': 'read',
  'DELETE /attachments/{id}': 'write',
  'GET /attachments/{id}/content': 'read',
  'GET /attachments/{id}/thumbnail': 'read',
  'GET /tasks/{id}/time-entries': 'read',
  'POST /tasks/{id}/time-entries': 'write',
  'GET /time-entries/{id}': 'read',
  'PATCH /time-entries/{id}': 'write',
  'DELETE /time-entries/{id}': 'write',
  'POST /tasks/{id}/timer': 'write',
  'DELETE /auth/me/timer': 'write',
  'GET /auth/me/timer': 'read',
  'GET /projects/{id}/time-report': 'read',
  'GET /projects/{id}/fields': 'read',
  'POST /projects/{id}/fields': 'admin',
  'GET /projects/{id}/fields/{fieldId}': 'read',
  'PATCH /projects/{id}/fields/{fieldId}': 'admin',
  'DELETE /projects/{id}/fields/{fieldId}': 'admin',
  'GET /search': 'read',
  'GET /projects/{id}/export': 'read',
  'GET /auth/me/export': 'session',
  'POST /imports': 'admin',
  'GET /imports/{id}': 'read',
} satisfies Record<string, Need>;
type Route = keyof typeof NEEDS;

/** The owner's project with a task, a comment, a webhook and a VIEWER member; another session and token of the owner. */
interface World {
  projectId: string;
  taskId: string;
  commentId: string;
  webhookId: string;
  labelId: string;
  /** A shared saved view of the owner's. */
  viewId: string;
  /** Another task of the project, unrelated; and a relation of the task. */
  otherTaskId: string;
  relationId: string;
  /** A state of the project holding no task. */
  stateId: string;
  /** A custom field of the project. */
  fieldId: string;
  memberId: string;
  memberUserId: string;
  /** A pending invitation of the project, and its link's token. */
  invitationId: string;
  invitationToken: string;
  sessionId: string;
  tokenId: string;
  /** A notification of the owner's (an editor's comment on the owner's task). */
  notificationId: string;
  /** An image attached to the task (it has a preview). */
  attachmentId: string;
  /** A time entry of the owner's on the task. */
  timeEntryId: string;
}

/** A request of a route: a JSON body, or a raw one with its headers (an upload's multipart body). */
type Call = { url: string; body?: unknown; rawBody?: Buffer; headers?: Record<string, string> };

const CALLS: Record<Route, (world: World, t: TestApp) => Promise<Call> | Call> = {
  'GET /auth/me': () => ({ url: '/auth/me' }),
  'PATCH /auth/me': () => ({ url: '/auth/me', body: { name: 'Renamed' } }),
  'GET /auth/me/notification-settings': () => ({ url: '/auth/me/notification-settings' }),
  'PATCH /auth/me/notification-settings': () => ({ url: '/auth/me/notification-settings', body: { email: 'daily' } }),
  'POST /auth/me/calendar-feed': () => ({ url: '/auth/me/calendar-feed', body: {} }),
  'GET /auth/me/calendar-feed': () => ({ url: '/auth/me/calendar-feed' }),
  // A feed made with the owner's session, for the token to end.
  'DELETE /auth/me/calendar-feed': async (_world, t) => {
    await t.request('POST', '/api/v1/auth/me/calendar-feed', { token: ownerToken, body: {} });
    return { url: '/auth/me/calendar-feed' };
  },
  'POST /auth/logout': () => ({ url: '/auth/logout', body: {} }),
  'GET /auth/sessions': () => ({ url: '/auth/sessions' }),
  'DELETE /auth/sessions/{id}': ({ sessionId }) => ({ url: `/auth/sessions/${sessionId}` }),
  'POST /auth/sessions/sign-out-others': () => ({ url: '/auth/sessions/sign-out-others', body: {} }),
  'POST /auth/tokens': () => ({ url: '/auth/tokens', body: { name: 'Minted', scopes: ['admin'] } }),
  'GET /auth/tokens': () => ({ url: '/auth/tokens' }),
  'DELETE /auth/tokens/{id}': ({ tokenId }) => ({ url: `/auth/tokens/${tokenId}` }),
  'GET /projects': () => ({ url: '/projects' }),
  'POST /projects': () => ({ url: '/projects', body: { name: 'New' } }),
  'GET /projects/{id}': ({ projectId }) => ({ url: `/projects/${projectId}` }),
  'PATCH /projects/{id}': ({ projectId }) => ({ url: `/projects/${projectId}`, body: { description: 'Edited' } }),
  'DELETE /projects/{id}': ({ projectId }) => ({ url: `/projects/${projectId}` }),
  'POST /projects/{id}/transfer-ownership': ({ projectId, memberUserId }) => ({ url: `/projects/${projectId}/transfer-ownership`, body: { userId: memberUserId } }),
  'GET /projects/{id}/members': ({ projectId }) => ({ url: `/projects/${projectId}/members` }),
  'GET /projects/{id}/members/{memberId}': ({ projectId, memberId }) => ({ url: `/projects/${projectId}/members/${memberId}` }),
  'POST /projects/{id}/members/invite': async ({ projectId }, t) => ({ url: `/projects/${projectId}/members/invite`, body: { email: (await registerUser(t, 'Invitee')).email } }),
  'PATCH /projects/{id}/members/{memberId}/role': ({ projectId, memberId }) => ({ url: `/projects/${projectId}/members/${memberId}/role`, body: { role: 'EDITOR' } }),
  'DELETE /projects/{id}/members/{memberId}': ({ projectId, memberId }) => ({ url: `/projects/${projectId}/members/${memberId}` }),
  'GET /projects/{id}/invitations': ({ projectId }) => ({ url: `/projects/${projectId}/invitations` }),
  'DELETE /projects/{id}/invitations/{invitationId}': ({ projectId, invitationId }) => ({ url: `/projects/${projectId}/invitations/${invitationId}` }),
  'POST /invitations/{token}/accept': ({ invitationToken }) => ({ url: `/invitations/${invitationToken}/accept`, body: {} }),
  'GET /tasks/project/{projectId}': ({ projectId }) => ({ url: `/tasks/project/${projectId}` }),
  'GET /tasks': () => ({ url: '/tasks' }),
  'GET /search': () => ({ url: '/search?q=task' }),
  'POST /tasks': ({ projectId }) => ({ url: '/tasks', body: { projectId, title: 'New task' } }),
  'GET /tasks/{id}': ({ taskId }) => ({ url: `/tasks/${taskId}` }),
  'PATCH /tasks/{id}': ({ taskId }) => ({ url: `/tasks/${taskId}`, body: { status: 'DONE' } }),
  'DELETE /tasks/{id}': ({ taskId }) => ({ url: `/tasks/${taskId}` }),
  'GET /tasks/{id}/comments': ({ taskId }) => ({ url: `/tasks/${taskId}/comments` }),
  'POST /tasks/{id}/comments': ({ taskId }) => ({ url: `/tasks/${taskId}/comments`, body: { text: 'New comment' } }),
  'GET /tasks/{id}/comments/{commentId}': ({ taskId, commentId }) => ({ url: `/tasks/${taskId}/comments/${commentId}` }),
  'PATCH /tasks/{id}/comments/{commentId}': ({ taskId, commentId }) => ({ url: `/tasks/${taskId}/comments/${commentId}`, body: { text: 'Edited' } }),
  'DELETE /tasks/{id}/comments/{commentId}': ({ taskId, commentId }) => ({ url: `/tasks/${taskId}/comments/${commentId}` }),
  'GET /projects/{id}/activity': ({ projectId }) => ({ url: `/projects/${projectId}/activity` }),
  'GET /tasks/{id}/activity': ({ taskId }) => ({ url: `/tasks/${taskId}/activity` }),
  'POST /projects/{id}/webhooks': ({ projectId }) => ({ url: `/projects/${projectId}/webhooks`, body: { url: 'http://127.0.0.1:9/hook', active: false } }),
  'GET /projects/{id}/webhooks': ({ projectId }) => ({ url: `/projects/${projectId}/webhooks` }),
  'GET /projects/{id}/webhooks/{webhookId}': ({ projectId, webhookId }) => ({ url: `/projects/${projectId}/webhooks/${webhookId}` }),
  'PATCH /projects/{id}/webhooks/{webhookId}': ({ projectId, webhookId }) => ({ url: `/projects/${projectId}/webhooks/${webhookId}`, body: { events: ['task.created'] } }),
  'DELETE /projects/{id}/webhooks/{webhookId}': ({ projectId, webhookId }) => ({ url: `/projects/${projectId}/webhooks/${webhookId}` }),
  'GET /projects/{id}/webhooks/{webhookId}/deliveries': ({ projectId, webhookId }) => ({ url: `/projects/${projectId}/webhooks/${webhookId}/deliveries` }),
  'POST /projects/{id}/webhooks/{webhookId}/test': ({ projectId, webhookId }) => ({ url: `/projects/${projectId}/webhooks/${webhookId}/test` }),
  'POST /projects/{id}/webhooks/{webhookId}/rotate-secret': ({ projectId, webhookId }) => ({ url: `/projects/${projectId}/webhooks/${webhookId}/rotate-secret` }),
  'GET /notifications': () => ({ url: '/notifications' }),
  'GET /notifications/unread-count': () => ({ url: '/notifications/unread-count' }),
  'POST /notifications/{id}/read': ({ notificationId }) => ({ url: `/notifications/${notificationId}/read` }),
  'POST /notifications/read-all': () => ({ url: '/notifications/read-all', body: {} }),
  'GET /tasks/{id}/subscription': ({ taskId }) => ({ url: `/tasks/${taskId}/subscription` }),
  'PUT /tasks/{id}/subscription': ({ taskId }) => ({ url: `/tasks/${taskId}/subscription` }),
  'DELETE /tasks/{id}/subscription': ({ taskId }) => ({ url: `/tasks/${taskId}/subscription` }),
  'GET /projects/{id}/labels': ({ projectId }) => ({ url: `/projects/${projectId}/labels` }),
  'POST /projects/{id}/labels': ({ projectId }) => ({ url: `/projects/${projectId}/labels`, body: { name: 'New label' } }),
  'GET /projects/{id}/labels/{labelId}': ({ projectId, labelId }) => ({ url: `/projects/${projectId}/labels/${labelId}` }),
  'PATCH /projects/{id}/labels/{labelId}': ({ projectId, labelId }) => ({ url: `/projects/${projectId}/labels/${labelId}`, body: { color: '#000000' } }),
  'DELETE /projects/{id}/labels/{labelId}': ({ projectId, labelId }) => ({ url: `/projects/${projectId}/labels/${labelId}` }),
  'GET /projects/{id}/views': ({ projectId }) => ({ url: `/projects/${projectId}/views` }),
  'POST /projects/{id}/views': ({ projectId }) => ({ url: `/projects/${projectId}/views`, body: { name: 'New view', layout: 'list', shared: true } }),
  'GET /projects/{id}/views/{viewId}': ({ projectId, viewId }) => ({ url: `/projects/${projectId}/views/${viewId}` }),
  'PATCH /projects/{id}/views/{viewId}': ({ projectId, viewId }) => ({ url: `/projects/${projectId}/views/${viewId}`, body: { name: 'Renamed view' } }),
  'DELETE /projects/{id}/views/{viewId}': ({ projectId, viewId }) => ({ url: `/projects/${projectId}/views/${viewId}` }),
  'GET /tasks/{id}/relations': ({ taskId }) => ({ url: `/tasks/${taskId}/relations` }),
  // No neighbour named: the end of the task's column.
  'POST /tasks/{id}/move': ({ taskId }) => ({ url: `/tasks/${taskId}/move`, body: {} }),
  'POST /tasks/{id}/relations': ({ taskId, otherTaskId }) => ({ url: `/tasks/${taskId}/relations`, body: { type: 'blocks', taskId: otherTaskId } }),
  'DELETE /tasks/{id}/relations/{relationId}': ({ taskId, relationId }) => ({ url: `/tasks/${taskId}/relations/${relationId}` }),
  'GET /projects/{id}/states': ({ projectId }) => ({ url: `/projects/${projectId}/states` }),
  'POST /projects/{id}/states': ({ projectId }) => ({ url: `/projects/${projectId}/states`, body: { name: 'New state', category: 'started' } }),
  'GET /projects/{id}/states/{stateId}': ({ projectId, stateId }) => ({ url: `/projects/${projectId}/states/${stateId}` }),
  'PATCH /projects/{id}/states/{stateId}': ({ projectId, stateId }) => ({ url: `/projects/${projectId}/states/${stateId}`, body: { color: '#000000' } }),
  'DELETE /projects/{id}/states/{stateId}': ({ projectId, stateId }) => ({ url: `/projects/${projectId}/states/${stateId}` }),
  'GET /tasks/{id}/attachments': ({ taskId }) => ({ url: `/tasks/${taskId}/attachments` }),
  'POST /tasks/{id}/attachments': ({ taskId }) => {
    const { body, contentType } = multipartBody([{ name: 'file', filename: 'new.txt', content: 'New file' }]);
    return { url: `/tasks/${taskId}/attachments`, rawBody: body, headers: { 'content-type': contentType } };
  },
  'GET /attachments/{id}': ({ attachmentId }) => ({ url: `/attachments/${attachmentId}` }),
  'DELETE /attachments/{id}': ({ attachmentId }) => ({ url: `/attachments/${attachmentId}` }),
  'GET /attachments/{id}/content': ({ attachmentId }) => ({ url: `/attachments/${attachmentId}/content` }),
  'GET /attachments/{id}/thumbnail': ({ attachmentId }) => ({ url: `/attachments/${attachmentId}/thumbnail` }),
  'GET /tasks/{id}/time-entries': ({ taskId }) => ({ url: `/tasks/${taskId}/time-entries` }),
  'POST /tasks/{id}/time-entries': ({ taskId }) => ({ url: `/tasks/${taskId}/time-entries`, body: { minutes: 30 } }),
  'GET /time-entries/{id}': ({ timeEntryId }) => ({ url: `/time-entries/${timeEntryId}` }),
  'PATCH /time-entries/{id}': ({ timeEntryId }) => ({ url: `/time-entries/${timeEntryId}`, body: { minutes: 45 } }),
  'DELETE /time-entries/{id}': ({ timeEntryId }) => ({ url: `/time-entries/${timeEntryId}` }),
  'POST /tasks/{id}/timer': ({ taskId }) => ({ url: `/tasks/${taskId}/timer` }),
  // A timer running, started with the owner's session, for the token to stop.
  'DELETE /auth/me/timer': async ({ taskId }, t) => {
    await t.request('POST', `/api/v1/tasks/${taskId}/timer`, { token: ownerToken });
    return { url: '/auth/me/timer' };
  },
  'GET /auth/me/timer': () => ({ url: '/auth/me/timer' }),
  'GET /projects/{id}/time-report': ({ projectId }) => ({ url: `/projects/${projectId}/time-report?from=2026-01-01&to=2026-12-31&groupBy=user` }),
  'GET /projects/{id}/fields': ({ projectId }) => ({ url: `/projects/${projectId}/fields` }),
  'POST /projects/{id}/fields': ({ projectId }) => ({ url: `/projects/${projectId}/fields`, body: { name: `Field ${Date.now()}-${Math.random()}`, type: 'text' } }),
  'GET /projects/{id}/fields/{fieldId}': ({ projectId, fieldId }) => ({ url: `/projects/${projectId}/fields/${fieldId}` }),
  'PATCH /projects/{id}/fields/{fieldId}': ({ projectId, fieldId }) => ({ url: `/projects/${projectId}/fields/${fieldId}`, body: { position: 0 } }),
  'DELETE /projects/{id}/fields/{fieldId}': ({ projectId, fieldId }) => ({ url: `/projects/${projectId}/fields/${fieldId}` }),
  'GET /projects/{id}/export': ({ projectId }) => ({ url: `/projects/${projectId}/export?format=csv` }),
  'GET /auth/me/export': () => ({ url: '/auth/me/export' }),
  'POST /imports': () => importCall(),
  'GET /imports/{id}': async (_world, t) => {
    const { url, rawBody, headers } = importCall();
    const queued = await t.request('POST', `/api/v1${url}`, { token: ownerToken, rawBody, headers });
    await importSettled(t, ownerToken, `/api/v1/imports/${queued.body.id}`);
    return { url: `/imports/${queued.body.id}` };
  },
};

const importCall = (): Call => ({ url: '/imports', ...csvImportRequest() });

/** The owner's session token, for the calls that set up what a route acts on. */
let ownerToken = '';

const covers = (scope: Scope, need: Need) => need !== 'session' && SCOPES.indexOf(scope) >= SCOPES.indexOf(need);

describe('personal access token scopes × every route', () => {
  let t: TestApp;
  let owner: TestUser;
  const tokens = {} as Record<Scope, string>;
  const dataDir = temporaryDataDir();

  beforeAll(async () => {
    t = await startTestApp({ dataDir: dataDir.dir });
    owner = await registerUser(t, 'Owner');
    ownerToken = owner.token;
    for (const scope of SCOPES) {
      const created = await t.request('POST', '/api/v1/auth/tokens', { token: owner.token, body: { name: scope, scopes: [scope] } });
      tokens[scope] = created.body.token;
    }
  });
  afterAll(async () => {
    await t.close();
    dataDir.remove();
  });

  async function world(): Promise<World> {
    const projectId = (await createProject(t, owner)).id;
    const taskId = (await createTask(t, owner, projectId)).id;
    const comment = await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: owner.token, body: { text: 'A comment' } });
    // Inactive, so no delivery is attempted (and no row changes) while a test compares snapshots.
    const webhook = await t.request('POST', `/api/v1/projects/${projectId}/webhooks`, { token: owner.token, body: { url: 'http://127.0.0.1:9/hook', active: false } });
    const label = await t.request('POST', `/api/v1/projects/${projectId}/labels`, { token: owner.token, body: { name: 'A label' } });
    const view = await t.request('POST', `/api/v1/projects/${projectId}/views`, { token: owner.token, body: { name: 'A view', layout: 'board', shared: true } });
    const otherTaskId = (await createTask(t, owner, projectId, { title: 'Other' })).id;
    const related = (await createTask(t, owner, projectId, { title: 'Related' })).id;
    const relation = await t.request('POST', `/api/v1/tasks/${taskId}/relations`, { token: owner.token, body: { type: 'relates_to', taskId: related } });
    const state = await t.request('POST', `/api/v1/projects/${projectId}/states`, { token: owner.token, body: { name: 'A state', category: 'started' } });
    const field = await t.request('POST', `/api/v1/projects/${projectId}/fields`, { token: owner.token, body: { name: 'A field', type: 'text' } });
    const memberUser = await registerUser(t, 'Member');
    const member = await invite(t, owner, projectId, memberUser, 'VIEWER');
    // The test app sends no email: the answer carries the link.
    const invitation = await t.request('POST', `/api/v1/projects/${projectId}/members/invite`, { token: owner.token, body: { email: `invitee-${memberUser.id}@example.com` } });
    const login = await t.request('POST', '/api/v1/auth/login', { body: { email: owner.email, password: owner.password } });
    const sessions = await t.request('GET', '/api/v1/auth/sessions', { token: login.body.access_token });
    const spare = await t.request('POST', '/api/v1/auth/tokens', { token: owner.token, body: { name: 'Spare', scopes: ['read'] } });
    const commenter = await registerUser(t, 'Commenter');
    await invite(t, owner, projectId, commenter, 'EDITOR');
    await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: commenter.token, body: { text: 'Noted' } });
    const [notification] = (await t.request('GET', '/api/v1/notifications?limit=1', { token: owner.token })).body as { id: string }[];
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } }).png().toBuffer();
    const attachment = await upload(t, owner.token, taskId, 'image.png', image);
    return {
      projectId,
      taskId,
      commentId: comment.body.id,
      webhookId: webhook.body.id,
      labelId: label.body.id,
      viewId: view.body.id,
      otherTaskId,
      relationId: relation.body.id,
      stateId: state.body.id,
      fieldId: field.body.id,
      memberId: member.id,
      memberUserId: memberUser.id,
      invitationId: invitation.body.id,
      invitationToken: String(invitation.body.acceptUrl).split('/invite/')[1]!,
      sessionId: sessions.body.find((session: { current: boolean }) => session.current).id,
      tokenId: spare.body.id,
      notificationId: notification!.id,
      attachmentId: attachment.body.id,
      timeEntryId: (await t.request('POST', `/api/v1/tasks/${taskId}/time-entries`, { token: owner.token, body: { minutes: 15 } })).body.id,
    };
  }

  let shared: Promise<World> | undefined;
  const sharedWorld = () => (shared ??= world());

  it('names every protected route of the OpenAPI document, and only those', async () => {
    const documented = (await discoverRestRoutes(t)).filter((route) => route.isProtected).map((route) => `${route.method} ${route.path}`);
    expect(documented.sort()).toEqual(Object.keys(NEEDS).sort());
  });

  const cases = (Object.entries(NEEDS) as [Route, Need][]).flatMap(([route, need]) => SCOPES.map((scope) => ({ route, need, scope })));
  for (const { route, need, scope } of cases) {
    const allowed = covers(scope, need);
    it(`${route} with the ${scope} scope → ${allowed ? 'allowed' : `403 (needs ${need})`}`, async () => {
      const method = route.split(' ')[0]!;
      // An allowed write may change its world, so it gets a fresh one. A read, or a refused call,
      // changes nothing (the snapshots prove it of the refused ones), so those share one world:
      // building ~20 rows per case was most of this file's time.
      const changes = allowed && method !== 'GET';
      const { url, body, rawBody, headers } = await CALLS[route](changes ? await world() : await sharedWorld(), t);
      const before = allowed ? undefined : await databaseSnapshot(t);
      const response = await t.request(method, `/api/v1${url}`, { token: tokens[scope], ...(body !== undefined ? { body } : {}), ...(rawBody ? { rawBody } : {}), ...(headers ? { headers } : {}) });
      if (allowed) {
        expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
        return;
      }
      expectErrorBody(response, 403, { reason: need === 'session' ? 'SESSION_REQUIRED' : 'INSUFFICIENT_SCOPE' });
      expect(await databaseSnapshot(t)).toEqual(before);
    });
  }

  it('applies the same needs to the lists over native tRPC', async () => {
    const { projectId, taskId, webhookId } = await world();
    const read = async (procedure: string, input: unknown) =>
      (await t.request('GET', `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { token: tokens.admin })).status;
    expect(await read('projects.list', {})).toBe(200);
    expect(await read('tasks.listForProject', { projectId })).toBe(200);
    expect(await read('comments.list', { id: taskId })).toBe(200);
    expect(await read('webhooks.deliveries', { id: projectId, webhookId })).toBe(200);
    expect(await read('auth.tokens.list', {})).toBe(403);
    expect(await read('auth.sessions.list', {})).toBe(403);
  });
});

describe('the scopes table (transport/trpc/token-scopes.ts)', () => {
  it("is keyed by exactly the router's procedures: an extra or a missing one does not compile", () => {
    // Checked by tsc (`npx tsc --noEmit` compiles test/): each marked line is a type error, and the
    // directive itself fails the compile if it ever stops being one.
    // @ts-expect-error 'tasks.archive' is no procedure of the router
    const extra = scopesTable({ ...TOKEN_NEEDS, 'tasks.archive': 'write' });
    const { 'tasks.create': _dropped, ...withoutOne } = TOKEN_NEEDS;
    // @ts-expect-error tasks.create has no need
    const missing = scopesTable(withoutOne);
    expect(Object.keys(extra)).toContain('tasks.archive');
    expect(Object.keys(missing)).not.toContain('tasks.create');
    expect(Object.keys(TOKEN_NEEDS).sort()).toEqual(procedureMetas(appRouter).map(([path]) => path).sort());
  });

  it('calls `public` exactly the procedures documented without a token', () => {
    const documentedPublic = procedureMetas(appRouter).flatMap(([path, meta]) => (meta?.openapi?.protect === false ? [path] : []));
    const tablePublic = Object.entries(TOKEN_NEEDS).flatMap(([path, need]) => (need === 'public' ? [path] : []));
    expect(tablePublic.sort()).toEqual(documentedPublic.sort());
  });
});
