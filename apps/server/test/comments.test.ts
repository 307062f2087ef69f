import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { temporaryDataDir, upload } from './support/attachments';
import { describePermissions } from './support/permissions';

const nextLink = (headers: Record<string, unknown>) => /^<([^>]+)>; rel="next"$/.exec(String(headers.link ?? ''))?.[1];

describe('comments: list, get, edit, delete', () => {
  let t: TestApp;
  let owner: TestUser;
  let admin: TestUser;
  let author: TestUser;
  let otherEditor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    admin = await registerUser(t, 'Admin');
    author = await registerUser(t, 'Author Ann');
    otherEditor = await registerUser(t, 'Other Editor');
    viewer = await registerUser(t, 'Viewer');
    outsider = await registerUser(t, 'Outsider');
  });
  afterAll(() => t.close());

  /** A project of the test's own with the whole cast as members, and a task in it. */
  async function cast() {
    const projectId = (await createProject(t, owner)).id;
    await invite(t, owner, projectId, admin, 'ADMIN');
    await invite(t, owner, projectId, author, 'EDITOR');
    await invite(t, owner, projectId, otherEditor, 'EDITOR');
    await invite(t, owner, projectId, viewer, 'VIEWER');
    const taskId = (await createTask(t, owner, projectId)).id;
    return { projectId, taskId };
  }

  const comment = async (taskId: string, user: TestUser, text: string) => {
    const response = await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: user.token, body: { text } });
    expect(response.status).toBe(201);
    return response.body as { id: string; text: string; authorId: string; authorName: string; createdAt: string; updatedAt: string };
  };
  const path = (taskId: string, commentId: string) => `/api/v1/tasks/${taskId}/comments/${commentId}`;

  it("creates comments carrying the author's name, and lists them oldest first, paged", async () => {
    const { taskId } = await cast();
    const created = [];
    for (let index = 0; index < 7; index += 1) created.push(await comment(taskId, index % 2 ? author : otherEditor, `comment ${index}`));
    expect(created[1]).toMatchObject({ authorId: author.id, authorName: 'Author Ann', text: 'comment 1' });

    const seen: { id: string; text: string; authorName: string }[] = [];
    let url: string | undefined = `/api/v1/tasks/${taskId}/comments?limit=3`;
    while (url) {
      const response = await t.request('GET', url, { token: viewer.token });
      expect(response.status).toBe(200);
      seen.push(...response.body);
      url = nextLink(response.headers);
    }
    expect(seen.map((item) => item.id)).toEqual(created.map((item) => item.id));
    expect(seen.map((item) => item.text)).toEqual(created.map((item) => item.text));
    expect(seen[1]).toEqual(created[1]);

    const page = await t.request('GET', `/api/trpc/comments.list?input=${encodeURIComponent(JSON.stringify({ id: taskId, limit: 5 }))}`, {
      token: viewer.token,
    });
    expect(page.body.result.data.items).toHaveLength(5);
    const rest = await t.request('GET', `/api/v1/tasks/${taskId}/comments?cursor=${page.body.result.data.nextCursor}`, { token: viewer.token });
    expect(rest.body.map((item: { id: string }) => item.id)).toEqual(created.slice(5).map((item) => item.id));
  });

  it('refuses bad cursors and limits (400) and hides comments from non-members (404)', async () => {
    const { taskId } = await cast();
    const forged = Buffer.from(JSON.stringify(['yesterday', 'x'])).toString('base64url');
    for (const query of [`?cursor=${forged}`, '?cursor=%%%', '?limit=0', '?limit=9999']) {
      expect((await t.request('GET', `/api/v1/tasks/${taskId}/comments${query}`, { token: owner.token })).status, query).toBe(400);
    }
    expect((await t.request('GET', `/api/v1/tasks/${taskId}/comments`, { token: outsider.token })).status).toBe(404);
  });

  it('lets only the author edit a comment; updatedAt and the ETag move, createdAt stays', async () => {
    const { taskId } = await cast();
    const mine = await comment(taskId, author, 'first draft');
    const read = await t.request('GET', path(taskId, mine.id), { token: viewer.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(mine);
    expect(read.headers.etag).toMatch(/^"[0-9a-z]+"$/);

    for (const user of [admin, owner, otherEditor]) {
      const refused = await t.request('PATCH', path(taskId, mine.id), { token: user.token, body: { text: 'hijacked' } });
      expect(refused.status).toBe(403);
      expect(refused.body.reason).toBe('NOT_AUTHOR');
    }
    const edited = await t.request('PATCH', path(taskId, mine.id), { token: author.token, body: { text: '  final text ' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: mine.id, text: 'final text', authorName: 'Author Ann', createdAt: mine.createdAt });
    expect(Date.parse(edited.body.updatedAt)).toBeGreaterThan(Date.parse(mine.updatedAt));
    expect(edited.headers.etag).not.toBe(read.headers.etag);

    expect((await t.request('PATCH', path(taskId, mine.id), { token: author.token, body: { text: '' } })).status).toBe(400);
    expect((await t.request('PATCH', path(taskId, mine.id), { token: author.token, body: { text: 'x', authorId: owner.id } })).status).toBe(400);
    expect((await t.request('PATCH', path(taskId, 'nope'), { token: author.token, body: { text: 'x' } })).status).toBe(404);
  });

  it('lets the author, ADMIN and owner delete; other members get 403', async () => {
    const { taskId } = await cast();
    const [byAuthor, byAdmin, byOwner] = [await comment(taskId, author, 'a'), await comment(taskId, author, 'b'), await comment(taskId, author, 'c')];
    for (const user of [otherEditor, viewer]) {
      expect((await t.request('DELETE', path(taskId, byAdmin.id), { token: user.token })).status).toBe(403);
    }
    expect((await t.request('DELETE', path(taskId, byAdmin.id), { token: outsider.token })).status).toBe(404);
    for (const [user, target] of [[author, byAuthor], [admin, byAdmin], [owner, byOwner]] as const) {
      const response = await t.request('DELETE', path(taskId, target.id), { token: user.token });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ message: 'Comment deleted' });
      expect((await t.request('GET', path(taskId, target.id), { token: owner.token })).status).toBe(404);
    }
  });

  it('lets a member demoted to VIEWER still edit their own comment, but not comment anew', async () => {
    const { projectId, taskId } = await cast();
    const own = await comment(taskId, otherEditor, 'before demotion');
    const members = (await t.request('GET', `/api/v1/projects/${projectId}/members`, { token: owner.token })).body as { id: string; userId: string }[];
    const membership = members.find((member) => member.userId === otherEditor.id)!;
    const demoted = await t.request('PATCH', `/api/v1/projects/${projectId}/members/${membership.id}/role`, { token: owner.token, body: { role: 'VIEWER' } });
    expect(demoted.status).toBe(200);
    expect((await t.request('PATCH', path(taskId, own.id), { token: otherEditor.token, body: { text: 'still mine' } })).status).toBe(200);
    expect((await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: otherEditor.token, body: { text: 'new' } })).status).toBe(403);
  });
});

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('comments: create', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('comments on a task (201); authorId is the caller', async () => {
    const owner = await registerUser(t, 'Ada Lovelace');
    const colleague = await registerUser(t, 'Grace Hopper');
    const projectId = (await createProject(t, owner, 'Engine')).id;
    await invite(t, owner, projectId, colleague, 'EDITOR');
    const taskId = (await createTask(t, colleague, projectId, { title: 'Punch cards' })).id;
    const response = await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: colleague.token, body: { text: 'Loops!' } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID),
      text: 'Loops!',
      authorId: colleague.id,
      authorName: colleague.name,
      taskId,
      mentionIds: [],
      attachments: [],
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
    });
  });
});

