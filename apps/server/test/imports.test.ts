import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, type Part, storedKeys, temporaryDataDir } from './support/attachments';
import { expectErrorBody } from './support/checks';
import { createProject, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { describePermissions } from './support/permissions';


/** A real export file of the tool (test/fixtures/imports/README.md says where each comes from). */
const fixture = (name: string) => readFileSync(new URL(`./fixtures/imports/${name}`, import.meta.url));

describe('imports', () => {
  let t: TestApp;
  let ada: TestUser;
  let bob: TestUser;

  const dataDir = temporaryDataDir();

  beforeAll(async () => {
    t = await startTestApp({ dataDir: dataDir.dir });
    ada = await registerUser(t, 'Ada Importer');
    bob = await registerUser(t, 'Bob Colleague');
  });
  afterAll(async () => {
    await t.close();
    dataDir.remove();
  });

  function post(user: TestUser | undefined, parts: Part[], query = '') {
    const { body, contentType } = multipartBody(parts);
    return t.request('POST', `/api/v1/imports${query}`, { ...(user ? { token: user.token } : {}), rawBody: body, headers: { 'content-type': contentType } });
  }
  const form = (source: string, file: Buffer | string, mapping?: unknown): Part[] => [
    { name: 'source', content: source },
    ...(mapping !== undefined ? [{ name: 'mapping', content: JSON.stringify(mapping) }] : []),
    { name: 'file', filename: 'export', content: file },
  ];

  /** Submits, then waits for the job's end (the upload wakes the job). */
  async function importFile(user: TestUser, parts: Part[]) {
    const queued = await post(user, parts);
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body).toMatchObject({ status: 'pending' });
    expect(queued.headers.location).toBe(`/api/v1/imports/${queued.body.id}`);
    for (;;) {
      const state = await t.request('GET', `/api/v1/imports/${queued.body.id}`, { token: user.token });
      expect(state.status).toBe(200);
      if (state.body.status === 'succeeded' || state.body.status === 'failed') return state.body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const api = async (user: TestUser, url: string) => {
    const response = await t.request('GET', `/api/v1${url}`, { token: user.token });
    expect(response.status, `${url}: ${JSON.stringify(response.body)}`).toBe(200);
    return response.body;
  };
  const tasksOf = async (user: TestUser, projectId: string) => api(user, `/tasks/project/${projectId}?limit=100&sort=position`);

  it('imports a CSV through a mapping: states from its statuses, labels, due dates, priorities, emails matched, fields', async () => {
    const csv = [
      'Name,Notes,State,Prio,Due,Owner,Tags,Estimate',
      `Write docs,"First line\nsecond, line",Backlog,high,2026-12-24,${bob.email},"docs, web",3`,
      `Ship it,,Done,P1,not a date,stranger@example.com,web,`,
      `"=HYPERLINK(""http://evil"")",formula,In progress,,,,,`,
      ',no title,Done,,,,,',
    ].join('\r\n');
    // Priorities in any case ("high"), as spreadsheets hold them.
    const mapping = { title: 'Name', description: 'Notes', status: 'State', priority: 'Prio', dueDate: 'Due', assigneeEmail: 'Owner', labels: 'Tags', fields: { Estimate: 'Estimate' } };
    const dry = await post(ada, form('csv', csv, mapping), '?dryRun=true');
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      source: 'csv',
      counts: { tasks: 3, labels: 2, fields: 1, states: 4, comments: 0, members: 1 },
      states: [{ name: 'Backlog', category: 'backlog' }, { name: 'Done', category: 'completed' }, { name: 'In progress', category: 'started' }, { name: 'To do', category: 'unstarted' }],
    });
    expect(dry.body.warnings.join('\n')).toMatch(/Row 5: no title/);
    expect(dry.body.warnings.join('\n')).toMatch(/"not a date" is not a date/);
    expect(dry.body.warnings.join('\n')).toMatch(/"P1" is none of/);
    expect(dry.body.warnings.join('\n')).toMatch(/unassigned: stranger@example.com/);
    // A dry run writes nothing.
    const before = await api(ada, '/projects?limit=100');
    expect(before).toEqual([]);

    expect(storedKeys(dataDir.dir)).toEqual([]);
    const done = await importFile(ada, form('csv', csv, mapping));
    expect(done).toMatchObject({ status: 'succeeded', source: 'csv', progress: { done: 3, total: 3 }, counts: dry.body.counts, warnings: dry.body.warnings, error: null });
    // The file waited in the store (imports/<id>) only while the import did.
    await expect.poll(() => storedKeys(dataDir.dir)).toEqual([]);
    const project = await api(ada, `/projects/${done.projectId}`);
    expect(project).toMatchObject({ name: 'Imported CSV', role: 'ADMIN', taskCounts: { BACKLOG: 1, DONE: 1, IN_PROGRESS: 1 } });
    const tasks = await tasksOf(ada, done.projectId);
    expect(tasks.map((task: { title: string }) => task.title)).toEqual(['Write docs', 'Ship it', '=HYPERLINK("http://evil")']);
    const [docs, ship] = tasks;
    expect(docs).toMatchObject({ description: 'First line\nsecond, line', status: 'BACKLOG', priority: 'HIGH', dueDate: '2026-12-24T00:00:00.000Z', assigneeId: bob.id, key: `${project.key}-1` });
    expect(ship).toMatchObject({ status: 'DONE', priority: 'MEDIUM', dueDate: null, assigneeId: null });
    const labels = await api(ada, `/projects/${done.projectId}/labels`);
    expect(labels.map((label: { name: string }) => label.name).sort()).toEqual(['docs', 'web']);
    expect(docs.labelIds).toHaveLength(2);
    const [field] = await api(ada, `/projects/${done.projectId}/fields`);
    expect(field).toMatchObject({ name: 'Estimate', type: 'text' });
    expect(docs.fields).toEqual({ [field.id]: '3' });
    // Bob, registered and named by email, is an EDITOR of the new project; nobody else was made.
    const members = await api(ada, `/projects/${done.projectId}/members`);
    expect(members.map((member: { email: string; role: string }) => [member.email, member.role]).sort()).toEqual([[ada.email, 'ADMIN'], [bob.email, 'EDITOR']].sort());
    // …and hears of it, as of any addition by an ADMIN.
    const told = await api(bob, '/notifications');
    expect(told).toEqual([expect.objectContaining({ kind: 'member.added', projectId: done.projectId, actorId: ada.id })]);
    // The formula is plain text here, and neutralised on the way out again.
    const exported = await t.app.inject({ method: 'GET', url: `/api/v1/projects/${done.projectId}/export?format=csv`, headers: { authorization: `Bearer ${ada.token}` } });
    expect(exported.body).toContain(`'=HYPERLINK(""http://evil"")`);
  });

  /** A task list of the project, each task with what the tests compare. */
  async function tasksByTitle(user: TestUser, projectId: string) {
    const tasks: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const response = await t.request('GET', `/api/v1/tasks/project/${projectId}?limit=100&sort=position${cursor ? `&cursor=${cursor}` : ''}`, { token: user.token });
      tasks.push(...response.body);
      cursor = /[?&]cursor=([^&>]+)/.exec(String(response.headers.link ?? ''))?.[1];
    } while (cursor);
    return new Map(tasks.map((task) => [task.title as string, task as Record<string, any>]));
  }

  it("imports a real Trello board: lists as states, archived as Cancelled, checklists as subtasks, labels, comments, attachments", async () => {
    const file = fixture('trello-board.json');
    const board = JSON.parse(file.toString());
    const dry = await post(ada, form('trello', file), '?dryRun=true');
    expect(dry.status).toBe(200);
    // 10 cards and 12 checklist items; the closed list is no state; 4 commentCard actions.
    expect(dry.body).toMatchObject({
      project: { name: 'Simple Project Board' },
      counts: { tasks: 22, subtasks: 12, comments: 4, labels: 8, states: 5, fields: 0, relations: 0, members: 0 },
      states: [
        { name: 'BRAINSTORM 🤔', category: 'backlog' },
        { name: 'TODO 📚', category: 'unstarted' },
        { name: 'DOING ⚙️', category: 'started' },
        { name: 'DONE! 🙌🏽', category: 'completed' },
        { name: 'Cancelled', category: 'cancelled' },
      ],
      warnings: [],
    });
    const done = await importFile(ada, form('trello', file));
    expect(done).toMatchObject({ status: 'succeeded', counts: dry.body.counts });
    const states = await api(ada, `/projects/${done.projectId}/states`);
    expect(states.map((state: { key: string }) => state.key)).toEqual(['BRAINSTORM', 'TODO', 'DOING', 'DONE', 'CANCELLED']);
    const tasks = await tasksByTitle(ada, done.projectId);
    // Cards in list order, then by their place in the list; each checklist item right after its card.
    expect([...tasks.keys()].slice(0, 4)).toEqual(["✋🏿 Add what you'd like to work on below", 'attachments? comments too??', "✋🏿 Move anything 'ready' here", "wow, that's a nice simple project board"]);
    expect(tasks.get('archived card in DONE')).toMatchObject({ status: 'CANCELLED' });
    const twoLists = tasks.get('a card with two checklists - this could look weird in planka')!;
    const subtasks = [...tasks.values()].filter((task) => task.parentId === twoLists.id);
    expect(subtasks.map((task) => [task.title, task.status])).toEqual([
      ['first item of the first checklist', 'TODO'],
      ['second item of the first checklist', 'TODO'],
      ['first item of the second checklist', 'TODO'],
      ['second item of the second checklist', 'TODO'],
      ['another item of the second checklist', 'DONE'],
    ]);
    expect(twoLists).toMatchObject({ subtaskCount: 5, subtasksDone: 1 });
    // Labels: named as in Trello, an unnamed one by its colour; the card keeps its own.
    const labels = await api(ada, `/projects/${done.projectId}/labels?limit=100`);
    const byName = new Map(labels.map((label: { id: string; name: string; color: string }) => [label.name, label]));
    expect([...byName.keys()].sort()).toEqual(['blue', 'green label', 'label without color', 'orange', 'purple', 'red', 'unused blue label', 'yellow']);
    expect(byName.get('green label')).toMatchObject({ color: '#16a34a' });
    const nice = tasks.get("wow, that's a nice simple project board")!;
    expect(nice.labelIds.map((id: string) => labels.find((label: { id: string }) => label.id === id).name).sort()).toEqual(['green label', 'label without color']);
    // Comments oldest first, dated as in Trello, kept as the importer's (the author has no account here).
    const card = tasks.get('attachments? comments too??')!;
    const comments = await api(ada, `/tasks/${card.id}/comments`);
    const actions = board.actions.filter((action: { type: string; data: { card: { id: string } } }) => action.type === 'commentCard' && action.data.card.id === '637a008d3ce43701b21573d9').reverse();
    expect(comments.map((comment: { text: string; createdAt: string; authorId: string }) => [comment.text, comment.createdAt, comment.authorId])).toEqual(
      actions.map((action: { data: { text: string }; date: string }) => [`Originally by Trello Sample User:\n\n${action.data.text}`, action.date, ada.id]),
    );
    // Attachments as links under the description.
    const attachment = board.cards.find((item: { id: string }) => item.id === '637a008d3ce43701b21573d9').attachments[0];
    expect(card.description).toContain(`**Attachments**\n- [${attachment.name}](${attachment.url})`);
  });

  it('imports a real GitHub issue list: issues only, open in To do, labels with colours, the milestone and address as fields', async () => {
    const file = fixture('github-issues.json');
    const [issue] = JSON.parse(file.toString());
    const done = await importFile(ada, form('github', file));
    expect(done).toMatchObject({ status: 'succeeded', counts: { tasks: 1, labels: 1, fields: 2 }, warnings: ['1 pull requests in the file were left out: only issues are imported'] });
    expect(await api(ada, `/projects/${done.projectId}`)).toMatchObject({ name: 'simonw/datasette' });
    const [task] = (await tasksByTitle(ada, done.projectId)).values();
    expect(task).toMatchObject({ title: issue.title, description: issue.body, status: 'TODO', createdAt: new Date(issue.created_at).toISOString() });
    expect((await api(ada, `/projects/${done.projectId}/states`)).map((state: { key: string }) => state.key)).toEqual(['TODO', 'DONE', 'CANCELLED']);
    const [label] = await api(ada, `/projects/${done.projectId}/labels`);
    expect(label).toMatchObject({ name: 'plugins', color: '#f759cf' });
    expect(task!.labelIds).toEqual([label.id]);
    const fields = await api(ada, `/projects/${done.projectId}/fields`);
    expect(Object.fromEntries(fields.map((field: { id: string; name: string }) => [field.name, task!.fields[field.id]]))).toEqual({ 'GitHub issue': issue.html_url, Milestone: 'Custom templates edition' });
  });

  it('imports a real Jira CSV export: statuses in their categories, comments with their authors and dates, the key kept', async () => {
    const file = fixture('jira-issues.csv');
    const done = await importFile(ada, form('jira', file));
    expect(done).toMatchObject({ status: 'succeeded', counts: { tasks: 22, comments: 17, states: 3, fields: 1 } });
    expect(done.warnings).toEqual(['Not registered here (by email), so their tasks are left unassigned: Saicharan Basireddy']);
    expect(await api(ada, `/projects/${done.projectId}`)).toMatchObject({ name: 'TestAutoGen', taskCounts: { TO_DO: 9, IN_PROGRESS: 3, DONE: 10 } });
    const states = await api(ada, `/projects/${done.projectId}/states`);
    expect(states.map((state: { key: string; category: string }) => [state.key, state.category])).toEqual([
      ['TO_DO', 'unstarted'],
      ['IN_PROGRESS', 'started'],
      ['DONE', 'completed'],
    ]);
    const tasks = await tasksByTitle(ada, done.projectId);
    const [keyField] = await api(ada, `/projects/${done.projectId}/fields`);
    const docker = tasks.get('Dockerize the final package for customer install')!;
    expect(docker).toMatchObject({ status: 'IN_PROGRESS', priority: 'MEDIUM', dueDate: '2025-09-17T00:00:00.000Z', createdAt: '2025-08-20T12:38:00.000Z', assigneeId: null });
    expect(docker.fields[keyField.id]).toBe('TES-7');
    // Done issues were completed when Jira resolved them; the others are not complete.
    const byKey = new Map([...tasks.values()].map((task) => [task.fields[keyField.id], task]));
    expect(byKey.get('TES-19')).toMatchObject({ status: 'DONE', completedAt: '2025-09-12T09:05:00.000Z' });
    expect([...tasks.values()].filter((task) => task.completedAt !== null).map((task) => task.status)).toEqual(Array(10).fill('DONE'));
    // Oldest first: the project's numbers follow Jira's (TES-4 is the first).
    expect([...tasks.values()][0]!.fields[keyField.id]).toBe('TES-4');
    const comments = await api(ada, `/tasks/${tasks.get('Convert Data Storage to use Postgres')!.id}/comments`);
    expect(comments.map((comment: { text: string; createdAt: string }) => [comment.text.split('\n')[0], comment.createdAt])).toEqual([
      ['Originally by Saicharan Basireddy:', '2025-09-05T07:23:00.000Z'],
      ['Originally by Saicharan Basireddy:', '2025-09-08T08:07:00.000Z'],
      ['Originally by Sai Sontineni:', '2025-09-12T09:03:00.000Z'],
    ]);
    // A mention, an account id in Jira's markup, reads as the person's name.
    const mentioned = await api(ada, `/tasks/${tasks.get('Upload Assets to GitHub')!.id}/comments`);
    expect(mentioned[0].text).toMatch(/^Originally by Sai Sontineni:\n\n@Eric Medlock/);
  });

  it("maps Jira's sub-task parents, Blocks links and labels: the real export with the columns Jira adds when issues have them", async () => {
    // The real export has no sub-tasks, links or labels, so Jira wrote none of those columns. They
    // are added here, as Jira names and fills them ("Parent id" holds the parent's Issue id), to
    // three of its rows; every other byte is the export's.
    const [header, ...rows] = parse(fixture('jira-issues.csv')) as string[][];
    const at = (key: string) => rows.findIndex((row) => row[1] === key);
    const extra = rows.map(() => ['', '', '', '']);
    const idOf = (key: string) => rows[at(key)]![2]!;
    extra[at('TES-5')] = [idOf('TES-6'), '', 'infra', 'storage'];
    extra[at('TES-14')] = ['', 'TES-16', 'storage', ''];
    extra[at('TES-16')] = ['', 'TES-14', '', ''];
    const edited = stringify([[...header!, 'Parent id', 'Outward issue link (Blocks)', 'Labels', 'Labels'], ...rows.map((row, i) => [...row, ...extra[i]!])]);
    const done = await importFile(ada, form('jira', edited));
    // TES-16 blocking TES-14 would close a loop with TES-14 blocking TES-16: left out, and said.
    expect(done).toMatchObject({ status: 'succeeded', counts: { tasks: 22, subtasks: 1, relations: 1, labels: 2 } });
    expect(done.warnings).toContain('Need to store data from the files stored in S3 within Vector DB: blocking TES-14 would make a loop of blocks, so that link was left out');
    const tasks = await tasksByTitle(ada, done.projectId);
    const upload = tasks.get('Upload Assets to GitHub')!;
    const postgresTask = tasks.get('Convert Data Storage to use Postgres')!;
    expect(upload.parentId).toBe(postgresTask.id);
    const checkbox = tasks.get('Need Project selection checkbox when Jira is selected')!;
    const relations = await api(ada, `/tasks/${checkbox.id}/relations`);
    expect(relations).toEqual([expect.objectContaining({ type: 'blocks', direction: 'outgoing', task: expect.objectContaining({ title: 'Need to store data from the files stored in S3 within Vector DB' }) })]);
    // Blocked while its blocker is to do.
    expect(tasks.get('Need to store data from the files stored in S3 within Vector DB')).toMatchObject({ blocked: true });
    const labels = await api(ada, `/projects/${done.projectId}/labels`);
    expect(labels.map((label: { name: string }) => label.name)).toEqual(['infra', 'storage']);
    expect(upload.labelIds).toHaveLength(2);
  });

  it('refuses what is not the source it names, broken files, a missing part and a bad mapping, keeping nothing', async () => {
    const format = { reason: 'IMPORT_FORMAT' };
    const cases: [Part[], RegExp, { reason?: string; issues?: unknown }][] = [
      [form('trello', '{"not":"trello"}'), /not a Trello board/, format],
      [form('trello', '{broken'), /not valid JSON/, format],
      // The streaming parser's edges: a file cut short, one value after another, a bare value, an empty file, an array where the board is.
      [form('trello', '{"name":"Cut","lists":[{"id":"l1"'), /not valid JSON/, format],
      [form('trello', '{"name":"Two"} {"name":"Boards"}'), /not valid JSON/, format],
      [form('trello', '"a board"'), /not a Trello board/, format],
      [form('trello', ''), /not valid JSON/, format],
      [form('trello', '{"name":"Odd","lists":{},"cards":[]}'), /not a Trello board/, format],
      [form('github', '[{"title":"Fine","state":"open"}, 3]'), /not GitHub's issue list/, format],
      [form('github', '{"title":"an object, not a list"}'), /not GitHub's issue list/, format],
      [form('jira', 'Summary,Status\nA,Open'), /no "Issue key" column/, format],
      [form('asana', '"unterminated,quote\n'), /not a CSV file/, format],
      [form('csv', 'Name\nA'), /needs a `mapping`/, format],
      [form('csv', 'Name\nA', { title: 'Title' }), /columns the file does not have: "Title"/, format],
      [form('csv', 'Name\nA', { title: 3 }), /mapping/, { issues: [{ path: ['mapping', 'title'], message: expect.any(String) }] }],
      [form('tasklane', '{"format":"tasklane","version":9,"kind":"project","project":{},"tasks":[]}'), /version 9/, format],
      [form('nothing', 'x'), /source must be one of/, { issues: [{ path: ['source'], message: expect.any(String) }] }],
      [[{ name: 'source', content: 'csv' }, { name: 'mapping', content: '{title' }, { name: 'file', filename: 'export', content: 'Name\nA' }], /mapping: not valid JSON/, { issues: [{ path: ['mapping'], message: 'not valid JSON' }] }],
      [[{ name: 'source', content: 'csv' }], /part named `file`/, { reason: 'FILE_REQUIRED' }],
    ];
    for (const [parts, message, expected] of cases) {
      const response = await post(ada, parts);
      expectErrorBody(response, 400, { message: expect.stringMatching(message), ...expected });
    }
    const json = await t.request('POST', '/api/v1/imports', { token: ada.token, body: { source: 'csv' } });
    expect(json.status).toBe(415);
    expect((await post(undefined, form('csv', 'Name\nA', { title: 'Name' }))).status).toBe(401);
    expect((await post(ada, form('csv', 'Name\nA', { title: 'Name' }), '?dryRun=maybe')).status).toBe(400);
    const labels = Array.from({ length: 10_000 }, (_, i) => ({ id: `l${i}`, name: `label ${i}`, color: 'green' }));
    const many = await post(ada, form('trello', JSON.stringify({ name: 'Labels', lists: [], cards: [], labels })));
    expect(many.status).toBe(400);
    expect(many.body.message).toMatch(/more than 500 labels; an import makes at most 500/);
    const lists = Array.from({ length: 51 }, (_, i) => ({ id: `l${i}`, name: `List ${i}` }));
    // 51 lists, and the Done and Cancelled states the board lacks: 53.
    const wide = await post(ada, form('trello', JSON.stringify({ name: 'Wide', lists, cards: [] })), '?dryRun=true');
    expectErrorBody(wide, 400, { message: expect.stringMatching(/53 workflow states.*at most 50/), reason: 'IMPORT_FORMAT' });
    const nul = await post(ada, form('csv', 'Name\nA', { title: 'Name', fields: { 'a\u0000': 'Name' } }));
    expectErrorBody(nul, 400, { message: expect.stringMatching(/^Invalid input: mapping\.fields\.a/), issues: [{ path: ['mapping', 'fields', 'a\u0000'], message: expect.any(String) }] });
    // A body that ends early (no part at all, inside a part's headers, before the file's end is marked) is the client's: a 400 (was a 500).
    const whole = multipartBody(form('csv', 'Name\nA', { title: 'Name' }));
    for (const rawBody of [Buffer.from('{}'), whole.body.subarray(0, 60), whole.body.subarray(0, whole.body.length - 30)]) {
      const cut = await t.request('POST', '/api/v1/imports', { token: ada.token, rawBody, headers: { 'content-type': whole.contentType } });
      expectErrorBody(cut, 400, { message: expect.stringMatching(/^Malformed multipart body: /), reason: 'FILE_REQUIRED' });
    }
    // Each refused file was received into the store as it streamed, and is gone with its answer.
    await expect.poll(() => storedKeys(dataDir.dir)).toEqual([]);
    // A store that cannot take the file (here its temporary folder is a file) fails on the server's side: a 500, not the body's 400.
    const temporary = join(dataDir.dir, 'files', 'tmp');
    rmSync(temporary, { recursive: true, force: true });
    writeFileSync(temporary, 'in the way');
    try {
      const failed = await post(ada, form('csv', 'Name\nA', { title: 'Name' }));
      expect(failed.status).toBe(500);
      expect(failed.body).toMatchObject({ message: expect.any(String) });
      expect(failed.body.message).not.toMatch(/multipart/i);
    } finally {
      rmSync(temporary);
    }
  });

  it('mends what a file gets wrong rather than failing: repeated names and ids, text PostgreSQL cannot store, loops, impossible dates', async () => {
    // Trello: two lists of one long name (each within 50 characters, told apart), a NUL in a card, labels alike but for case.
    const long = 'x'.repeat(60);
    const board = {
      name: 'Mended',
      lists: [{ id: 'l1', name: long }, { id: 'l2', name: long }, { id: 'l3', name: long }],
      labels: [{ id: 'a', name: 'Bug', color: 'red' }, { id: 'b', name: 'bug', color: 'green' }],
      cards: [
        { id: 'c1', idList: 'l1', name: 'One\u0000', desc: 'Nul \u0000 here', idLabels: ['a', 'b'] },
        { id: 'c1', idList: 'l2', name: 'Same id', idLabels: [] },
      ],
      actions: [],
    };
    const trello = await importFile(ada, form('trello', JSON.stringify(board)));
    expect(trello).toMatchObject({ status: 'succeeded', counts: { tasks: 2, labels: 1 } });
    const states = await api(ada, `/projects/${trello.projectId}/states`);
    expect(states.slice(0, 3).map((state: { name: string }) => state.name)).toEqual([long.slice(0, 50), `${'x'.repeat(46)} (2)`, `${'x'.repeat(46)} (3)`]);
    const tasks = await tasksByTitle(ada, trello.projectId);
    expect(tasks.get('One')).toMatchObject({ description: 'Nul  here', labelIds: [expect.any(String)] });
    expect(tasks.get('Same id')).toBeDefined();
    expect(trello.warnings).toContain('Same id: its id (c1) is another task\'s too; it is kept as a task of its own');

    // A Tasklane file without states or with states alike but for case, labels alike, a parent loop, an email with a NUL.
    const file = {
      format: 'tasklane', version: 1, kind: 'project', project: { name: 'Odd' }, states: [],
      labels: [{ id: 'x', name: 'Bug', color: '#ff0000' }, { id: 'y', name: 'BUG', color: '#00ff00' }],
      fields: [{ id: 'f', name: 'Size', type: 'text' }, { id: 'g', name: 'size', type: 'text' }],
      members: [{ userId: 'u', name: 'Nul', email: 'a\u0000@example.com' }],
      tasks: [
        { id: 't1', title: 'A', status: 'GONE', parentId: 't2', labelIds: ['x', 'y'], assigneeId: 'u', fields: { f: 'S', g: 'L' }, startDate: '2027-02-01T00:00:00Z', dueDate: '2027-01-01T00:00:00Z', comments: [], relations: [] },
        { id: 't2', title: 'B', status: 'GONE', parentId: 't1', comments: [], relations: [{ type: 'blocks', relatedTaskId: 'elsewhere' }] },
      ],
    };
    const odd = await importFile(ada, form('tasklane', JSON.stringify(file)));
    expect(odd).toMatchObject({ status: 'succeeded', counts: { tasks: 2, subtasks: 1, labels: 1, fields: 1, states: 2, relations: 0 } });
    expect((await api(ada, `/projects/${odd.projectId}/states`)).map((state: { key: string }) => state.key)).toEqual(['TODO', 'DONE']);
    const [a, b] = [...(await tasksByTitle(ada, odd.projectId)).values()];
    expect(a).toMatchObject({ status: 'TODO', startDate: null, dueDate: '2027-01-01T00:00:00.000Z', assigneeId: null });
    expect([a!.parentId, b!.parentId].filter(Boolean)).toHaveLength(1);

    // Jira: a date past the year 9999, and a 25 o'clock, come without a date.
    const [header, ...rows] = parse(fixture('jira-issues.csv')) as string[][];
    const due = header!.indexOf('Due date');
    rows[0]![due] = '31/Dec/99999 9:00 AM';
    rows[1]![due] = '31/Dec/25 25:00';
    const jira = await importFile(ada, form('jira', stringify([header!, ...rows])));
    expect(jira.status).toBe('succeeded');
    const jiraTasks = [...(await tasksByTitle(ada, jira.projectId)).values()];
    expect(jiraTasks.filter((task) => task.dueDate !== null).map((task) => task.dueDate).sort()).toEqual(['2025-09-17T00:00:00.000Z', '2025-09-18T00:00:00.000Z']);
  });

  it('refuses a file over IMPORT_MAX_BYTES with a 413', async () => {
    const small = await startTestApp({ imports: { maxBytes: 1000, pollMs: 3_600_000, leaseMs: 30_000 } });
    try {
      const user = await registerUser(small, 'Small');
      const { body, contentType } = multipartBody(form('csv', 'x'.repeat(5000), { title: 'x' }));
      const response = await small.request('POST', '/api/v1/imports', { token: user.token, rawBody: body, headers: { 'content-type': contentType } });
      expect(response.status).toBe(413);
      expectErrorBody(response, 413, { reason: 'PAYLOAD_TOO_LARGE' });
    } finally {
      await small.close();
    }
  });

  it('shows an import only to its creator', async () => {
    const done = await importFile(ada, form('csv', 'Name\nA', { title: 'Name' }));
    const other = await t.request('GET', `/api/v1/imports/${done.id}`, { token: bob.token });
    expect(other.status).toBe(404);
    expect((await t.request('GET', '/api/v1/imports/not-an-id', { token: ada.token })).status).toBe(404);
  });

  it('moves a project between servers: its export imported with source=tasklane is an equal project', async () => {
    const projectId = (await createProject(t, ada, 'Round trip')).id;
    await invite(t, ada, projectId, bob, 'EDITOR');
    const write = async (method: string, url: string, body: unknown) => {
      const response = await t.request(method, `/api/v1${url}`, { token: ada.token, body });
      expect(response.status, `${url}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
      return response.body;
    };
    // A deleted task leaves a gap in the numbers: the keys (RT-2, RT-3) stay those of the same tasks.
    const scrap = await write('POST', '/tasks', { projectId, title: 'Scrap' });
    expect((await t.request('DELETE', `/api/v1/tasks/${scrap.id}`, { token: ada.token })).status).toBe(200);
    const qa = await write('POST', `/projects/${projectId}/states`, { name: 'In QA', category: 'started', color: '#0284c7' });
    const bug = await write('POST', `/projects/${projectId}/labels`, { name: 'bug', color: '#d73a4a' });
    const parent = await write('POST', '/tasks', { projectId, title: 'Parent', description: 'Has *markdown*', priority: 'HIGH', status: qa.key, labelIds: [bug.id], assigneeId: bob.id, dueDate: '2027-01-02T10:00:00.000Z' });
    const child = await write('POST', '/tasks', { projectId, title: 'Child', parentId: parent.id, status: 'DONE' });
    await write('POST', `/tasks/${child.id}/relations`, { type: 'blocks', taskId: parent.id });
    await write('POST', `/tasks/${parent.id}/comments`, { text: 'A comment by Ada' });
    await t.request('POST', `/api/v1/tasks/${parent.id}/comments`, { token: bob.token, body: { text: 'One by Bob' } });
    // Estimates in hours, a field of every type, a repeating task, time logged by two people.
    await write('PATCH', `/projects/${projectId}`, { estimateUnit: 'hours' });
    const field = (name: string, type: string, options?: { name: string; color?: string }[]) => write('POST', `/projects/${projectId}/fields`, { name, type, ...(options ? { options } : {}) });
    const tier = await field('Tier', 'select', [{ name: 'Gold', color: '#f59e0b' }, { name: 'Silver' }]);
    const areas = await field('Areas', 'multi_select', [{ name: 'API' }, { name: 'Web', color: '#2563eb' }]);
    const points = await field('Points', 'number');
    const reviewer = await field('Reviewer', 'user');
    const shipped = await field('Shipped', 'checkbox');
    const spec = await field('Spec', 'url');
    const launch = await field('Launch', 'date');
    const notes = await field('Notes', 'text');
    await write('PATCH', `/tasks/${parent.id}`, {
      estimate: 5.5, recurrence: 'FREQ=WEEKLY;BYDAY=MO', startDate: '2026-12-20T09:00:00.000Z',
      fields: { [tier.id]: tier.options[1].id, [areas.id]: [areas.options[0].id, areas.options[1].id], [points.id]: 8, [reviewer.id]: bob.id, [shipped.id]: true, [spec.id]: 'https://example.com/spec', [launch.id]: '2027-03-01', [notes.id]: 'Say *when*' },
    });
    await write('PATCH', `/tasks/${child.id}`, { estimate: 2, fields: { [shipped.id]: false, [areas.id]: [areas.options[1].id] } });
    await write('POST', `/tasks/${parent.id}/time-entries`, { minutes: 90, date: '2026-11-20', note: 'Design' });
    await t.request('POST', `/api/v1/tasks/${child.id}/time-entries`, { token: bob.token, body: { minutes: 30, date: '2026-11-21' } });
    const file = await t.app.inject({ method: 'GET', url: `/api/v1/projects/${projectId}/export`, headers: { authorization: `Bearer ${ada.token}` } });
    expect(file.statusCode).toBe(200);

    // On the server it came from, its key is its own still: the copy gets another, saying so (the dry run too).
    const key = (await api(ada, `/projects/${projectId}`)).key;
    const taken = `The project key ${key} is taken on this server: the project gets a key of its own, and its tasks' keys change with it`;
    const dry = await post(ada, form('tasklane', file.body), '?dryRun=true');
    expect(dry.status).toBe(200);
    expect(dry.body.warnings).toEqual([taken]);
    const done = await importFile(ada, form('tasklane', file.body));
    expect(done).toMatchObject({
      status: 'succeeded',
      counts: { tasks: 2, subtasks: 1, comments: 2, relations: 1, states: 6, labels: 1, fields: 8, timeEntries: 2, members: 1 },
      warnings: [taken],
    });
    expect((await api(ada, `/projects/${done.projectId}`)).key).not.toBe(key);
    const shape = async (id: string) => {
      const project = await api(ada, `/projects/${id}`);
      const states = (await api(ada, `/projects/${id}/states`)).map(({ key, name, category, color, position }: Record<string, unknown>) => ({ key, name, category, color, position }));
      const labels = (await api(ada, `/projects/${id}/labels`)).map(({ name, color }: Record<string, unknown>) => ({ name, color }));
      const fields = await api(ada, `/projects/${id}/fields`);
      // Option ids are new on the other side: values compared by the options' names.
      const optionName = new Map(fields.flatMap((one: { options: { id: string; name: string }[] }) => one.options.map((option) => [option.id, option.name])));
      const fieldName = new Map(fields.map((one: { id: string; name: string }) => [one.id, one.name]));
      const valueOf = (value: unknown) => (Array.isArray(value) ? value.map((id) => optionName.get(id)) : (optionName.get(value) ?? value));
      const tasks = await tasksOf(ada, id);
      const titleOf = new Map(tasks.map((task: { id: string; title: string }) => [task.id, task.title]));
      const described = [];
      for (const task of tasks) {
        const comments = (await api(ada, `/tasks/${task.id}/comments`)).map(({ authorId, text }: Record<string, unknown>) => ({ authorId, text }));
        const relations = (await api(ada, `/tasks/${task.id}/relations`)).map((relation: { type: string; direction: string; task: { title: string } }) => ({ type: relation.type, direction: relation.direction, title: relation.task.title }));
        const time = (await api(ada, `/tasks/${task.id}/time-entries`)).map(({ userId, minutes, date, note }: Record<string, unknown>) => ({ userId, minutes, date, note }));
        described.push({
          title: task.title, description: task.description, status: task.status, priority: task.priority, dueDate: task.dueDate, startDate: task.startDate, completedAt: task.completedAt,
          assigneeId: task.assigneeId, labels: task.labelIds.length, parent: task.parentId ? titleOf.get(task.parentId) : null, number: task.number ?? task.key.split('-')[1], blocked: task.blocked,
          estimate: task.estimate, recurrence: task.recurrence, nextDueDate: task.nextDueDate, timeSpentMinutes: task.timeSpentMinutes, comments, relations, time,
          fields: Object.fromEntries(Object.entries(task.fields).map(([fieldId, value]) => [fieldName.get(fieldId), valueOf(value)])),
        });
      }
      const members = (await api(ada, `/projects/${id}/members`)).map(({ userId, role }: Record<string, unknown>) => ({ userId, role }));
      return {
        estimateUnit: project.estimateUnit, estimateTotals: project.estimateTotals, taskCounts: project.taskCounts, states, labels, members, tasks: described,
        fields: fields.map(({ name, type, options, position }: { name: string; type: string; options: { name: string; color: string }[]; position: number }) => ({ name, type, position, options: options.map(({ name: option, color }) => ({ option, color })) })),
      };
    };
    const before = await shape(projectId);
    // What the test set up is there to compare: a field of each type, a repeat, two logs, a completion.
    expect(before.tasks.find((task) => task.title === 'Parent')).toMatchObject({ estimate: 5.5, recurrence: 'FREQ=WEEKLY;BYDAY=MO', timeSpentMinutes: 90, fields: { Tier: 'Silver', Areas: ['API', 'Web'], Reviewer: bob.id, Points: 8 } });
    expect(before.tasks.find((task) => task.title === 'Child')).toMatchObject({ completedAt: expect.any(String), time: [{ userId: bob.id, minutes: 30 }] });
    expect(await shape(done.projectId)).toEqual(before);
    expect(before.tasks.map((task) => task.number)).toEqual([2, 3]);
    // The next task of each is numbered alike.
    const next = async (id: string) => (await write('POST', '/tasks', { projectId: id, title: 'Next' })).number;
    expect(await next(done.projectId)).toBe(await next(projectId));

    // Moved (the original gone, as on another server): the project keeps its key, so every task key still names its task.
    const keysOf = async (id: string): Promise<string[]> => (await tasksOf(ada, id)).map((task: { key: string; title: string }) => `${task.key} ${task.title}`).sort();
    const keys = await keysOf(projectId);
    expect((await t.request('DELETE', `/api/v1/projects/${projectId}`, { token: ada.token })).status).toBeLessThan(300);
    const moved = await importFile(ada, form('tasklane', file.body));
    expect(moved).toMatchObject({ status: 'succeeded', warnings: [] });
    expect((await api(ada, `/projects/${moved.projectId}`)).key).toBe(key);
    expect(await keysOf(moved.projectId)).toEqual(keys.filter((line) => !line.endsWith(' Next')));
  });

  it('keeps out, with a warning each, what an edited Tasklane file holds wrongly; time by someone not registered here is the importer’s, saying whose', async () => {
    const projectId = (await createProject(t, ada, 'Edited')).id;
    const post = async (url: string, body: unknown) => (await t.request('POST', `/api/v1${url}`, { token: ada.token, body })).body;
    const tier = await post(`/projects/${projectId}/fields`, { name: 'Tier', type: 'select', options: [{ name: 'Gold' }] });
    const points = await post(`/projects/${projectId}/fields`, { name: 'Points', type: 'number' });
    const reviewer = await post(`/projects/${projectId}/fields`, { name: 'Reviewer', type: 'user' });
    const spec = await post(`/projects/${projectId}/fields`, { name: 'Spec', type: 'url' });
    await post('/tasks', { projectId, title: 'Edited by hand', dueDate: '2027-01-04T10:00:00.000Z' });
    const exported = await t.app.inject({ method: 'GET', url: `/api/v1/projects/${projectId}/export`, headers: { authorization: `Bearer ${ada.token}` } });
    const file = JSON.parse(exported.body);
    file.members.push({ userId: 'carol', name: 'Carol Elsewhere', email: 'Carol@Elsewhere.example', role: 'EDITOR' });
    file.project.key = 'not a key';
    const [task] = file.tasks;
    Object.assign(task, {
      fields: { [tier.id]: 'no-such-option', [points.id]: 'eight', [reviewer.id]: 'carol', [spec.id]: 'https://example.com/\u0000' },
      recurrence: 'FREQ=HOURLY',
      estimate: -5,
      // Past what a project counts up to: numbered afresh.
      number: 3_000_000_000,
      comments: [{ authorId: 'carol', text: 'Hello', createdAt: '2026-11-02T10:00:00.000Z' }],
      timeEntries: [
        { userId: 'carol', minutes: 45, date: '2026-11-02', note: 'Review' },
        { userId: ada.id, minutes: 5000, date: '2026-11-02', note: '' },
      ],
      attachments: [{ id: 'a', filename: 'mockup.png', contentType: 'image/png', size: 10 }],
    });
    const done = await importFile(ada, form('tasklane', JSON.stringify(file)));
    expect(done).toMatchObject({ status: 'succeeded', counts: { tasks: 1, comments: 1, timeEntries: 1, fields: 4, members: 0 } });
    expect(done.warnings).toEqual([
      'The project key "NOT A KEY" is not one a project can have: the project gets a key of its own',
      'Edited by hand: its estimate -5 is not one this server keeps (0 to 1000000, two decimals), so it was left out',
      'Edited by hand: a time entry of 5000 minutes on 2026-11-02 is not one this server keeps, so it was left out',
      '1 attachment is listed in the file, but an export holds what they were, not their files: left out (upload them again)',
      expect.stringMatching(/^Edited by hand: its repeat rule "FREQ=HOURLY" was left out: /),
      expect.stringMatching(/^Edited by hand: its Tier was left empty: a select field takes the id of one of the field's options/),
      'Edited by hand: its Points was left empty: a number field takes a finite number',
      'Edited by hand: its Reviewer was left empty: carol@elsewhere.example is not registered here',
      'Edited by hand: its Spec was left empty: Text may not contain U+0000 or an unpaired surrogate',
    ]);
    const [imported] = await tasksOf(ada, done.projectId);
    expect(imported).toMatchObject({ title: 'Edited by hand', fields: {}, recurrence: null, estimate: null, number: 1, timeSpentMinutes: 45 });
    expect((await api(ada, `/tasks/${imported.id}/time-entries`)).map(({ userId, minutes, note }: Record<string, unknown>) => ({ userId, minutes, note }))).toEqual([
      { userId: ada.id, minutes: 45, note: 'Originally logged by Carol Elsewhere: Review' },
    ]);
    expect((await api(ada, `/tasks/${imported.id}/comments`)).map(({ authorId, text }: Record<string, unknown>) => ({ authorId, text }))).toEqual([
      { authorId: ada.id, text: 'Originally by Carol Elsewhere:\n\nHello' },
    ]);
  });
});
describePermissions(['POST /imports', 'GET /imports/{id}']);
