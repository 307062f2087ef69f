import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';

const nextLink = (headers: Record<string, unknown>) => /^<([^>]+)>; rel="next"$/.exec(String(headers.link ?? ''))?.[1];
const PRIORITY_RANK = { LOW: 0, MEDIUM: 1, HIGH: 2, URGENT: 3 } as const;

interface TaskBody {
  id: string;
  title: string;
  description: string;
  status: string;
  priority: keyof typeof PRIORITY_RANK;
  dueDate: string | null;
  assigneeId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** PostgreSQL's order for each sort: NULLs last ascending and first descending, ties by id. */
function expectedOrder(tasks: TaskBody[], sort: string): string[] {
  const descending = sort.startsWith('-');
  const field = (descending ? sort.slice(1) : sort) as 'createdAt' | 'updatedAt' | 'dueDate' | 'priority' | 'title';
  const key = (task: TaskBody) => (field === 'priority' ? PRIORITY_RANK[task.priority] : task[field]);
  const compare = (a: TaskBody, b: TaskBody) => {
    const [left, right] = [key(a), key(b)];
    if (left === right) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    if (left === null) return 1;
    if (right === null) return -1;
    // Titles are plain ASCII letters and digits here, so byte order and the database collation agree.
    return left < right ? -1 : 1;
  };
  const sorted = [...tasks].sort(compare);
  return (descending ? sorted.reverse() : sorted).map((task) => task.id);
}

describe('task lists: keyset paging under every sort, filters, search', () => {
  let t: TestApp;
  let owner: TestUser;
  let editor: TestUser;
  let outsider: TestUser;
  let projectId: string;
  const tasks: TaskBody[] = [];

  const listAll = async (url: string, user = owner): Promise<{ ids: string[]; pages: number }> => {
    const ids: string[] = [];
    let next: string | undefined = url;
    let pages = 0;
    while (next) {
      const response = await t.request('GET', next, { token: user.token });
      expect(response.status, next).toBe(200);
      ids.push(...response.body.map((task: TaskBody) => task.id));
      next = nextLink(response.headers);
      pages += 1;
    }
    return { ids, pages };
  };

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    editor = await registerUser(t, 'Editor');
    outsider = await registerUser(t, 'Outsider');
    projectId = (await createProject(t, owner)).id;
    await invite(t, owner, projectId, editor, 'EDITOR');
    const statuses = ['TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELLED'];
    const priorities = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'];
    // 23 tasks: repeated titles and priorities (ties), a third without due date (NULLs), shared due dates.
    for (let index = 0; index < 23; index += 1) {
      const task = await createTask(t, owner, projectId, {
        title: `Task ${String.fromCharCode(65 + (index % 7))}`,
        description: index % 5 === 0 ? `Contains the Needle_${index} and 100% cotton` : `plain text ${index}`,
        status: statuses[index % 5],
        priority: priorities[index % 4],
        dueDate: index % 3 === 0 ? null : `2027-0${1 + (index % 4)}-15T12:00:00+02:00`,
        assigneeId: index % 4 === 0 ? editor.id : index % 4 === 1 ? owner.id : null,
      });
      tasks.push(task as unknown as TaskBody);
    }
    // Some updates so updatedAt differs from createdAt order.
    for (const task of tasks.filter((_, index) => index % 6 === 0)) {
      const updated = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: owner.token, body: { description: `${task.description} (edited)` } });
      Object.assign(task, updated.body);
    }
  });
  afterAll(() => t.close());

  const SORTS = ['createdAt', 'updatedAt', 'dueDate', 'priority', 'title'].flatMap((field) => [field, `-${field}`]);

  it.each(SORTS)('pages sort=%s in pages of 4 without skipping or repeating a task', async (sort) => {
    const { ids, pages } = await listAll(`/api/v1/tasks/project/${projectId}?sort=${sort}&limit=4`);
    expect(pages).toBe(6);
    expect(ids).toEqual(expectedOrder(tasks, sort));
  });

  it('uses the default page size of 100 and the maximum of 500', async () => {
    const response = await t.request('GET', `/api/v1/tasks/project/${projectId}`, { token: owner.token });
    expect(response.body).toHaveLength(23);
    expect(response.headers.link).toBeUndefined();
    expect((await t.request('GET', `/api/v1/tasks/project/${projectId}?limit=500`, { token: owner.token })).status).toBe(200);
  });

  it('keeps the other query values in the Link header', async () => {
    const response = await t.request('GET', `/api/v1/tasks/project/${projectId}?status=TODO,DONE&sort=-title&limit=2`, { token: owner.token });
    const link = nextLink(response.headers)!;
    const url = new URL(link, 'http://x');
    expect(url.pathname).toBe(`/api/v1/tasks/project/${projectId}`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ status: 'TODO,DONE', sort: '-title', limit: '2' });
  });

  it('never skips or repeats while tasks are being added between pages', async () => {
    // A project of the test's own: the tasks it adds change no other test's lists.
    const growing = (await createProject(t, owner, 'Growing')).id;
    await invite(t, owner, growing, editor, 'EDITOR');
    for (let index = 0; index < 12; index += 1) {
      await createTask(t, owner, growing, {
        title: `Task ${String.fromCharCode(65 + (index % 5))}`,
        priority: ['LOW', 'MEDIUM', 'HIGH', 'URGENT'][index % 4],
        dueDate: index % 3 === 0 ? null : `2027-0${1 + (index % 4)}-15T12:00:00Z`,
      });
    }
    const bySort: Record<string, string[]> = {};
    for (const sort of ['createdAt', '-createdAt', 'dueDate', '-priority', 'title']) {
      const before = (await listAll(`/api/v1/tasks/project/${growing}?sort=${sort}&limit=500`)).ids;
      const seen: string[] = [];
      let next: string | undefined = `/api/v1/tasks/project/${growing}?sort=${sort}&limit=6`;
      let added = 0;
      while (next) {
        const response = await t.request('GET', next, { token: owner.token });
        seen.push(...response.body.map((task: TaskBody) => task.id));
        next = nextLink(response.headers);
        // Another client adds a task (with varied sort keys) after every page.
        await createTask(t, editor, growing, { title: `Task ${String.fromCharCode(65 + (added % 9))}`, priority: 'HIGH', dueDate: added % 2 ? null : '2027-02-15T10:00:00Z' });
        added += 1;
      }
      expect(new Set(seen).size, sort).toBe(seen.length);
      // Every task that existed when paging began was served, in order.
      expect(seen.filter((id) => before.includes(id)), sort).toEqual(before);
      bySort[sort] = seen;
    }
    expect(Object.keys(bySort)).toHaveLength(5);
  }, 120_000);

  it('refuses invalid cursors and limits with 400', async () => {
    const base = `/api/v1/tasks/project/${projectId}`;
    const encode = (values: unknown) => Buffer.from(JSON.stringify(values)).toString('base64url');
    const id = tasks[0]!.id;
    const cases = [
      '?limit=0',
      '?limit=501',
      '?limit=-1',
      '?limit=1.5',
      '?limit=ten',
      '?cursor=!!!',
      `?cursor=${encode('not an array')}`,
      `?cursor=${encode([1, 2, 3])}`,
      `?cursor=${encode(['2027-01-01T00:00:00.000Z', 'not-a-uuid'])}`,
      `?cursor=${encode(['yesterday', id])}`,
      `?sort=priority&cursor=${encode(['SUPREME', id])}`,
      `?sort=dueDate&cursor=${encode([42, id])}`,
      `?sort=title&cursor=${encode([null, id])}`,
      '?sort=rank',
      '?status=DONE,later',
      '?priority=low',
      '?assigneeId=someone',
      '?dueBefore=tomorrow',
    ];
    for (const query of cases) {
      const response = await t.request('GET', `${base}${query}`, { token: owner.token });
      expect(response.status, query).toBe(400);
      expect(response.body.code, query).toBe('BAD_REQUEST');
    }
    // A cursor of one sort used with another is refused or served consistently, never a 500.
    const createdCursor = encode(['2027-01-01T00:00:00.000Z', id]);
    expect((await t.request('GET', `${base}?sort=title&cursor=${createdCursor}`, { token: owner.token })).status).toBe(200);
    expect((await t.request('GET', `${base}?sort=priority&cursor=${createdCursor}`, { token: owner.token })).status).toBe(400);
  });

  it('filters by status, priority, assignee (id, me, none) and due dates, combined', async () => {
    const ids = async (query: string, user = owner) => (await listAll(`/api/v1/tasks/project/${projectId}?limit=500&${query}`, user)).ids.sort();
    const where = (predicate: (task: TaskBody) => boolean) => tasks.filter(predicate).map((task) => task.id).sort();

    expect(await ids('status=TODO,DONE')).toEqual(where((task) => ['TODO', 'DONE'].includes(task.status)));
    // Repeated, reordered and padded values filter the same (the list is one set of values).
    expect(await ids('status=DONE,%20TODO,DONE,TODO')).toEqual(where((task) => ['TODO', 'DONE'].includes(task.status)));
    expect(await ids('priority=LOW,URGENT,LOW,MEDIUM,HIGH')).toEqual(where(() => true));
    expect(await ids('priority=URGENT')).toEqual(where((task) => task.priority === 'URGENT'));
    expect(await ids(`assigneeId=${editor.id}`)).toEqual(where((task) => task.assigneeId === editor.id));
    expect(await ids('assigneeId=me')).toEqual(where((task) => task.assigneeId === owner.id));
    expect(await ids('assigneeId=me', editor)).toEqual(where((task) => task.assigneeId === editor.id));
    expect(await ids('assigneeId=none')).toEqual(where((task) => task.assigneeId === null));
    const cut = '2027-03-01T00:00:00Z';
    expect(await ids(`dueBefore=${cut}`)).toEqual(where((task) => task.dueDate !== null && task.dueDate < '2027-03-01T00:00:00.000Z'));
    expect(await ids(`dueAfter=${cut}`)).toEqual(where((task) => task.dueDate !== null && task.dueDate > '2027-03-01T00:00:00.000Z'));
    expect(await ids(`status=TODO,IN_PROGRESS,IN_REVIEW&priority=LOW,HIGH&dueAfter=2027-01-01T00:00:00Z&assigneeId=none`)).toEqual(
      where(
        (task) =>
          ['TODO', 'IN_PROGRESS', 'IN_REVIEW'].includes(task.status) &&
          ['LOW', 'HIGH'].includes(task.priority) &&
          task.dueDate !== null &&
          task.assigneeId === null,
      ),
    );
  });

  it('searches title and description case-insensitively, with % and _ taken literally', async () => {
    const ids = async (q: string) => (await listAll(`/api/v1/tasks/project/${projectId}?limit=500&q=${encodeURIComponent(q)}`)).ids.sort();
    const where = (predicate: (task: TaskBody) => boolean) => tasks.filter(predicate).map((task) => task.id).sort();
    expect(await ids('needle')).toEqual(where((task) => task.description.toLowerCase().includes('needle')));
    expect((await ids('needle')).length).toBeGreaterThan(0);
    expect(await ids('100%')).toEqual(where((task) => task.description.includes('100%')));
    expect(await ids('needle_1')).toEqual(where((task) => task.description.toLowerCase().includes('needle_1')));
    expect(await ids('%')).toEqual(where((task) => task.description.includes('%')));
    expect(await ids('TASK c')).toEqual(where((task) => task.title === 'Task C'));
    expect(await ids('no such text anywhere')).toEqual([]);
  });

  it("pages the caller's tasks across projects (GET /tasks?assigneeId=me) and over tRPC", async () => {
    const second = await createProject(t, editor, 'Second');
    const elsewhere = await createTask(t, editor, second.id, { assigneeId: editor.id });
    const mine = await listAll('/api/v1/tasks?assigneeId=me&limit=2', editor);
    const expected = [...tasks.filter((task) => task.assigneeId === editor.id).map((task) => task.id), elsewhere.id];
    expect(new Set(mine.ids).size).toBe(mine.ids.length);
    expect(mine.ids.sort()).toEqual(expected.sort());
    expect((await listAll('/api/v1/tasks?assigneeId=me', outsider)).ids).toEqual([]);

    const input = encodeURIComponent(JSON.stringify({ assigneeId: 'me', limit: 2 }));
    const page = await t.request('GET', `/api/trpc/tasks.listMine?input=${input}`, { token: editor.token });
    expect(page.body.result.data.items).toHaveLength(2);
    expect(page.body.result.data.nextCursor).toEqual(expect.any(String));
  });

  it('hides a project from non-members (404) and pages over tRPC with the same cursor', async () => {
    expect((await t.request('GET', `/api/v1/tasks/project/${projectId}`, { token: outsider.token })).status).toBe(404);
    // Even with a query the owner would get a 400 for: the project is invisible to them first.
    for (const query of ['?cursor=!!!']) {
      expect((await t.request('GET', `/api/v1/tasks/project/${projectId}${query}`, { token: outsider.token })).status, query).toBe(404);
      expect((await t.request('GET', `/api/v1/tasks/project/${projectId}${query}`, { token: owner.token })).status, query).toBe(400);
    }
    const input = encodeURIComponent(JSON.stringify({ projectId, sort: '-dueDate', limit: 5 }));
    const page = await t.request('GET', `/api/trpc/tasks.listForProject?input=${input}`, { token: owner.token });
    expect(page.status).toBe(200);
    const rest = await t.request('GET', `/api/v1/tasks/project/${projectId}?sort=-dueDate&limit=5`, { token: owner.token });
    expect(page.body.result.data.items.map((task: TaskBody) => task.id)).toEqual(rest.body.map((task: TaskBody) => task.id));
    expect(nextLink(rest.headers)).toContain(`cursor=${page.body.result.data.nextCursor}`);
  });
});

