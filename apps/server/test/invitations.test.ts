import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, followPages, queryRows } from './support/checks';
import { capturedLog, createProject, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';
import { openStream } from './support/sse-client';
import { startSmtpServer, testMailConfig, type TestSmtpServer } from './support/smtp-server';

let emailCounter = 0;
const newEmail = () => `invitee${(emailCounter += 1)}-${Math.random().toString(36).slice(2, 8)}@example.com`;
/** The token of an invitation link in a text. */
const tokenIn = (text: string) => /http:\/\/tasklane\.test\/invite\/([A-Za-z0-9_-]+)/.exec(text)?.[1];

const inviteEmail = (t: TestApp, by: TestUser, projectId: string, email: string, role?: string) =>
  t.request('POST', `/api/v1/projects/${projectId}/members/invite`, { token: by.token, body: { email, ...(role ? { role } : {}) } });
const accept = (t: TestApp, by: TestUser, token: string) => t.request('POST', `/api/v1/invitations/${token}/accept`, { token: by.token });
const listInvitations = (t: TestApp, by: TestUser, projectId: string, query = '') => t.request('GET', `/api/v1/projects/${projectId}/invitations${query}`, { token: by.token });
const revoke = (t: TestApp, by: TestUser, projectId: string, invitationId: string) => t.request('DELETE', `/api/v1/projects/${projectId}/invitations/${invitationId}`, { token: by.token });
const activityTypes = async (t: TestApp, by: TestUser, projectId: string) =>
  ((await t.request('GET', `/api/v1/projects/${projectId}/activity`, { token: by.token })).body as { type: string }[]).map((entry) => entry.type);

describe('invitations without email: the link is in the answer', () => {
  let t: TestApp;
  let owner: TestUser;
  const log = capturedLog();

  beforeAll(async () => {
    t = await startTestApp({ logLevel: 'info' }, { logStream: log.stream });
    owner = await registerUser(t, 'Owner Ada');
  });
  afterAll(() => t.close());

  it('invites an unknown email: 201, a pending invitation with its link, Location, history', async () => {
    const projectId = (await createProject(t, owner, 'Invites')).id;
    const email = newEmail();
    const response = await inviteEmail(t, owner, projectId, email.toUpperCase(), 'EDITOR');
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.any(String),
      email,
      role: 'EDITOR',
      projectId,
      status: 'pending',
      expiresAt: expect.any(String),
      createdAt: expect.any(String),
      acceptUrl: expect.stringMatching(/^http:\/\/tasklane\.test\/invite\/[A-Za-z0-9_-]{43}$/),
    });
    expect(response.headers.location).toBe(`/api/v1/projects/${projectId}/invitations/${response.body.id}`);
    const days = (Date.parse(response.body.expiresAt) - Date.parse(response.body.createdAt)) / 86_400_000;
    expect(days).toBeCloseTo(7, 2);
    // Only the token's digest is stored.
    const [row] = await queryRows<{ token_digest: string }>(t, `select token_digest from invitations where id = '${response.body.id}'`);
    expect(row!.token_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(response.body.acceptUrl).not.toContain(row!.token_digest);

    const listed = await listInvitations(t, owner, projectId);
    expect(listed.status).toBe(200);
    const { acceptUrl: _link, ...invitation } = response.body;
    expect(listed.body).toEqual([invitation]);
    expect(await activityTypes(t, owner, projectId)).toContain('invitation.created');
  });

  it('a registered email is added as a member, exactly as before', async () => {
    const projectId = (await createProject(t, owner)).id;
    const user = await registerUser(t, 'Registered Rita');
    const response = await inviteEmail(t, owner, projectId, user.email, 'EDITOR');
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: expect.any(String), userId: user.id, projectId, role: 'EDITOR', name: 'Registered Rita', email: user.email });
    expect(response.headers.location).toBe(`/api/v1/projects/${projectId}/members/${response.body.id}`);
    expect((await listInvitations(t, owner, projectId)).body).toEqual([]);
  });

  it('accepting joins any signed-in user with the role, once; the invitation goes', async () => {
    const projectId = (await createProject(t, owner)).id;
    const invited = await inviteEmail(t, owner, projectId, newEmail(), 'EDITOR');
    const token = tokenIn(invited.body.acceptUrl)!;
    // Someone who signed up with another email, through the link.
    const newcomer = await registerUser(t, 'Newcomer Nia');
    const accepted = await accept(t, newcomer, token);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({
      joined: true,
      member: { id: expect.any(String), userId: newcomer.id, projectId, role: 'EDITOR', name: 'Newcomer Nia', email: newcomer.email },
    });
    const project = await t.request('GET', `/api/v1/projects/${projectId}`, { token: newcomer.token });
    expect(project.status).toBe(200);
    expect((await listInvitations(t, owner, projectId)).body).toEqual([]);
    const types = await activityTypes(t, owner, projectId);
    expect(types.slice(0, 2)).toEqual(['member.added', 'invitation.accepted']);

    // Twice: the link worked once.
    const other = await registerUser(t);
    expectErrorBody(await accept(t, other, token), 404, { reason: 'INVITATION_INVALID' });
    expectErrorBody(await accept(t, newcomer, token), 404, { reason: 'INVITATION_INVALID' });
    expect((await t.request('GET', `/api/v1/projects/${projectId}`, { token: other.token })).status).toBe(404);
  });

  it('a member holding a link keeps their role; the invitation stays', async () => {
    const projectId = (await createProject(t, owner)).id;
    const viewer = await registerUser(t, 'Viewer Vint');
    await inviteEmail(t, owner, projectId, viewer.email, 'VIEWER');
    const invited = await inviteEmail(t, owner, projectId, newEmail(), 'ADMIN');
    const token = tokenIn(invited.body.acceptUrl)!;
    const response = await accept(t, viewer, token);
    expect(response.status).toBe(200);
    expect(response.body.joined).toBe(false);
    expect(response.body.member.role).toBe('VIEWER');
    expect((await listInvitations(t, owner, projectId)).body).toHaveLength(1);
  });

  it('inviting the same email again renews the invitation: same id, new link, the old one dead', async () => {
    const projectId = (await createProject(t, owner)).id;
    const email = newEmail();
    const first = await inviteEmail(t, owner, projectId, email, 'VIEWER');
    const second = await inviteEmail(t, owner, projectId, email, 'EDITOR');
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    expect(second.body.role).toBe('EDITOR');
    expect(second.body.acceptUrl).not.toBe(first.body.acceptUrl);
    expect((await listInvitations(t, owner, projectId)).body).toHaveLength(1);
    const user = await registerUser(t);
    expectErrorBody(await accept(t, user, tokenIn(first.body.acceptUrl)!), 404, { reason: 'INVITATION_INVALID' });
    const joined = await accept(t, user, tokenIn(second.body.acceptUrl)!);
    expect(joined.status).toBe(200);
    expect(joined.body.member.role).toBe('EDITOR');
  });

  it('an expired invitation is not listed and its link does not work; inviting again renews it', async () => {
    const projectId = (await createProject(t, owner)).id;
    const email = newEmail();
    const invited = await inviteEmail(t, owner, projectId, email);
    // Aged in the database: the expiry is the database's clock's.
    await queryRows(t, `update invitations set expires_at = now() - interval '1 second' where id = '${invited.body.id}'`);
    expect((await listInvitations(t, owner, projectId)).body).toEqual([]);
    const user = await registerUser(t);
    expectErrorBody(await accept(t, user, tokenIn(invited.body.acceptUrl)!), 404, { reason: 'INVITATION_INVALID', message: expect.stringContaining('expired') });
    const renewed = await inviteEmail(t, owner, projectId, email);
    expect(renewed.body.id).toBe(invited.body.id);
    expect((await accept(t, user, tokenIn(renewed.body.acceptUrl)!)).status).toBe(200);
  });

  it('revoking ends the link; a second revoke is a 404', async () => {
    const projectId = (await createProject(t, owner)).id;
    const invited = await inviteEmail(t, owner, projectId, newEmail());
    const revoked = await revoke(t, owner, projectId, invited.body.id);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ message: 'Invitation revoked' });
    expect((await listInvitations(t, owner, projectId)).body).toEqual([]);
    expect(await activityTypes(t, owner, projectId)).toContain('invitation.deleted');
    const user = await registerUser(t);
    expectErrorBody(await accept(t, user, tokenIn(invited.body.acceptUrl)!), 404, { reason: 'INVITATION_INVALID' });
    expectErrorBody(await revoke(t, owner, projectId, invited.body.id), 404);
    expectErrorBody(await revoke(t, owner, projectId, 'not-an-id'), 404);
  });

  it('refuses bad tokens alike', async () => {
    const user = await registerUser(t);
    for (const token of ['x', 'A'.repeat(43), 'a'.repeat(200), '%2E%2E%2Fnope']) {
      expectErrorBody(await accept(t, user, token), 404, { reason: 'INVITATION_INVALID' });
    }
    expect((await t.request('POST', `/api/v1/invitations/${'A'.repeat(43)}/accept`)).status).toBe(401);
  });

  it('ADMIN and owner manage invitations; lower roles 403, outsiders 404', async () => {
    const projectId = (await createProject(t, owner)).id;
    const roles: Record<string, TestUser> = {};
    for (const role of ['ADMIN', 'EDITOR', 'VIEWER']) {
      roles[role] = await registerUser(t, role);
      expect((await inviteEmail(t, owner, projectId, roles[role]!.email, role)).status).toBe(201);
    }
    const outsider = await registerUser(t, 'Outsider');
    const invited = await inviteEmail(t, roles.ADMIN!, projectId, newEmail());
    expect(invited.status).toBe(201);
    expect((await listInvitations(t, roles.ADMIN!, projectId)).status).toBe(200);
    for (const role of ['EDITOR', 'VIEWER']) {
      expectErrorBody(await inviteEmail(t, roles[role]!, projectId, newEmail()), 403);
      expectErrorBody(await listInvitations(t, roles[role]!, projectId), 403);
      expectErrorBody(await revoke(t, roles[role]!, projectId, invited.body.id), 403);
    }
    expectErrorBody(await inviteEmail(t, outsider, projectId, newEmail()), 404);
    expectErrorBody(await listInvitations(t, outsider, projectId), 404);
    expectErrorBody(await revoke(t, outsider, projectId, invited.body.id), 404);
    // Another project's invitation is not this project's.
    const otherProject = (await createProject(t, owner)).id;
    expectErrorBody(await revoke(t, owner, otherProject, invited.body.id), 404);
    expect((await revoke(t, roles.ADMIN!, projectId, invited.body.id)).status).toBe(200);
  });

  it("shows an invitation's email in the history and live events only to those who manage members", async () => {
    const projectId = (await createProject(t, owner)).id;
    const admin = await registerUser(t, 'History admin');
    const viewer = await registerUser(t, 'History viewer');
    expect((await inviteEmail(t, owner, projectId, admin.email, 'ADMIN')).status).toBe(201);
    expect((await inviteEmail(t, owner, projectId, viewer.email, 'VIEWER')).status).toBe(201);
    const baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const streams = await Promise.all([admin, viewer].map((by) => openStream(`${baseUrl}/api/v1/projects/${projectId}/events`, { authorization: `Bearer ${by.token}` })));
    try {
      const email = newEmail();
      expect((await inviteEmail(t, owner, projectId, email)).status).toBe(201);
      const created = async (by: TestUser) => {
        const entries = (await t.request('GET', `/api/v1/projects/${projectId}/activity`, { token: by.token })).body as { type: string; resource: Record<string, unknown> }[];
        return entries.find((entry) => entry.type === 'invitation.created')!.resource;
      };
      expect((await created(owner)).email).toBe(email);
      expect((await created(admin)).email).toBe(email);
      const hidden = await created(viewer);
      expect(hidden).not.toHaveProperty('email');
      expect(hidden).toMatchObject({ role: 'VIEWER', projectId, status: 'pending' });
      const streamed = async (index: number) => {
        const stream = streams[index]!;
        await stream.waitFor(() => stream.events.some((event) => event.event === 'invitation.created'));
        return JSON.parse(stream.events.find((event) => event.event === 'invitation.created')!.data) as { resource: Record<string, unknown> };
      };
      expect((await streamed(0)).resource.email).toBe(email);
      expect((await streamed(1)).resource).not.toHaveProperty('email');
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('never writes a link’s token to the log', async () => {
    const projectId = (await createProject(t, owner)).id;
    const invited = await inviteEmail(t, owner, projectId, newEmail());
    const token = tokenIn(invited.body.acceptUrl)!;
    await t.request('GET', `/invite/${token}`, { headers: { accept: 'text/html' } });
    expect((await accept(t, await registerUser(t), token)).status).toBe(200);
    const logged = log.text();
    expect(logged).toContain('/api/v1/invitations/[redacted]/accept');
    expect(logged).toContain('/invite/[redacted]');
    expect(logged).not.toContain(token);
  });

  it('pages invitations by cursor without skipping or repeating', async () => {
    const projectId = (await createProject(t, owner)).id;
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.push((await inviteEmail(t, owner, projectId, newEmail())).body.id);
    const pages = await followPages<{ id: string }>(t, `/api/v1/projects/${projectId}/invitations?limit=2`, owner.token);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat().map((invitation) => invitation.id)).toEqual([...ids].sort());
  });
});

