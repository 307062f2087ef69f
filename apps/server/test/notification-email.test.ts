import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailConfig } from '../src/platform/config';
import { expectErrorBody, issueAt, queryRows } from './support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { startSecondInstance } from './support/second-instance';
import { type ReceivedMail, startSmtpServer, testMailConfig, type TestSmtpServer } from './support/smtp-server';

const DIGEST_HOUR = 8;

const mailConfig = (smtpUrl: string, extra: Partial<MailConfig> = {}): MailConfig => testMailConfig(smtpUrl, { pollMs: 200, digestHour: DIGEST_HOUR, ...extra });

const SETTINGS = '/api/v1/auth/me/notification-settings';
/** A header's value as sent (mailparser restructures the List-* headers). */
const header = (mail: ReceivedMail, name: string) => {
  const line = mail.headerLines.find((candidate) => candidate.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
};
/** The URL in a mail's `List-Unsubscribe: <…>` header. */
const unsubscribeUrlOf = (mail: ReceivedMail) => /<([^>]+)>/.exec(header(mail, 'list-unsubscribe') ?? '')?.[1] ?? '';
/** Path and query of the unsubscribe URL, for requests to the app under test. */
const localPath = (url: string) => url.replace('http://tasklane.test', '');
const form = { 'content-type': 'application/x-www-form-urlencoded' };

/** The messages `email` has received whose subject matches. */
const mailsTo = (smtp: TestSmtpServer, email: string, subject?: RegExp) =>
  smtp.received.filter((mail) => mail.to === email && (!subject || subject.test(mail.subject)));

async function waitForMail(smtp: TestSmtpServer, email: string, subject: RegExp): Promise<ReceivedMail> {
  await expect.poll(() => mailsTo(smtp, email, subject).length, { timeout: 20_000, interval: 50 }).toBeGreaterThan(0);
  return mailsTo(smtp, email, subject)[0]!;
}

/** An owner and a member (EDITOR) of one project, each with a fresh account. */
async function team(t: TestApp) {
  const owner = await registerUser(t, 'Olive Owner');
  const member = await registerUser(t, 'Mel Member');
  const project = await createProject(t, owner, 'Launch');
  await invite(t, owner, project.id, member, 'EDITOR');
  return { owner, member, project };
}

const setEmail = (t: TestApp, user: TestUser, email: string) => t.request('PATCH', SETTINGS, { token: user.token, body: { email } });

/**
 * Something that mails `control` (an assignment), then waits for that mail: the mailer works in
 * notification order, so by then it has considered every notification made before.
 */
async function afterMailerPass(t: TestApp, smtp: TestSmtpServer, owner: TestUser, projectId: string, control: TestUser) {
  const title = `Control ${Math.random().toString(36).slice(2)}`;
  await createTask(t, owner, projectId, { title, assigneeId: control.id });
  await waitForMail(smtp, control.email, new RegExp(title));
  // Once the outbox is empty, the control was mailed exactly once (whatever instances ran).
  await expect.poll(async () => (await queryRows(t, 'select id from mail_outbox')).length, { timeout: 10_000 }).toBe(0);
  expect(mailsTo(smtp, control.email, new RegExp(title))).toHaveLength(1);
}

describe('notification email: instant', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ mail: mailConfig(smtp.url) });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it("speaks the recipient's language, read when the email is sent: German for a German account, dates the German way", async () => {
    const { owner, member, project } = await team(t);
    expect((await t.request('PATCH', '/api/v1/auth/me', { token: member.token, body: { locale: 'de' } })).status).toBe(200);
    await createTask(t, owner, project.id, { title: 'Startseite', assigneeId: member.id });
    const mail = await waitForMail(smtp, member.email, /zugewiesen/);
    expect(mail.subject).toBe('[Launch] Olive Owner hat Ihnen „Startseite“ zugewiesen');
    expect(mail.text.startsWith('Hallo Mel Member,\n\nOlive Owner hat Ihnen „Startseite“ zugewiesen (Projekt Launch).')).toBe(true);
    expect(mail.text).toContain('Diese E-Mails abbestellen: http://tasklane.test/');
    expect(mail.html).toContain('In Tasklane öffnen</a>');
    expect(mail.html).not.toMatch(/\{\{|notification\.|Open it|Hello/);
    // The owner, who chose nothing, still reads English.
    await createTask(t, member, project.id, { title: 'Back to you', assigneeId: owner.id });
    expect((await waitForMail(smtp, owner.email, /Back to you/)).subject).toBe('[Launch] Mel Member assigned you “Back to you”');
  });

  it('task.assigned: the assignee gets one email, plain text and HTML, with the task link and one-click unsubscribe; never the actor', async () => {
    const { owner, member, project } = await team(t);
    const task = await createTask(t, owner, project.id, { title: 'Write the launch post', assigneeId: member.id });
    const mail = await waitForMail(smtp, member.email, /assigned you/);
    const link = `http://tasklane.test/projects/${project.id}/tasks/${task.id}`;
    expect(mail.from).toBe('"Tasklane" <tasklane@tasklane.test>');
    expect(mail.subject).toBe('[Launch] Olive Owner assigned you “Write the launch post”');
    expect(mail.text).toContain('Hello Mel Member,');
    expect(mail.text).toContain(link);
    expect(mail.html).toContain(`href="${link}"`);
    expect(unsubscribeUrlOf(mail)).toMatch(/^http:\/\/tasklane\.test\/api\/v1\/notification-settings\/unsubscribe\?token=[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(mail.text).toContain(unsubscribeUrlOf(mail));
    await afterMailerPass(t, smtp, member, project.id, owner);
    expect(mailsTo(smtp, member.email, /assigned you/)).toHaveLength(1);
    expect(mailsTo(smtp, owner.email, /Write the launch post/)).toEqual([]);
    await expect.poll(async () => (await queryRows(t, 'select * from mail_outbox')).length, { timeout: 10_000 }).toBe(0);
  });

  it('member.added, comment.mentioned, comment.created, task.status_changed and task.due_soon each mail the people they notify', async () => {
    const { owner, member, project } = await team(t);
    await waitForMail(smtp, member.email, /added you to the project Launch/);
    const task = await createTask(t, member, project.id, { title: 'Pick a date' });
    const link = `http://tasklane.test/projects/${project.id}/tasks/${task.id}`;

    const mention = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'What do you think, Mel?', mentionIds: [member.id] } });
    expect(mention.status).toBe(201);
    const mentioned = await waitForMail(smtp, member.email, /mentioned you on “Pick a date”/);
    expect(mentioned.text).toContain('> What do you think, Mel?');
    expect(mentioned.text).toContain(link);
    expect(mentioned.html).toContain('What do you think, Mel?');

    // The owner commented, so now watches the task: the member's reply and status change reach them.
    await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: member.token, body: { text: 'Friday works' } });
    const commented = await waitForMail(smtp, owner.email, /Mel Member commented on “Pick a date”/);
    expect(commented.text).toContain('> Friday works');
    await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: member.token, body: { status: 'DONE' } });
    const changed = await waitForMail(smtp, owner.email, /changed the status of “Pick a date”/);
    expect(changed.html).toContain(`href="${link}"`);
    // The reminder job (run now rather than at its next poll): the assignee hears the task is due.
    const due = await createTask(t, owner, project.id, { title: 'Book the room', assigneeId: member.id, dueDate: new Date(Date.now() + 3_600_000).toISOString() });
    await t.app.dueReminders.runOnce();
    const reminder = await waitForMail(smtp, member.email, /“Book the room” is due /);
    expect(reminder.text).toContain(`http://tasklane.test/projects/${project.id}/tasks/${due.id}`);
    for (const mail of [mentioned, commented, changed, reminder]) expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(mailsTo(smtp, member.email, /commented on|changed the status/)).toEqual([]);
  });

  it('mails nothing about a project the recipient has left, even for a notification made before', async () => {
    const { owner, member, project } = await team(t);
    const witness = await registerUser(t, 'Wendy Witness');
    await invite(t, owner, project.id, witness, 'EDITOR');
    await waitForMail(smtp, witness.email, /added you/);
    // The member leaves; a notification written for them before (as a change racing the removal would) stays unmailed.
    const memberships = await t.request('GET', `/api/v1/projects/${project.id}/members`, { token: owner.token });
    const membership = (memberships.body as { id: string; userId: string }[]).find((entry) => entry.userId === member.id)!;
    expect((await t.request('DELETE', `/api/v1/projects/${project.id}/members/${membership.id}`, { token: owner.token })).status).toBe(200);
    await t.database.db.execute(
      `insert into notifications (id, user_id, kind, project_id, actor_id) values (gen_random_uuid(), '${member.id}', 'member.added', '${project.id}', '${owner.id}')` as never,
    );
    const before = mailsTo(smtp, member.email).length;
    await afterMailerPass(t, smtp, owner, project.id, witness);
    expect(mailsTo(smtp, member.email)).toHaveLength(before);
  });
});