describe('comments: mentions', () => {
  let t: TestApp;
  let author: TestUser;
  let mentioned: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    author = await registerUser(t, 'Author');
    mentioned = await registerUser(t, 'Mentioned');
    stranger = await registerUser(t, 'Stranger');
  });
  afterAll(() => t.close());

  it('keeps mentionIds of members on create and edit, returns them on every read, and refuses anyone else', async () => {
    const projectId = (await createProject(t, author)).id;
    await invite(t, author, projectId, mentioned, 'VIEWER');
    const taskId = (await createTask(t, author, projectId)).id;
    const created = await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: author.token, body: { text: '@Mentioned hi', mentionIds: [mentioned.id.toUpperCase()] } });
    expect(created.status).toBe(201);
    expect(created.body.mentionIds).toEqual([mentioned.id]);
    const path = `/api/v1/tasks/${taskId}/comments/${created.body.id}`;
    expect((await t.request('GET', path, { token: mentioned.token })).body.mentionIds).toEqual([mentioned.id]);
    expect((await t.request('GET', `/api/v1/tasks/${taskId}/comments`, { token: mentioned.token })).body[0].mentionIds).toEqual([mentioned.id]);
    const cleared = await t.request('PATCH', path, { token: author.token, body: { text: 'hi', mentionIds: [] } });
    expect(cleared.body.mentionIds).toEqual([]);

    for (const mentionIds of [[stranger.id], [mentioned.id, stranger.id]]) {
      const refused = await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: author.token, body: { text: 'hi', mentionIds } });
      expect({ status: refused.status, reason: refused.body.reason }).toEqual({ status: 400, reason: 'MENTION_NOT_MEMBER' });
      expect(refused.body.message).toContain('mentionIds');
    }
    const repeated = await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: author.token, body: { text: 'hi', mentionIds: [mentioned.id, mentioned.id] } });
    expect(repeated.status).toBe(400);
    expect(repeated.body.issues[0].path).toEqual(['mentionIds']);
    expect((await t.request('GET', `/api/v1/tasks/${taskId}/comments`, { token: author.token })).body).toHaveLength(1);
  });

  it("subscribes the author and the mentioned to the task's notifications", async () => {
    const projectId = (await createProject(t, author)).id;
    await invite(t, author, projectId, mentioned, 'EDITOR');
    const taskId = (await createTask(t, mentioned, projectId)).id;
    await t.request('DELETE', `/api/v1/tasks/${taskId}/subscription`, { token: author.token });
    expect((await t.request('GET', `/api/v1/tasks/${taskId}/subscription`, { token: author.token })).body).toEqual({ subscribed: false });
    const other = await registerUser(t, 'Other');
    await invite(t, author, projectId, other, 'EDITOR');
    expect((await t.request('GET', `/api/v1/tasks/${taskId}/subscription`, { token: other.token })).body).toEqual({ subscribed: false });
    await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: other.token, body: { text: 'me too' } });
    expect((await t.request('GET', `/api/v1/tasks/${taskId}/subscription`, { token: other.token })).body).toEqual({ subscribed: true });
    await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: other.token, body: { text: '@Author', mentionIds: [author.id] } });
    expect((await t.request('GET', `/api/v1/tasks/${taskId}/subscription`, { token: author.token })).body).toEqual({ subscribed: true });
  });
});

