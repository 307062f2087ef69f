import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDataDir, upload } from './support/attachments';
import { expectErrorBody } from './support/checks';
import { castProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';

/** A request's answer as text, whatever its type (the harness parses JSON for us otherwise). */
async function download(t: TestApp, url: string, token?: string) {
  const response = await t.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.statusCode, headers: response.headers, text: response.body };
}

describe('exports', () => {
  let t: TestApp;
  let owner: TestUser;
  let admin: TestUser;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;
  const dataDir = temporaryDataDir();

  beforeAll(async () => {
    t = await startTestApp({ dataDir: dataDir.dir });
    owner = await registerUser(t, 'Olive Owner');
    admin = await registerUser(t, 'Ada Admin');
    editor = await registerUser(t, 'Eddie Editor');
    viewer = await registerUser(t, 'Vera Viewer');
    outsider = await registerUser(t, 'Oscar Outsider');
  });
  afterAll(async () => {
    await t.close();
    dataDir.remove();
  });

  const api = async (user: TestUser, method: string, url: string, body?: unknown) => {
    const response = await t.request(method, `/api/v1${url}`, { token: user.token, ...(body !== undefined ? { body } : {}) });
    if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };

  /** A project with everything a project holds: states, labels, fields, members, subtasks, relations, comments, time, a file. */
  async function richProject() {
    const { projectId } = await castProject(t, { owner, ADMIN: admin, EDITOR: editor, VIEWER: viewer }, 'Export me');
    const qa = await api(owner, 'POST', `/projects/${projectId}/states`, { name: 'In QA', category: 'started' });
    const bug = await api(owner, 'POST', `/projects/${projectId}/labels`, { name: 'bug', color: '#d73a4a' });
    const ui = await api(owner, 'POST', `/projects/${projectId}/labels`, { name: 'ui, web', color: '#2563eb' });
    const notes = await api(owner, 'POST', `/projects/${projectId}/fields`, { name: 'Notes', type: 'text' });
    const points = await api(owner, 'POST', `/projects/${projectId}/fields`, { name: 'Points', type: 'number' });
    const size = await api(owner, 'POST', `/projects/${projectId}/fields`, { name: 'Size', type: 'select', options: [{ name: 'S' }, { name: 'L' }] });
    const areas = await api(owner, 'POST', `/projects/${projectId}/fields`, { name: 'Areas', type: 'multi_select', options: [{ name: 'API' }, { name: 'Web' }] });
    const reviewer = await api(owner, 'POST', `/projects/${projectId}/fields`, { name: 'Reviewer', type: 'user' });
    const done = await api(owner, 'POST', `/projects/${projectId}/fields`, { name: 'Signed off', type: 'checkbox' });

    const parent = await api(owner, 'POST', '/tasks', {
      projectId,
      title: 'Launch, "the" site',
      description: 'Line one\nline two, with a comma and "quotes"',
      priority: 'HIGH',
      status: qa.key,
      startDate: '2026-12-01T00:00:00.000Z',
      dueDate: '2026-12-05T00:00:00.000Z',
      recurrence: 'FREQ=WEEKLY;BYDAY=FR',
      assigneeId: editor.id,
      labelIds: [bug.id, ui.id],
      fields: {
        [notes.id]: '+1 for shipping',
        [points.id]: -3,
        [size.id]: size.options[1].id,
        [areas.id]: [areas.options[0].id, areas.options[1].id],
        [reviewer.id]: admin.id,
        [done.id]: true,
      },
    });
    const subtask = await api(editor, 'POST', '/tasks', { projectId, title: '=HYPERLINK("http://evil.example","click")', parentId: parent.id, fields: { [notes.id]: '@SUM(A1)' } });
    const third = await api(owner, 'POST', '/tasks', { projectId, title: '-2+3', description: '\tindented' });
    await api(owner, 'POST', `/tasks/${third.id}/move`, { beforeId: subtask.id });
    const relation = await api(owner, 'POST', `/tasks/${parent.id}/relations`, { type: 'blocks', taskId: third.id });
    const ownerComment = await api(owner, 'POST', `/tasks/${parent.id}/comments`, { text: 'Owner says hi' });
    const editorComment = await api(editor, 'POST', `/tasks/${parent.id}/comments`, { text: 'Editor replies' });
    const entry = await api(editor, 'POST', `/tasks/${subtask.id}/time-entries`, { minutes: 45, note: 'Pairing' });
    const attached = await upload(t, editor.token, parent.id, 'notes.txt', 'Meeting notes');
    expect(attached.status).toBe(201);
    return { projectId, qa, bug, ui, fields: { notes, points, size, areas, reviewer, done }, parent, subtask, third, relation, ownerComment, editorComment, entry, attachment: attached.body };
  }

  it('exports the whole project as JSON, every part as the API shows it, to ADMINs and the owner', async () => {
    const p = await richProject();
    const project = await api(owner, 'GET', `/projects/${p.projectId}`);
    for (const caller of [owner, admin]) {
      const response = await download(t, `/api/v1/projects/${p.projectId}/export?format=json`, caller.token);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['content-disposition']).toBe(`attachment; filename="${project.key}.json"`);
      // The header object first: an importer recognises the file from its first bytes.
      expect(response.text.startsWith('{"format":"tasklane","version":1,"kind":"project"')).toBe(true);
      const file = JSON.parse(response.text);
      expect(file).toMatchObject({ format: 'tasklane', version: 1, kind: 'project', exportedAt: expect.any(String) });
      expect(file.project).toMatchObject({ id: p.projectId, key: project.key, name: 'Export me', ownerId: owner.id });
      expect(file.states).toEqual(await api(caller, 'GET', `/projects/${p.projectId}/states`));
      expect(file.states.map((state: { name: string }) => state.name)).toContain('In QA');
      expect(file.labels).toEqual(await api(caller, 'GET', `/projects/${p.projectId}/labels`));
      expect(file.fields).toEqual(await api(caller, 'GET', `/projects/${p.projectId}/fields`));
      const members = await api(caller, 'GET', `/projects/${p.projectId}/members`);
      expect(file.members).toEqual(members);
      expect(file.members.map((member: { email: string; name: string; role: string }) => [member.name, member.email, member.role]).sort()).toEqual(
        [
          [owner.name, owner.email, 'ADMIN'],
          [admin.name, admin.email, 'ADMIN'],
          [editor.name, editor.email, 'EDITOR'],
          [viewer.name, viewer.email, 'VIEWER'],
        ].sort(),
      );

      // Every task as the API gives it (status, priority, dates, assignee, labels, fields, recurrence, parent, position, key …).
      const listed = await api(caller, 'GET', `/tasks/project/${p.projectId}?limit=500`);
      expect(file.tasks).toHaveLength(3);
      for (const task of listed) {
        const exported = file.tasks.find((candidate: { id: string }) => candidate.id === task.id);
        const { comments, relations, timeEntries, attachments, ...rest } = exported;
        expect(rest).toEqual(task);
        const apiComments = await api(caller, 'GET', `/tasks/${task.id}/comments`);
        expect(comments).toEqual(apiComments.map(({ attachments: _files, ...comment }: Record<string, unknown>) => comment).map(({ taskId: _task, ...comment }: Record<string, unknown>) => comment));
        expect(timeEntries.map((entry: { id: string }) => entry.id)).toEqual((await api(caller, 'GET', `/tasks/${task.id}/time-entries`)).map((entry: { id: string }) => entry.id).reverse());
        expect(attachments.map((file: { id: string }) => file.id)).toEqual((await api(caller, 'GET', `/tasks/${task.id}/attachments`)).map((file: { id: string }) => file.id));
        expect(relations.map((relation: { id: string }) => relation.id)).toEqual(
          (await api(caller, 'GET', `/tasks/${task.id}/relations`)).filter((relation: { direction: string }) => relation.direction === 'outgoing').map((relation: { id: string }) => relation.id),
        );
      }
      const parent = file.tasks.find((task: { id: string }) => task.id === p.parent.id);
      expect(parent).toMatchObject({
        title: 'Launch, "the" site',
        status: p.qa.key,
        priority: 'HIGH',
        startDate: '2026-12-01T00:00:00.000Z',
        dueDate: '2026-12-05T00:00:00.000Z',
        recurrence: 'FREQ=WEEKLY;BYDAY=FR',
        assigneeId: editor.id,
        labelIds: [p.bug.id, p.ui.id].sort(),
        fields: { [p.fields.points.id]: -3, [p.fields.done.id]: true, [p.fields.reviewer.id]: admin.id },
        parentId: null,
        subtaskCount: 1,
      });
      expect(parent.comments).toEqual([
        expect.objectContaining({ id: p.ownerComment.id, text: 'Owner says hi', authorId: owner.id, authorName: owner.name }),
        expect.objectContaining({ id: p.editorComment.id, text: 'Editor replies', authorId: editor.id, authorName: editor.name }),
      ]);
      expect(parent.relations).toEqual([expect.objectContaining({ id: p.relation.id, type: 'blocks', relatedTaskId: p.third.id, relatedProjectId: p.projectId })]);
      // The file's metadata, never its bytes.
      expect(parent.attachments).toEqual([
        { id: p.attachment.id, commentId: null, filename: 'notes.txt', contentType: p.attachment.contentType, size: 13, sha256: p.attachment.sha256, uploaderId: editor.id, createdAt: p.attachment.createdAt },
      ]);
      expect(response.text).not.toContain('Meeting notes');
      const subtask = file.tasks.find((task: { id: string }) => task.id === p.subtask.id);
      expect(subtask).toMatchObject({ parentId: p.parent.id, key: p.subtask.key });
      expect(subtask.timeEntries).toEqual([expect.objectContaining({ id: p.entry.id, userId: editor.id, minutes: 45, note: 'Pairing', date: p.entry.date })]);
      // The board's order is kept: the moved task sorts before the subtask, made before it.
      expect(file.tasks.find((task: { id: string }) => task.id === p.third.id).position < subtask.position).toBe(true);
    }
  });

  it('exports the tasks as RFC 4180 CSV that a CSV parser reads back, formulas neutralised', async () => {
    const p = await richProject();
    const project = await api(owner, 'GET', `/projects/${p.projectId}`);
    const response = await download(t, `/api/v1/projects/${p.projectId}/export?format=csv`, admin.token);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${project.key}.csv"`);
    expect(response.text.endsWith('\r\n')).toBe(true);
    // Every record ends with CRLF (a line break inside a quoted cell is the cell's own).
    const rows: string[][] = parse(response.text, { record_delimiter: '\r\n' });
    expect(rows[0]).toEqual(['key', 'title', 'description', 'status', 'priority', 'start', 'due', 'assignee', 'labels', 'created', 'updated', 'Notes', 'Points', 'Size', 'Areas', 'Reviewer', 'Signed off']);
    expect(rows).toHaveLength(4);
    const byKey = new Map(rows.slice(1).map((row) => [row[0], Object.fromEntries(rows[0]!.map((name, index) => [name, row[index]]))]));
    const tasks = await api(owner, 'GET', `/tasks/project/${p.projectId}?limit=500`);
    for (const task of tasks) {
      const row = byKey.get(task.key)!;
      expect(row).toMatchObject({ key: task.key, priority: task.priority, created: task.createdAt, updated: task.updatedAt, start: task.startDate ?? '', due: task.dueDate ?? '' });
    }
    expect(byKey.get(p.parent.key)).toEqual({
      key: p.parent.key,
      title: 'Launch, "the" site',
      description: 'Line one\nline two, with a comma and "quotes"',
      status: 'In QA',
      priority: 'HIGH',
      start: '2026-12-01T00:00:00.000Z',
      due: '2026-12-05T00:00:00.000Z',
      assignee: editor.email,
      labels: 'bug, ui, web',
      created: expect.any(String),
      updated: expect.any(String),
      Notes: "'+1 for shipping",
      Points: "'-3",
      Size: 'L',
      Areas: 'API, Web',
      Reviewer: admin.email,
      'Signed off': 'true',
    });
    // OWASP: a cell that starts with = + - @, a tab or a carriage return is text, not a formula.
    expect(byKey.get(p.subtask.key)).toMatchObject({ title: '\'=HYPERLINK("http://evil.example","click")', Notes: "'@SUM(A1)", status: 'To do', assignee: '', labels: '' });
    expect(byKey.get(p.third.key)).toMatchObject({ title: "'-2+3", description: "'\tindented" });
    for (const row of rows.slice(1)) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('refuses an unknown format with the documented 400, and the callers the table refuses', async () => {
    const { projectId } = await castProject(t, { owner, ADMIN: admin, EDITOR: editor, VIEWER: viewer }, 'Guarded');
    expectErrorBody(await t.request('GET', `/api/v1/projects/${projectId}/export?format=xlsx`, { token: owner.token }), 400, { issues: [expect.objectContaining({ path: ['format'] })] });
    expectErrorBody(await t.request('GET', `/api/v1/projects/${projectId}/export?format=json&format=csv`, { token: owner.token }), 400, { issues: [expect.objectContaining({ path: ['format'] })] });
    expectErrorBody(await t.request('GET', `/api/v1/projects/${projectId}/export?fromat=csv`, { token: owner.token }), 400, { issues: [expect.objectContaining({ path: ['fromat'] })] });
    expect((await download(t, `/api/v1/projects/${projectId}/export`, owner.token)).headers['content-type']).toMatch(/^application\/json/);
    expectErrorBody(await t.request('GET', `/api/v1/projects/${projectId}/export?format=json`, { token: editor.token }), 403, { message: 'Your role (EDITOR) may not export the project' });
    expectErrorBody(await t.request('GET', `/api/v1/projects/${projectId}/export?format=csv`, { token: viewer.token }), 403, { message: 'Your role (VIEWER) may not export the project' });
    expectErrorBody(await t.request('GET', `/api/v1/projects/${projectId}/export?format=json`, { token: outsider.token }), 404, { message: 'Project not found' });
    expectErrorBody(await t.request('GET', '/api/v1/projects/not-an-id/export?format=json', { token: owner.token }), 404, { message: 'Project not found' });
    const anonymous = await t.request('GET', `/api/v1/projects/${projectId}/export?format=json`);
    expectErrorBody(anonymous, 401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer');
    expectErrorBody(await t.request('GET', '/api/v1/auth/me/export'), 401);
  });

  it("exports the caller's own data: account, memberships, settings, tokens' metadata, and only their own comments and time", async () => {
    const p = await richProject();
    const token = await api(editor, 'POST', '/auth/tokens', { name: 'CI', scopes: ['read'] });
    const response = await download(t, '/api/v1/auth/me/export', editor.token);
    expect(response.status).toBe(200);
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="tasklane-account-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(response.text.startsWith('{"format":"tasklane","version":1,"kind":"account"')).toBe(true);
    const file = JSON.parse(response.text);
    expect(file.account).toEqual({ id: editor.id, name: editor.name, email: editor.email, locale: null });
    expect(file.notificationSettings).toEqual(await api(editor, 'GET', '/auth/me/notification-settings'));
    expect(file.memberships).toContainEqual({ projectId: p.projectId, projectName: 'Export me', projectKey: expect.any(String), role: 'EDITOR', owner: false });
    expect(file.accessTokens).toContainEqual(expect.objectContaining({ id: token.id, name: 'CI', scopes: ['read'] }));
    // Never a secret: neither the token nor any password hash.
    expect(response.text).not.toContain(token.token);
    expect(response.text).not.toMatch(/passwordHash|password_hash|\$2[aby]\$/);
    const ids = file.comments.map((comment: { id: string }) => comment.id);
    expect(ids).toContain(p.editorComment.id);
    expect(ids).not.toContain(p.ownerComment.id);
    expect(file.comments.every((comment: { authorId?: string; text: string }) => comment.text !== 'Owner says hi')).toBe(true);
    expect(file.comments.find((comment: { id: string }) => comment.id === p.editorComment.id)).toMatchObject({ projectId: p.projectId, projectName: 'Export me', taskId: p.parent.id, taskKey: p.parent.key, text: 'Editor replies' });
    expect(file.timeEntries).toContainEqual(expect.objectContaining({ id: p.entry.id, taskId: p.subtask.id, minutes: 45, projectId: p.projectId }));
    const ownerFile = JSON.parse((await download(t, '/api/v1/auth/me/export', owner.token)).text);
    expect(ownerFile.comments.map((comment: { id: string }) => comment.id)).toContain(p.ownerComment.id);
    expect(ownerFile.comments.map((comment: { id: string }) => comment.id)).not.toContain(p.editorComment.id);
    expect(ownerFile.timeEntries.map((entry: { id: string }) => entry.id)).not.toContain(p.entry.id);
  });

  it('refuses a personal access token the account export (SESSION_REQUIRED); a read token exports a project', async () => {
    const { projectId } = await castProject(t, { owner, ADMIN: admin, EDITOR: editor, VIEWER: viewer }, 'Tokened');
    const { token } = await api(owner, 'POST', '/auth/tokens', { name: 'Reader', scopes: ['admin'] });
    expectErrorBody(await t.request('GET', '/api/v1/auth/me/export', { token }), 403, { reason: 'SESSION_REQUIRED' });
    const { token: reader } = await api(owner, 'POST', '/auth/tokens', { name: 'Reader', scopes: ['read'] });
    expect((await download(t, `/api/v1/projects/${projectId}/export?format=csv`, reader)).status).toBe(200);
    const { token: elsewhere } = await api(owner, 'POST', '/auth/tokens', { name: 'Elsewhere', scopes: ['read'], projectIds: [(await api(owner, 'POST', '/projects', { name: 'Other' })).id] });
    expectErrorBody(await t.request('GET', `/api/v1/projects/${projectId}/export?format=json`, { token: elsewhere }), 404);
  });

  it('exports every task of a project of a thousand and more exactly once, across keyset pages', async () => {
    const { projectId } = await castProject(t, { owner, ADMIN: admin, EDITOR: editor, VIEWER: viewer }, 'Big');
    // Past two page boundaries (pages of 500).
    const total = 1_050;
    const made: string[] = [];
    // Several at once, so many share a creation millisecond: the id breaks the tie between pages.
    for (let start = 0; start < total; start += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, total - start) }, (_, index) => createTask(t, owner, projectId, { title: `Task ${start + index}` })),
      );
      made.push(...batch.map((task) => task.id));
    }
    const json = await download(t, `/api/v1/projects/${projectId}/export?format=json`, owner.token);
    expect(json.status).toBe(200);
    const exported: string[] = JSON.parse(json.text).tasks.map((task: { id: string }) => task.id);
    expect(exported).toHaveLength(total);
    expect(new Set(exported).size).toBe(total);
    expect([...exported].sort()).toEqual([...made].sort());
    const csv = await download(t, `/api/v1/projects/${projectId}/export?format=csv`, owner.token);
    const rows: string[][] = parse(csv.text, { record_delimiter: '\r\n' });
    expect(rows).toHaveLength(total + 1);
    expect(new Set(rows.slice(1).map((row) => row[0])).size).toBe(total);
    expect(rows.slice(1).map((row) => row[1]).sort()).toEqual(Array.from({ length: total }, (_, index) => `Task ${index}`).sort());
  }, 600_000);
});

describePermissions(['GET /projects/{id}/export', 'GET /auth/me/export']);