describe('notification settings', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ mail: mailConfig(smtp.url) });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('defaults to instant, changes to off and daily, and validates the value', async () => {
    const user = await registerUser(t);
    expect((await t.request('GET', SETTINGS, { token: user.token })).body).toEqual({ email: 'instant' });
    for (const email of ['off', 'daily', 'instant']) {
      const changed = await setEmail(t, user, email);
      expect(changed.status).toBe(200);
      expect(changed.body).toEqual({ email });
      expect((await t.request('GET', SETTINGS, { token: user.token })).body).toEqual({ email });
    }
    expectErrorBody(await setEmail(t, user, 'weekly'), 400, { issues: [issueAt(['email'])] });
    expectErrorBody(await t.request('PATCH', SETTINGS, { token: user.token, body: { email: 'off', sms: true } }), 400, { issues: [issueAt(['sms'], 'unrecognized_keys')] });
    expectErrorBody(await t.request('GET', SETTINGS), 401);
  });

  it('a personal access token reads the setting but cannot change it', async () => {
    const user = await registerUser(t);
    const created = await t.request('POST', '/api/v1/auth/tokens', { token: user.token, body: { name: 'script', scopes: ['admin'] } });
    const pat = created.body.token as string;
    expect((await t.request('GET', SETTINGS, { token: pat })).status).toBe(200);
    expectErrorBody(await t.request('PATCH', SETTINGS, { token: pat, body: { email: 'off' } }), 403, { reason: 'SESSION_REQUIRED' });
  });

  it('off: no email at all', async () => {
    const { owner, member, project } = await team(t);
    const witness = await registerUser(t, 'Wendy Witness');
    await invite(t, owner, project.id, witness, 'EDITOR');
    await waitForMail(smtp, member.email, /added you/);
    expect((await setEmail(t, member, 'off')).status).toBe(200);
    await createTask(t, owner, project.id, { title: 'Quiet task', assigneeId: member.id });
    await afterMailerPass(t, smtp, owner, project.id, witness);
    expect(mailsTo(smtp, member.email, /Quiet task/)).toEqual([]);
    // Still notified in the app: only email is off.
    expect((await queryRows(t, `select * from notifications where user_id = '${member.id}' and kind = 'task.assigned'`)).length).toBe(1);
  });
});