describe('comments: attachments', () => {
  let t: TestApp;
  let dataDir: { dir: string; remove: () => void };
  let author: TestUser;
  let editor: TestUser;

  beforeAll(async () => {
    dataDir = temporaryDataDir();
    t = await startTestApp({ dataDir: dataDir.dir });
    author = await registerUser(t, 'Author');
    editor = await registerUser(t, 'Editor');
  });
  afterAll(async () => {
    await t.close();
    dataDir.remove();
  });

  const uploaded = async (taskId: string, name: string) => {
    const response = await upload(t, author.token, taskId, name, `the bytes of ${name}`);
    expect(response.status).toBe(201);
    return response.body as { id: string; commentId: string | null };
  };
  const attachmentIdsOf = (comment: { attachments: { id: string }[] }) => comment.attachments.map((attachment) => attachment.id);
  const commentIdOf = async (attachmentId: string) => (await t.request('GET', `/api/v1/attachments/${attachmentId}`, { token: author.token })).body.commentId as string | null;

  it('names attachments of the task on create and edit, returns them oldest first on every read, and sets their commentId', async () => {
    const projectId = (await createProject(t, author)).id;
    await invite(t, author, projectId, editor, 'EDITOR');
    const taskId = (await createTask(t, author, projectId)).id;
    const [a, b, c] = [await uploaded(taskId, 'a.txt'), await uploaded(taskId, 'b.txt'), await uploaded(taskId, 'c.txt')];
    const comments = `/api/v1/tasks/${taskId}/comments`;

    const created = await t.request('POST', comments, { token: author.token, body: { text: 'see these', attachmentIds: [b!.id, a!.id.toUpperCase()] } });
    expect(created.status).toBe(201);
    expect(attachmentIdsOf(created.body)).toEqual([a!.id, b!.id]);
    expect(created.body.attachments[0]).toMatchObject({ id: a!.id, taskId, commentId: created.body.id, filename: 'a.txt', downloadUrl: expect.stringMatching(/^\/api\/v1\/attachments\/.+\/content\?expires=/) });
    expect(await commentIdOf(a!.id)).toBe(created.body.id);
    expect(await commentIdOf(c!.id)).toBeNull();
    // the same object as the attachment's own read (its signed link aside, which carries its own expiry)
    const own = (await t.request('GET', `/api/v1/attachments/${b!.id}`, { token: author.token })).body;
    expect({ ...created.body.attachments[1], downloadUrl: undefined }).toEqual({ ...own, downloadUrl: undefined });
    const path = `${comments}/${created.body.id}`;
    expect(attachmentIdsOf((await t.request('GET', path, { token: editor.token })).body)).toEqual([a!.id, b!.id]);
    const plain = await t.request('POST', comments, { token: editor.token, body: { text: 'no files' } });
    expect(plain.body.attachments).toEqual([]);
    const listed = (await t.request('GET', comments, { token: editor.token })).body as { id: string; attachments: { id: string; commentId: string }[] }[];
    expect(listed.map(attachmentIdsOf)).toEqual([[a!.id, b!.id], []]);
    expect(listed[0]!.attachments.every((attachment) => attachment.commentId === created.body.id)).toBe(true);

    // an edit's list replaces the set; one left out stays on the task, named by no comment
    const edited = await t.request('PATCH', path, { token: author.token, body: { text: 'only these', attachmentIds: [c!.id, b!.id] } });
    expect(edited.status).toBe(200);
    expect(attachmentIdsOf(edited.body)).toEqual([b!.id, c!.id]);
    expect([await commentIdOf(a!.id), await commentIdOf(b!.id), await commentIdOf(c!.id)]).toEqual([null, created.body.id, created.body.id]);
    // without attachmentIds an edit keeps them
    expect(attachmentIdsOf((await t.request('PATCH', path, { token: author.token, body: { text: 'reworded' } })).body)).toEqual([b!.id, c!.id]);
    const history = (await t.request('GET', `/api/v1/tasks/${taskId}/activity`, { token: author.token })).body as { type: string; changes?: Record<string, { old: unknown; new: unknown }> }[];
    expect(history.find((entry) => entry.type === 'comment.updated' && entry.changes?.attachmentIds)?.changes?.attachmentIds).toEqual({ old: [a!.id, b!.id], new: [b!.id, c!.id] });

    // an attachment deleted leaves the comment; a comment deleted leaves its attachments on the task
    expect((await t.request('DELETE', `/api/v1/attachments/${c!.id}`, { token: author.token })).status).toBe(200);
    expect(attachmentIdsOf((await t.request('GET', path, { token: author.token })).body)).toEqual([b!.id]);
    expect((await t.request('DELETE', path, { token: author.token })).status).toBe(200);
    expect(await commentIdOf(b!.id)).toBeNull();
    expect(((await t.request('GET', `/api/v1/tasks/${taskId}/attachments`, { token: author.token })).body as { id: string }[]).map((x) => x.id)).toEqual([a!.id, b!.id]);
    const emptied = await t.request('POST', comments, { token: author.token, body: { text: 'all of them', attachmentIds: [a!.id, b!.id] } });
    expect(attachmentIdsOf((await t.request('PATCH', `${comments}/${emptied.body.id}`, { token: author.token, body: { text: 'none', attachmentIds: [] } })).body)).toEqual([]);
    expect([await commentIdOf(a!.id), await commentIdOf(b!.id)]).toEqual([null, null]);
  });

  it('refuses an attachment of another task, another project or none, with 400 ATTACHMENT_NOT_IN_TASK naming attachmentIds, and writes nothing', async () => {
    const projectId = (await createProject(t, author)).id;
    const taskId = (await createTask(t, author, projectId)).id;
    const otherTaskId = (await createTask(t, author, projectId)).id;
    const foreignTaskId = (await createTask(t, author, (await createProject(t, author)).id)).id;
    const own = await uploaded(taskId, 'own.txt');
    const sibling = await uploaded(otherTaskId, 'sibling.txt');
    const foreign = await uploaded(foreignTaskId, 'foreign.txt');
    const comments = `/api/v1/tasks/${taskId}/comments`;
    const kept = await t.request('POST', comments, { token: author.token, body: { text: 'kept', attachmentIds: [own!.id] } });

    for (const attachmentIds of [[sibling!.id], [own!.id, foreign!.id], ['0193a5b4-9d2e-7f10-8a3b-5c6d7e8f9a0b'], ['not-an-id']]) {
      const refused = await t.request('POST', comments, { token: author.token, body: { text: 'hi', attachmentIds } });
      expect({ status: refused.status, reason: refused.body.reason }).toEqual({ status: 400, reason: 'ATTACHMENT_NOT_IN_TASK' });
      expect(refused.body.message).toContain('attachmentIds');
      const refusedEdit = await t.request('PATCH', `${comments}/${kept.body.id}`, { token: author.token, body: { text: 'changed', attachmentIds } });
      expect({ status: refusedEdit.status, reason: refusedEdit.body.reason }).toEqual({ status: 400, reason: 'ATTACHMENT_NOT_IN_TASK' });
    }
    const repeated = await t.request('POST', comments, { token: author.token, body: { text: 'hi', attachmentIds: [own!.id, own!.id] } });
    expect(repeated.status).toBe(400);
    expect(repeated.body.issues[0].path).toEqual(['attachmentIds']);
    const listed = (await t.request('GET', comments, { token: author.token })).body as { text: string; attachments: { id: string }[] }[];
    expect(listed.map((comment) => [comment.text, attachmentIdsOf(comment)])).toEqual([['kept', [own!.id]]]);
    expect([await commentIdOf(sibling!.id), await commentIdOf(foreign!.id)]).toEqual([null, null]);
  });

  it('reads a page of comments with their attachments in as many statements as without', async () => {
    const projectId = (await createProject(t, author)).id;
    const bare = (await createTask(t, author, projectId)).id;
    const rich = (await createTask(t, author, projectId)).id;
    for (let index = 0; index < 10; index += 1) {
      await t.request('POST', `/api/v1/tasks/${bare}/comments`, { token: author.token, body: { text: `c${index}` } });
      const files = [await uploaded(rich, `${index}-1.txt`), await uploaded(rich, `${index}-2.txt`)];
      await t.request('POST', `/api/v1/tasks/${rich}/comments`, { token: author.token, body: { text: `c${index}`, attachmentIds: files.map((file) => file!.id) } });
    }
    let statements = 0;
    t.database.onQuerySettled(() => {
      statements += 1;
    });
    // The fewest of three tries (a background statement may land inside one request's window).
    const statementsFor = async (taskId: string) => {
      await t.request('GET', `/api/v1/tasks/${taskId}/comments`, { token: author.token });
      let fewest = Number.POSITIVE_INFINITY;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        statements = 0;
        const response = await t.request('GET', `/api/v1/tasks/${taskId}/comments`, { token: author.token });
        expect(response.body).toHaveLength(10);
        fewest = Math.min(fewest, statements);
      }
      return fewest;
    };
    expect(await statementsFor(rich)).toBe(await statementsFor(bare));
  });
});

describePermissions(['POST /tasks/{id}/comments']);
