import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../support/checks';
import { capturedLog, createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestResponse, type TestUser } from '../support/harness';

/**
 * Writes racing the deletion of what they write into. Each round starts every request at once, so
 * on PostgreSQL they run on separate connections and interleave inside the database; on PGlite
 * (one connection) they run one after another, which the answers must not tell apart. Rounds are
 * bounded; a round fails on the first wrong answer, whatever the timing.
 */
describe('races with a deletion answer 2xx or 404, never 500', () => {
  let t: TestApp;
  let owner: TestUser;
  let editor: TestUser;
  let admin: TestUser;
  // The server's log: a 500's cause is in it (the answer says only "Internal server error").
  const log = capturedLog();

  beforeAll(async () => {
    t = await startTestApp({ webhooks: { allowPrivate: true, pollMs: 60_000, timeoutMs: 2000, retryBaseMs: 100, retryMaxDelayMs: 400, retryWindowMs: 60_000, logRetentionMs: 86_400_000 }, logLevel: 'error' }, { logStream: log.stream });
    owner = await registerUser(t, 'Owner');
    editor = await registerUser(t, 'Editor');
    admin = await registerUser(t, 'Admin');
  });
  afterAll(() => t.close());

  const statusesOf = (responses: TestResponse[]) => responses.map((response) => `${response.status} ${response.status >= 500 ? JSON.stringify(response.body) : ''}`.trim());
  /** What the server logged (errors only: logLevel above), so a failing round names its cause. */
  const loggedErrors = () => log.text().slice(-4000);

  /** Every answer is a success or the vanished resource's 404, in the documented error body. */
  function expectAnswered(responses: TestResponse[], successes: number[]) {
    for (const response of responses) {
      if (![...successes, 404].includes(response.status)) expect.fail(`${statusesOf(responses).join(', ')}\n${loggedErrors()}`);
      if (response.status === 404) expect(response.body).toMatchObject({ code: 'NOT_FOUND', message: expect.any(String) });
    }
  }

  it('a comment posted while its task is deleted is created (201) or refused as 404', async () => {
    const projectId = (await createProject(t, owner, 'Comments race')).id;
    await invite(t, owner, projectId, editor, 'EDITOR');
    for (let round = 0; round < 15; round += 1) {
      const taskId = (await createTask(t, owner, projectId)).id;
      // The editor watches the task, so each comment also writes a notification referring to it.
      await t.request('PUT', `/api/v1/tasks/${taskId}/subscription`, { token: editor.token });
      const comment = (user: TestUser, text: string) =>
        t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: user.token, body: { text, mentionIds: [editor.id] } });
      const [deleted, ...comments] = await Promise.all([
        t.request('DELETE', `/api/v1/tasks/${taskId}`, { token: owner.token }),
        ...Array.from({ length: 12 }, (_, index) => comment(index % 2 ? owner : editor, `Comment ${index}`)),
      ]);
      expect(deleted!.status).toBe(200);
      expectAnswered(comments, [201]);
      expect(await queryRows(t, `select id from comments where task_id = '${taskId}'`)).toEqual([]);
    }
  });

  it("a task's updates, moves and relations racing its deletion answer 2xx or 404, and none outlives it", async () => {
    const projectId = (await createProject(t, owner, 'Task writes race')).id;
    await invite(t, owner, projectId, editor, 'EDITOR');
    const peer = await createTask(t, owner, projectId, { title: 'Peer' });
    for (let round = 0; round < 10; round += 1) {
      const task = await createTask(t, owner, projectId, { title: `Doomed ${round}` });
      const started = [
        ...Array.from({ length: 3 }, (_, index) => t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: editor.token, body: { title: `Renamed ${index}` } })),
        t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: editor.token, body: { status: 'IN_PROGRESS' } }),
        t.request('POST', `/api/v1/tasks/${task.id}/move`, { token: editor.token, body: { status: 'TODO', afterId: peer.id } }),
        t.request('POST', `/api/v1/tasks/${task.id}/relations`, { token: editor.token, body: { type: 'blocks', taskId: peer.id } }),
        // From the task that stays: the deleted one is the other task, locked as a second scope.
        t.request('POST', `/api/v1/tasks/${peer.id}/relations`, { token: editor.token, body: { type: 'relates_to', taskId: task.id } }),
        t.request('POST', `/api/v1/tasks/${peer.id}/relations`, { token: editor.token, body: { type: 'duplicates', taskId: task.id } }),
      ];
      // Every other round, the deletion starts once a write has answered, while the others run.
      if (round % 2) await Promise.race(started);
      const deleted = await t.request('DELETE', `/api/v1/tasks/${task.id}`, { token: owner.token });
      const answers = await Promise.all(started);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
      expectAnswered(answers, [200, 201]);
      expect(await queryRows(t, `select id from task_relations where task_id = '${task.id}' or related_task_id = '${task.id}'`)).toEqual([]);
    }
  });

  it('writes whose history queues deliveries to a webhook being deleted answer 2xx, and the webhook is deleted', async () => {
    const projectId = (await createProject(t, owner, 'Webhooks race')).id;
    const tasks = await Promise.all(Array.from({ length: 4 }, () => createTask(t, owner, projectId)));
    for (let round = 0; round < 10; round += 1) {
      const webhook = (await t.request('POST', `/api/v1/projects/${projectId}/webhooks`, { token: owner.token, body: { url: 'http://127.0.0.1:9/hook' } })).body;
      const [deleted, ...writes] = await Promise.all([
        t.request('DELETE', `/api/v1/projects/${projectId}/webhooks/${webhook.id}`, { token: owner.token }),
        ...tasks.map((task) => t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { title: `Round ${round}` } })),
        ...tasks.map((task) => t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: `Round ${round}` } })),
      ]);
      expect(deleted!.status, JSON.stringify(deleted!.body)).toBe(200);
      expectAnswered(writes, [200, 201]);
      expect(await queryRows(t, `select id from webhook_deliveries where webhook_id = '${webhook.id}'`)).toEqual([]);
    }
  });

  it('a project deleted while editors write into it is deleted (200), without a deadlock, and every write answers 2xx or 404', async () => {
    for (let round = 0; round < 8; round += 1) {
      const projectId = (await createProject(t, owner, `Doomed ${round}`)).id;
      await invite(t, owner, projectId, editor, 'EDITOR');
      const adminMember = await invite(t, owner, projectId, admin, 'ADMIN');
      const tasks = await Promise.all(Array.from({ length: 4 }, () => createTask(t, editor, projectId, { assigneeId: admin.id })));
      const label = (await t.request('POST', `/api/v1/projects/${projectId}/labels`, { token: editor.token, body: { name: 'Bug' } })).body;
      const ownComment = (await t.request('POST', `/api/v1/tasks/${tasks[0]!.id}/comments`, { token: editor.token, body: { text: 'Mine' } })).body;
      const webhook = (await t.request('POST', `/api/v1/projects/${projectId}/webhooks`, { token: admin.token, body: { url: 'http://127.0.0.1:9/hook' } })).body;
      const newcomer = await registerUser(t, 'Newcomer');
      const writes: Promise<TestResponse>[] = [
        ...tasks.map((task, index) =>
          t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: editor.token, body: { status: 'IN_PROGRESS', labelIds: [label.id], title: `Renamed ${index}` } }),
        ),
        ...tasks.map((task) => t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: editor.token, body: { text: 'Racing', mentionIds: [admin.id] } })),
        ...tasks.map((task) => t.request('PUT', `/api/v1/tasks/${task.id}/subscription`, { token: admin.token })),
        ...Array.from({ length: 3 }, () => t.request('POST', '/api/v1/tasks', { token: editor.token, body: { projectId, title: 'New', labelIds: [label.id], assigneeId: admin.id } })),
        t.request('DELETE', `/api/v1/tasks/${tasks[3]!.id}`, { token: editor.token }),
        t.request('PATCH', `/api/v1/tasks/${tasks[0]!.id}/comments/${ownComment.id}`, { token: editor.token, body: { text: 'Edited' } }),
        t.request('POST', `/api/v1/projects/${projectId}/labels`, { token: editor.token, body: { name: 'Feature' } }),
        t.request('PATCH', `/api/v1/projects/${projectId}/labels/${label.id}`, { token: editor.token, body: { color: '#ff0000' } }),
        t.request('POST', `/api/v1/projects/${projectId}/members/invite`, { token: admin.token, body: { email: newcomer.email, role: 'VIEWER' } }),
        t.request('PATCH', `/api/v1/projects/${projectId}/members/${adminMember.id}/role`, { token: owner.token, body: { role: 'EDITOR' } }),
        t.request('PATCH', `/api/v1/projects/${projectId}`, { token: admin.token, body: { description: 'Still here' } }),
        t.request('POST', `/api/v1/projects/${projectId}/webhooks`, { token: admin.token, body: { url: 'http://127.0.0.1:9/other' } }),
        t.request('PATCH', `/api/v1/projects/${projectId}/webhooks/${webhook.id}`, { token: admin.token, body: { active: false } }),
      ];
      const [deleted, ...answers] = await Promise.all([t.request('DELETE', `/api/v1/projects/${projectId}`, { token: owner.token }), ...writes]);
      expect(deleted!.status, JSON.stringify(deleted!.body)).toBe(200);
      expectAnswered(answers, [200, 201]);
      expect((await t.request('GET', `/api/v1/projects/${projectId}`, { token: owner.token })).status).toBe(404);
      // Nothing written into it survives it: no task, label, membership or history but its `project.deleted`.
      const left = await queryRows<{ rows: string }>(
        t,
        `select (select count(*) from tasks where project_id = '${projectId}') + (select count(*) from labels where project_id = '${projectId}')
           + (select count(*) from memberships where project_id = '${projectId}') + (select count(*) from notifications where project_id = '${projectId}')
           + (select count(*) from activity where project_id = '${projectId}' and type <> 'project.deleted') as rows`,
      );
      expect(Number(left[0]!.rows)).toBe(0);
    }
  });
});