describe('notification email: daily digest', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let clock = new Date();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ mail: mailConfig(smtp.url, { now: () => clock }) });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('sends one digest at the digest hour with what came since, and none again that day, from either of two instances', async () => {
    clock = new Date();
    const { owner, member, project } = await team(t);
    const witness = await registerUser(t, 'Wendy Witness');
    await invite(t, owner, project.id, witness, 'EDITOR');
    await waitForMail(smtp, member.email, /added you/);
    expect((await setEmail(t, member, 'daily')).status).toBe(200);
    const first = await createTask(t, owner, project.id, { title: 'First for the digest', assigneeId: member.id });
    const second = await createTask(t, owner, project.id, { title: 'Second for the digest', assigneeId: member.id });
    await afterMailerPass(t, smtp, owner, project.id, witness);
    expect(mailsTo(smtp, member.email, /digest/)).toEqual([]);

    // A second instance on the same database: the digest is still sent once.
    const other = await startSecondInstance(t, { mail: mailConfig(smtp.url, { now: () => clock }) });
    try {
      // Two mailers now race for each new notification: still one email.
      await afterMailerPass(t, smtp, owner, project.id, witness);
      // The next digest hour after now, and half a minute.
      let slot = Date.UTC(clock.getUTCFullYear(), clock.getUTCMonth(), clock.getUTCDate(), DIGEST_HOUR);
      if (slot <= clock.getTime()) slot += 86_400_000;
      clock = new Date(slot + 30_000);
      const digest = await waitForMail(smtp, member.email, /^Tasklane: 2 notifications for /);
      for (const [task, title] of [
        [first, 'First for the digest'],
        [second, 'Second for the digest'],
      ] as const) {
        expect(digest.text).toContain(`assigned you “${title}”`);
        expect(digest.text).toContain(`http://tasklane.test/projects/${project.id}/tasks/${task.id}`);
        expect(digest.html).toContain(`href="http://tasklane.test/projects/${project.id}/tasks/${task.id}"`);
      }
      expect(header(digest, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
      // Later that day, and after a restart of the other instance: nothing more.
      clock = new Date(clock.getTime() + 3_600_000);
      await other.close();
      await afterMailerPass(t, smtp, owner, project.id, witness);
      await createTask(t, owner, project.id, { title: 'For tomorrow', assigneeId: member.id });
      await afterMailerPass(t, smtp, owner, project.id, witness);
      expect(mailsTo(smtp, member.email, /^Tasklane: /)).toHaveLength(1);
      expect(mailsTo(smtp, member.email, /For tomorrow/)).toEqual([]);
      // The next day's digest has only what is new.
      clock = new Date(clock.getTime() + 86_400_000);
      const next = await waitForMail(smtp, member.email, /^Tasklane: 1 notification for /);
      expect(next.text).toContain('For tomorrow');
      expect(next.text).not.toContain('First for the digest');
    } finally {
      await other.close().catch(() => {});
    }
  });
});