describe('invitations with email: the link is mailed, not answered', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let owner: TestUser;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ mail: testMailConfig(smtp.url) });
    owner = await registerUser(t, 'Owner Ada');
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const mailTo = async (email: string, count = 1) => {
    await expect.poll(() => smtp.received.filter((mail) => mail.to === email).length, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(count);
    return smtp.received.filter((mail) => mail.to === email)[count - 1]!;
  };

  it("mails the invitation in the inviter's language", async () => {
    const inviter = await registerUser(t, 'Aoi');
    expect((await t.request('PATCH', '/api/v1/auth/me', { token: inviter.token, body: { locale: 'ja' } })).status).toBe(200);
    const projectId = (await createProject(t, inviter, '北極星')).id;
    const email = newEmail();
    expect((await inviteEmail(t, inviter, projectId, email, 'VIEWER')).status).toBe(201);
    const mail = await mailTo(email);
    expect(mail.subject).toBe('Aoi さんから Tasklane の 北極星 への招待が届いています');
    expect(mail.text).toContain('Aoi さんが Tasklane のプロジェクト「北極星」に閲覧者としてあなたを招待しました。');
    expect(mail.html).toContain(`href="http://tasklane.test/invite/${tokenIn(mail.text)}"`);
    expect(mail.text + mail.html).not.toMatch(/\{\{|invitation\.|invited you/);
  });

  it('mails the link; it joins the project', async () => {
    const projectId = (await createProject(t, owner, 'Apollo')).id;
    const email = newEmail();
    const invited = await inviteEmail(t, owner, projectId, email, 'EDITOR');
    expect(invited.status).toBe(201);
    expect(invited.body.acceptUrl).toBeUndefined();
    const mail = await mailTo(email);
    expect(mail.subject).toBe('Owner Ada invited you to Apollo on Tasklane');
    expect(mail.text).toContain('as EDITOR');
    const token = tokenIn(mail.text)!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mail.html).toContain(`href="http://tasklane.test/invite/${token}"`);
    // The outbox held no usable link, and it is empty once the message is sent.
    await expect.poll(async () => (await queryRows(t, 'select * from mail_outbox')).length, { timeout: 10_000 }).toBe(0);

    const user = await registerUser(t, 'Invitee Ida');
    const accepted = await accept(t, user, token);
    expect(accepted.status).toBe(200);
    expect(accepted.body.member).toMatchObject({ userId: user.id, projectId, role: 'EDITOR' });
    expectErrorBody(await accept(t, user, token), 404, { reason: 'INVITATION_INVALID' });
  });

  it('a renewal mails a new link; the first no longer works', async () => {
    const projectId = (await createProject(t, owner, 'Gemini')).id;
    const email = newEmail();
    await inviteEmail(t, owner, projectId, email);
    const first = tokenIn((await mailTo(email, 1)).text)!;
    await inviteEmail(t, owner, projectId, email);
    const second = tokenIn((await mailTo(email, 2)).text)!;
    expect(second).not.toBe(first);
    const user = await registerUser(t);
    expectErrorBody(await accept(t, user, first), 404, { reason: 'INVITATION_INVALID' });
    expect((await accept(t, user, second)).status).toBe(200);
  });
});

describePermissions(['GET /projects/{id}/invitations', 'DELETE /projects/{id}/invitations/{invitationId}', 'POST /invitations/{token}/accept']);