describe('task lists sorted by status (workflow order) and by assignee (name, any case)', () => {
  let t: TestApp;
  let owner: TestUser;
  let people: TestUser[];
  let projectId: string;
  /** The project's states' keys in board order, after the reorder below. */
  let stateOrder: string[];
  const tasks: TaskBody[] = [];
  const base = () => `/api/v1/tasks/project/${projectId}`;

  const listAll = async (url: string): Promise<string[]> => {
    const ids: string[] = [];
    let next: string | undefined = url;
    while (next) {
      const response = await t.request('GET', next, { token: owner.token });
      expect(response.status, next).toBe(200);
      ids.push(...response.body.map((task: TaskBody) => task.id));
      next = nextLink(response.headers);
    }
    return ids;
  };

  /** The order the API promises: the key ascending (NULLs last), ties by id; descending is the reverse. */
  const ordered = (key: (task: TaskBody) => string | number | null, descending: boolean, subset = tasks) => {
    const sorted = [...subset].sort((a, b) => {
      const [left, right] = [key(a), key(b)];
      if (left === right) return a.id < b.id ? -1 : 1;
      if (left === null) return 1;
      if (right === null) return -1;
      return left < right ? -1 : 1;
    });
    return (descending ? sorted.reverse() : sorted).map((task) => task.id);
  };
  const nameOf = (task: TaskBody) => people.find((person) => person.id === task.assigneeId)?.name.toLowerCase() ?? null;
  const placeOf = (task: TaskBody) => stateOrder.indexOf(task.status);

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'zed Owner');
    // Names whose order by case (byte order) differs from their order regardless of case.
    people = [owner, await registerUser(t, 'bea'), await registerUser(t, 'Adam'), await registerUser(t, 'Carl')];
    projectId = (await createProject(t, owner, 'Sorted')).id;
    for (const person of people.slice(1)) await invite(t, owner, projectId, person, 'EDITOR');
    // A workflow whose board order is neither the keys' alphabet nor their creation: DONE first,
    // and a new state in the middle.
    const states = await t.request('GET', `/api/v1/projects/${projectId}/states`, { token: owner.token });
    const done = states.body.find((state: { key: string }) => state.key === 'DONE');
    expect((await t.request('PATCH', `/api/v1/projects/${projectId}/states/${done.id}`, { token: owner.token, body: { position: 0 } })).status).toBe(200);
    const qa = await t.request('POST', `/api/v1/projects/${projectId}/states`, { token: owner.token, body: { name: 'In QA', category: 'started' } });
    expect((await t.request('PATCH', `/api/v1/projects/${projectId}/states/${qa.body.id}`, { token: owner.token, body: { position: 2 } })).status).toBe(200);
    stateOrder = (await t.request('GET', `/api/v1/projects/${projectId}/states`, { token: owner.token })).body.map((state: { key: string }) => state.key);
    expect(stateOrder).toEqual(['DONE', 'TODO', 'IN_QA', 'IN_PROGRESS', 'IN_REVIEW', 'CANCELLED']);
    // 26 tasks: many per state and per assignee (ties that straddle pages of 3), a quarter unassigned.
    const statuses = ['IN_REVIEW', 'TODO', 'DONE', 'IN_QA', 'IN_PROGRESS', 'CANCELLED', 'TODO'];
    for (let index = 0; index < 26; index += 1) {
      const assignee = index % 5 === 4 ? null : people[index % 4]!.id;
      tasks.push((await createTask(t, owner, projectId, { title: `Task ${index}`, status: statuses[index % 7], assigneeId: assignee })) as unknown as TaskBody);
    }
  });
  afterAll(() => t.close());

  it.each(['status', '-status'])('pages sort=%s in pages of 3 by the workflow order, ties by id, none lost or repeated', async (sort) => {
    const ids = await listAll(`${base()}?sort=${sort}&limit=3`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(ordered(placeOf, sort.startsWith('-')));
  });

  it.each(['assignee', '-assignee'])('pages sort=%s in pages of 3 by name regardless of case, unassigned last ascending', async (sort) => {
    const ids = await listAll(`${base()}?sort=${sort}&limit=3`);
    expect(new Set(ids).size).toBe(ids.length);
    const expected = ordered(nameOf, sort.startsWith('-'));
    expect(ids).toEqual(expected);
    const unassigned = tasks.filter((task) => task.assigneeId === null).map((task) => task.id);
    const ends = sort.startsWith('-') ? ids.slice(0, unassigned.length) : ids.slice(-unassigned.length);
    expect(ends.sort()).toEqual(unassigned.sort());
    // Adam, bea, Carl, zed Owner: not the byte order of the names (which puts lower case last).
    const firstOf = (id: string) => nameOf(tasks.find((task) => task.id === id)!);
    if (!sort.startsWith('-')) expect([...new Set(ids.map(firstOf))]).toEqual(['adam', 'bea', 'carl', 'zed owner', null]);
  });

  it('pages page by page with a limit of 1 and with filters, and across the caller\'s projects', async () => {
    expect(await listAll(`${base()}?sort=-status&limit=1`)).toEqual(ordered(placeOf, true));
    const filtered = tasks.filter((task) => ['TODO', 'DONE'].includes(task.status));
    expect(await listAll(`${base()}?status=TODO,DONE&sort=assignee&limit=2`)).toEqual(ordered(nameOf, false, filtered));
    const unassigned = tasks.filter((task) => task.assigneeId === null);
    expect(await listAll(`${base()}?assigneeId=none&sort=status&limit=2`)).toEqual(ordered(placeOf, false, unassigned));
    // Across projects: each task by its own project's workflow (another project keeps the default order).
    const other = await createProject(t, owner, 'Other');
    const extra = await createTask(t, owner, other.id, { status: 'DONE', assigneeId: owner.id });
    const mine = await listAll(`/api/v1/tasks?assigneeId=me&sort=status&limit=2`);
    expect(new Set(mine).size).toBe(mine.length);
    expect(mine.sort()).toEqual([...tasks.filter((task) => task.assigneeId === owner.id).map((task) => task.id), extra.id].sort());
  });

  it('keeps every task in its order while tasks are added between pages', async () => {
    for (const sort of ['status', '-assignee']) {
      const before = await listAll(`${base()}?sort=${sort}&limit=500`);
      const seen: string[] = [];
      let next: string | undefined = `${base()}?sort=${sort}&limit=4`;
      let added = 0;
      while (next) {
        const response = await t.request('GET', next, { token: owner.token });
        seen.push(...response.body.map((task: TaskBody) => task.id));
        next = nextLink(response.headers);
        const person = people[added % people.length]!;
        const task = await createTask(t, person, projectId, { status: stateOrder[added % stateOrder.length], assigneeId: added % 3 ? person.id : null });
        tasks.push(task as unknown as TaskBody);
        added += 1;
      }
      expect(new Set(seen).size, sort).toBe(seen.length);
      expect(seen.filter((id) => before.includes(id)), sort).toEqual(before);
    }
  });

  it('refuses a cursor whose value is not of the sort (400), and a renamed assignee moves the task', async () => {
    const encode = (values: unknown) => Buffer.from(JSON.stringify(values)).toString('base64url');
    const id = tasks[0]!.id;
    for (const query of [`sort=status&cursor=${encode(['TODO', id])}`, `sort=status&cursor=${encode([-1, id])}`, `sort=status&cursor=${encode([1.5, id])}`, `sort=assignee&cursor=${encode([3, id])}`, `sort=-assignee&cursor=${encode(['bea', 'x'])}`]) {
      const response = await t.request('GET', `${base()}?${query}`, { token: owner.token });
      expect(response.status, query).toBe(400);
      expect(response.body.reason, query).toBe('INVALID_CURSOR');
    }
    // A cursor at a null (unassigned) or at a status's place is served.
    expect((await t.request('GET', `${base()}?sort=assignee&cursor=${encode([null, id])}`, { token: owner.token })).status).toBe(200);
    expect((await t.request('GET', `${base()}?sort=-status&cursor=${encode([3, id])}`, { token: owner.token })).status).toBe(200);
    // The sort follows the assignee's current name.
    const adam = people[2]!;
    expect((await t.request('PATCH', '/api/v1/auth/me', { token: adam.token, body: { name: 'Zoe' } })).status).toBe(200);
    adam.name = 'Zoe';
    expect(await listAll(`${base()}?sort=assignee&limit=5`)).toEqual(ordered(nameOf, false));
  });
});