describe('notification email when the SMTP server refuses the first attempt', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer({ refuseFirst: 1 });
    t = await startTestApp({ mail: mailConfig(smtp.url) });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('keeps the email after the 451 and delivers it, once, on a later attempt', async () => {
    const owner = await registerUser(t, 'Olive Owner');
    const member = await registerUser(t, 'Mel Member');
    const project = await createProject(t, owner, 'Launch');
    await invite(t, owner, project.id, member, 'EDITOR');
    const mail = await waitForMail(smtp, member.email, /added you to the project Launch/);
    expect(smtp.attempts).toBeGreaterThanOrEqual(2);
    expect(mail.html).toContain(`href="http://tasklane.test/projects/${project.id}"`);
    await expect.poll(async () => (await queryRows(t, 'select * from mail_outbox')).length, { timeout: 10_000 }).toBe(0);
    expect(mailsTo(smtp, member.email)).toHaveLength(1);
  });
});

describe('one-click unsubscribe (RFC 8058)', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ mail: mailConfig(smtp.url) });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('a GET of the link changes nothing; the one-click POST, without logging in, turns email off', async () => {
    const { member } = await team(t);
    const url = localPath(unsubscribeUrlOf(await waitForMail(smtp, member.email, /added you/)));

    const opened = await t.request('GET', url);
    expect(opened.status).toBe(200);
    expect(opened.body).toEqual({ message: expect.stringContaining('List-Unsubscribe=One-Click') });
    const page = await t.request('GET', url, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<form method="post"');
    expect(page.body).toContain('name="List-Unsubscribe" value="One-Click"');
    expect(page.body).toContain('<html lang="en">');
    // The page speaks the browser's language; a broken link's page too.
    const french = await t.request('GET', url, { headers: { accept: 'text/html', 'accept-language': 'fr-CA, fr;q=0.9, en;q=0.5' } });
    expect(french.body).toContain('<html lang="fr">');
    expect(french.body).toContain('Ne plus recevoir les e-mails de notification de Tasklane ?');
    expect(french.body).toContain('<button type="submit">Se désabonner</button>');
    const broken = await t.request('GET', `${url}x`, { headers: { accept: 'text/html', 'accept-language': 'ja' } });
    expect(broken.status).toBe(400);
    expect(broken.body).toContain('<html lang="ja">');
    expect(broken.body).toContain('このリンクは無効です');
    expect((await t.request('GET', SETTINGS, { token: member.token })).body).toEqual({ email: 'instant' });

    const done = await t.request('POST', url, { rawBody: 'List-Unsubscribe=One-Click', headers: form });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ email: 'off' });
    expect((await t.request('GET', SETTINGS, { token: member.token })).body).toEqual({ email: 'off' });
    // Twice is harmless; a browser posting the page's form gets a page.
    const again = await t.request('POST', url, { rawBody: 'List-Unsubscribe=One-Click', headers: { ...form, accept: 'text/html' } });
    expect(again.status).toBe(200);
    expect(again.body).toContain('You are unsubscribed');
  });

  it('refuses a tampered, foreign or missing token and a wrong body, with a 400 or 415 and never a 500', async () => {
    const { member } = await team(t);
    const url = localPath(unsubscribeUrlOf(await waitForMail(smtp, member.email, /added you/)));
    const token = new URL(url, 'http://x').searchParams.get('token')!;
    const [head, payload, signature] = token.split('.') as [string, string, string];
    const other = await registerUser(t);
    const forged = Buffer.from(JSON.stringify({ sub: other.id, aud: 'tasklane:email-unsubscribe' })).toString('base64url');
    const path = '/api/v1/notification-settings/unsubscribe';
    const post = (query: string, body = 'List-Unsubscribe=One-Click', headers: Record<string, string> = form) => t.request('POST', `${path}${query}`, { rawBody: body, headers });

    for (const bad of [`${head}.${payload}.${signature.slice(0, -3)}abc`, `${head}.${forged}.${signature}`, other.token, 'not-a-token']) {
      expectErrorBody(await post(`?token=${encodeURIComponent(bad)}`), 400, { reason: 'INVALID_UNSUBSCRIBE_TOKEN' });
      expectErrorBody(await t.request('GET', `${path}?token=${encodeURIComponent(bad)}`), 400, { reason: 'INVALID_UNSUBSCRIBE_TOKEN' });
    }
    expectErrorBody(await post(''), 400, { issues: [issueAt(['token'])] });
    expectErrorBody(await post(`?token=${token}`, 'List-Unsubscribe=Yes'), 400, { issues: [issueAt(['List-Unsubscribe'])] });
    expectErrorBody(await post(`?token=${token}`, 'List-Unsubscribe=One-Click', { 'content-type': 'text/plain' }), 415);
    expectErrorBody(await t.request('POST', `${path}?token=${token}`), 400, { issues: [issueAt(['List-Unsubscribe'])] });
    expect((await t.request('GET', SETTINGS, { token: member.token })).body).toEqual({ email: 'instant' });
    expect((await t.request('GET', SETTINGS, { token: other.token })).body).toEqual({ email: 'instant' });
    // The same body as JSON is taken too.
    const json = await t.request('POST', `${path}?token=${token}`, { body: { 'List-Unsubscribe': 'One-Click' } });
    expect(json.body).toEqual({ email: 'off' });
  });
});