/**
 * Clients writing one task at once. A task's update locks its row from the read of the version it
 * replaces to commit, so on PostgreSQL the writes queue on the row and on PGlite they run one after
 * another: either way each applies to the version the one before left.
 */
describe('concurrent updates of one task', () => {
  let t: TestApp;
  let owner: TestUser;
  let editor: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    editor = await registerUser(t, 'Editor');
  });
  afterAll(() => t.close());

  it('all apply, none is lost, each makes a new version, and the history chains each old value to the one before', async () => {
    const projectId = (await createProject(t, owner, 'One task, many writers')).id;
    await invite(t, owner, projectId, editor, 'EDITOR');
    const label = (await t.request('POST', `/api/v1/projects/${projectId}/labels`, { token: owner.token, body: { name: 'Hot' } })).body as { id: string };
    const task = await createTask(t, owner, projectId, { title: 'Title start' });
    const writers = 16;
    const answers = await Promise.all(
      Array.from({ length: writers }, (_, index) =>
        t.request('PATCH', `/api/v1/tasks/${task.id}`, {
          token: index % 2 ? owner.token : editor.token,
          // Some writes name a label (locked before the task's row) and change the status (the task counts' trigger).
          body: { title: `Title ${index}`, ...(index % 3 === 0 ? { labelIds: [label.id], status: 'IN_PROGRESS' } : { labelIds: [], status: 'TODO' }) },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: writers }, () => 200));
    const versions = answers.map((answer) => (answer.body as { updatedAt: string }).updatedAt);
    expect(new Set(versions).size).toBe(writers);
    expect(new Set(answers.map((answer) => answer.headers.etag)).size).toBe(writers);

    const history = await queryRows<{ old: string; new: string; version: string }>(
      t,
      `select changes->'title'->>'old' as old, changes->'title'->>'new' as new, resource->>'updatedAt' as version
       from activity where task_id = '${task.id}' and type = 'task.updated' order by id`,
    );
    expect(history).toHaveLength(writers);
    // Serial: each update replaced the title the one recorded before it left, starting from the first.
    expect(history.map((entry) => entry.old)).toEqual(['Title start', ...history.slice(0, -1).map((entry) => entry.new)]);
    expect(new Set(history.map((entry) => entry.new))).toEqual(new Set(Array.from({ length: writers }, (_, index) => `Title ${index}`)));
    // Versions rise in commit order, and each answer's version is the one its history entry records.
    expect(history.map((entry) => entry.version)).toEqual([...versions].sort());
    const final = (await t.request('GET', `/api/v1/tasks/${task.id}`, { token: owner.token })).body as { title: string; updatedAt: string };
    expect(final).toMatchObject({ title: history.at(-1)!.new, updatedAt: history.at(-1)!.version });
  });
});