describe('without SMTP_URL', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('keeps the setting but queues no email for any notification', async () => {
    const { owner, member, project } = await team(t);
    expect((await setEmail(t, member, 'daily')).body).toEqual({ email: 'daily' });
    await createTask(t, owner, project.id, { title: 'Unmailed', assigneeId: member.id });
    await t.app.close();
    expect((await queryRows(t, 'select * from notifications')).length).toBeGreaterThan(0);
    expect(await queryRows(t, 'select * from mail_outbox')).toEqual([]);
    expect(await queryRows(t, 'select * from notification_mails')).toEqual([]);
  });
});

describe('what a queued or forwarded email can still do', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    // The first message is refused (451) and retried after 1.5 s: time for its recipient to leave.
    smtp = await startSmtpServer({ refuseFirst: 1 });
    t = await startTestApp({ mail: mailConfig(smtp.url, { retryBaseMs: 1500, retryMaxDelayMs: 1500 }) });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('an email waiting for a retry is dropped once its recipient has left the project', async () => {
    const owner = await registerUser(t, 'Olive Owner');
    const member = await registerUser(t, 'Mel Member');
    const witness = await registerUser(t, 'Wendy Witness');
    const project = await createProject(t, owner, 'Secret plans');
    await invite(t, owner, project.id, member, 'EDITOR');
    await expect.poll(() => smtp.attempts, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(1);
    const memberships = (await t.request('GET', `/api/v1/projects/${project.id}/members`, { token: owner.token })).body as { id: string; userId: string }[];
    const membership = memberships.find((entry) => entry.userId === member.id)!;
    expect((await t.request('DELETE', `/api/v1/projects/${project.id}/members/${membership.id}`, { token: owner.token })).status).toBe(200);
    await invite(t, owner, project.id, witness, 'EDITOR');
    await waitForMail(smtp, witness.email, /added you to the project Secret plans/);
    await expect.poll(async () => (await queryRows(t, 'select id from mail_outbox')).length, { timeout: 20_000 }).toBe(0);
    expect(mailsTo(smtp, member.email)).toHaveLength(0);
  });

  it("a link from before its owner turned email back on cannot turn it off again; a newer email's link can", async () => {
    const owner = await registerUser(t, 'Olive Owner');
    const member = await registerUser(t, 'Mel Member');
    const first = await createProject(t, owner, 'First');
    await invite(t, owner, first.id, member, 'EDITOR');
    const oldUrl = localPath(unsubscribeUrlOf(await waitForMail(smtp, member.email, /added you to the project First/)));
    expect((await t.request('POST', oldUrl, { rawBody: 'List-Unsubscribe=One-Click', headers: form })).body).toEqual({ email: 'off' });
    // The setting changes in a later second than the link's issue (its `iat` counts whole seconds).
    const issuedAt = (JSON.parse(Buffer.from(new URL(oldUrl, 'http://x').searchParams.get('token')!.split('.')[1]!, 'base64url').toString()) as { iat: number }).iat;
    await expect.poll(() => Date.now(), { timeout: 5_000, interval: 100 }).toBeGreaterThanOrEqual((issuedAt + 1) * 1000);
    expect((await setEmail(t, member, 'instant')).status).toBe(200);

    const replayed = await t.request('POST', oldUrl, { rawBody: 'List-Unsubscribe=One-Click', headers: form });
    expectErrorBody(replayed, 400, { reason: 'INVALID_UNSUBSCRIBE_TOKEN' });
    expect((await t.request('GET', SETTINGS, { token: member.token })).body).toEqual({ email: 'instant' });

    const second = await createProject(t, owner, 'Second');
    await invite(t, owner, second.id, member, 'EDITOR');
    const newUrl = localPath(unsubscribeUrlOf(await waitForMail(smtp, member.email, /added you to the project Second/)));
    expect((await t.request('POST', newUrl, { rawBody: 'List-Unsubscribe=One-Click', headers: form })).body).toEqual({ email: 'off' });
    expect((await t.request('GET', SETTINGS, { token: member.token })).body).toEqual({ email: 'off' });
  });
});
