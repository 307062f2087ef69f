// The benchmark's data set, written straight in SQL (generate_series) so it takes seconds, not minutes:
// 1 000 users, 200 projects with 5–20 members and 6 labels, 200 000 tasks (project 0 holds 50 000; three
// in four carry one or two labels), 500 000 comments.
// One more project, the hot one: an owner and 60 EDITORs, a hot task (every load connection PATCHes
// it, each as its own user) and a few probe tasks (the lag scenario comments on them).
// Every id is derived from (kind, number), so the fixtures can be computed instead of looked up.
import bcrypt from 'bcryptjs';

export const USERS = 1000;
export const PROJECTS = 200;
export const TASKS = 200_000;
export const BIG_PROJECT_TASKS = 50_000;
export const COMMENTS = 500_000;
export const LABELS_PER_PROJECT = 6;
export const PASSWORD = 'bench-password-1';
/** Tasks each load connection writes to, in turn. */
export const WRITE_TASKS = 250;

/** The hot project (number PROJECTS, after the others), its owner and its EDITORs' user numbers. */
export const HOT_PROJECT = PROJECTS;
export const HOT_OWNER = 800;
export const HOT_EDITORS = 60;
/** Task numbers after the others: the hot task, then the lag scenario's probe tasks. */
export const HOT_TASK = TASKS;
export const PROBE_TASKS = 8;

const KIND = { user: 1, project: 2, membership: 3, task: 4, comment: 5, label: 6 };

/** A valid UUID (version nibble 7) for the n-th entity of a kind. */
export const idOf = (kind, n) =>
  `01900000-0000-7000-8${KIND[kind].toString(16).padStart(3, '0')}-${n.toString(16).padStart(12, '0')}`;

export const emailOf = (n) => `user${n}@bench.test`;

// The same rules in SQL and in JS, so fixtures agree with the rows.
export const memberCount = (project) => (project === 0 ? 20 : 5 + ((project * 7) % 16));
export const memberUser = (project, k) => (project * 5 + k) % USERS;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/**
 * SQL for a board position (migration 0013): the `fractional-indexing` integer key of the number
 * `n` (below 62^4), 'd' and four base-62 digits, as the library writes integer keys, so the keys
 * sort as the numbers do and the service's moves compute between them.
 */
export const positionKeySql = (n) => `'d' || ${[3, 2, 1, 0].map((k) => `substr('${BASE62}', ((${n}) / ${62 ** k} % 62)::int + 1, 1)`).join(' || ')}`;
/** k = 0 is the owner (ADMIN); every fourth a VIEWER; the rest EDITORs. */
const roleSql = (k) => `case when ${k} = 0 then 'ADMIN' when ${k} % 4 = 3 then 'VIEWER' else 'EDITOR' end::member_role`;

function seedSql(passwordHash) {
  const id = (kind, n) =>
    `('01900000-0000-7000-8${KIND[kind].toString(16).padStart(3, '0')}-' || lpad(to_hex(${n}), 12, '0'))::uuid`;
  const members = (p) => `(case when ${p} = 0 then 20 else 5 + (${p} * 7) % 16 end)`;
  // Task n belongs to project 0 when n < 50 000, otherwise to 1 + (n - 50 000) % 199.
  const projectOfTask = (n) => `(case when ${n} < ${BIG_PROJECT_TASKS} then 0 else 1 + (${n} - ${BIG_PROJECT_TASKS}) % ${PROJECTS - 1} end)`;
  const label = (k) => id('label', `p * 10 + ${k}`);
  // A quarter of the tasks unlabelled, half with one label, a quarter with two (in id order, as the service stores them).
  const labelIds = `(case n % 4 when 0 then '{}'::uuid[] when 2 then array[${label('n % 3')}, ${label('3 + n % 3')}] else array[${label('n % 6')}] end)`;
  // Comment c is on task c % TASKS (below); the trigger that counts them is off while seeding.
  const commentCount = `(case when n < ${COMMENTS} then (${COMMENTS} - 1 - n) / ${TASKS} + 1 else 0 end)`;
  return `
set session_replication_role = replica;
insert into users (id, name, email, password_hash, token_version, created_at, updated_at)
  select ${id('user', 'n')}, 'User ' || n, 'user' || n || '@bench.test', '${passwordHash}', 0, now(), now()
  from generate_series(0, ${USERS - 1}) n;
insert into projects (id, name, description, owner_id, key, created_at, updated_at)
  select ${id('project', 'p')}, 'Project ' || p, 'Benchmark project number ' || p, ${id('user', `(p * 5) % ${USERS}`)}, 'BP' || p, now(), now()
  from generate_series(0, ${PROJECTS - 1}) p;
insert into memberships (id, project_id, user_id, role, created_at, updated_at)
  select ${id('membership', 'p * 100 + k')}, ${id('project', 'p')}, ${id('user', `(p * 5 + k) % ${USERS}`)}, ${roleSql('k')}, now(), now()
  from generate_series(0, ${PROJECTS - 1}) p, generate_series(0, 19) k
  where k < ${members('p')};
insert into labels (id, project_id, name, color, created_at, updated_at)
  select ${label('k')}, ${id('project', 'p')}, (array['Bug','Feature','Chore','Design','Docs','Ops'])[1 + k],
    (array['#d73a4a','#0e8a16','#6b7280','#a855f7','#0075ca','#f59e0b'])[1 + k], now(), now()
  from generate_series(0, ${PROJECTS - 1}) p, generate_series(0, ${LABELS_PER_PROJECT - 1}) k;
insert into tasks (id, project_id, title, description, status, priority, due_date, assignee_id, created_by_id, completed_at,
  label_ids, comment_count, number, position, created_at, updated_at)
  select ${id('task', 'n')}, ${id('project', 'p')}, 'Task ' || n || ': ship the thing',
    'A realistic description of task ' || n || ', a few words long, as people write them.',
    (array['TODO','IN_PROGRESS','IN_REVIEW','DONE','CANCELLED'])[1 + n % 5],
    (array['LOW','MEDIUM','HIGH','URGENT'])[1 + n % 4]::task_priority,
    case when n % 3 = 0 then null else now() + (n % 90) * interval '1 day' end,
    case when n % 7 = 6 then null else ${id('user', `(p * 5 + n % ${members('p')}) % ${USERS}`)} end,
    ${id('user', `(p * 5) % ${USERS}`)},
    case when n % 5 = 3 then now() else null end,
    ${labelIds}, ${commentCount}, row_number() over (partition by p order by n),
    ${positionKeySql('row_number() over (partition by p order by n)')},
    now() - (${TASKS} - n) * interval '1 second', now() - (${TASKS} - n) * interval '1 second'
  from (select n, ${projectOfTask('n')} as p from generate_series(0, ${TASKS - 1}) n) t;
insert into comments (id, task_id, project_id, author_id, text, created_at, updated_at)
  select ${id('comment', 'c')}, ${id('task', `c % ${TASKS}`)}, ${id('project', 'p')}, ${id('user', `(p * 5) % ${USERS}`)},
    'Comment ' || c || ': looks good to me, one small remark below.', now() - (${COMMENTS} - c) * interval '1 second', now()
  from (select c, ${projectOfTask(`c % ${TASKS}`)} as p from generate_series(0, ${COMMENTS - 1}) c) t;
-- Watchers, as the service keeps them: each task's creator and assignee (its commenter here is its creator).
insert into task_watchers (task_id, user_id, subscribed, created_at, updated_at)
  select id, created_by_id, true, created_at, created_at from tasks
  union
  select id, assignee_id, true, created_at, created_at from tasks where assignee_id is not null;
-- The hot project: its owner (ADMIN) and ${HOT_EDITORS} EDITORs; the hot task and the probe tasks,
-- created by the owner, unassigned; the owner watches them.
insert into projects (id, name, description, owner_id, key, created_at, updated_at)
  values (${id('project', HOT_PROJECT)}, 'Hot project', 'Every connection writes to one task here', ${id('user', HOT_OWNER)}, 'HOT', now(), now());
insert into memberships (id, project_id, user_id, role, created_at, updated_at)
  select ${id('membership', `${HOT_PROJECT * 100} + k`)}, ${id('project', HOT_PROJECT)}, ${id('user', `${HOT_OWNER} + k`)},
    case when k = 0 then 'ADMIN' else 'EDITOR' end::member_role, now(), now()
  from generate_series(0, ${HOT_EDITORS}) k;
insert into tasks (id, project_id, title, description, status, priority, created_by_id, number, position, created_at, updated_at)
  select ${id('task', 'n')}, ${id('project', HOT_PROJECT)}, case when n = ${HOT_TASK} then 'The hot task' else 'Probe task ' || n end,
    'Written by every connection at once.', 'TODO', 'MEDIUM', ${id('user', HOT_OWNER)}, n - ${HOT_TASK} + 1, ${positionKeySql(`n - ${HOT_TASK} + 1`)}, now(), now()
  from generate_series(${HOT_TASK}, ${HOT_TASK + PROBE_TASKS}) n;
insert into task_watchers (task_id, user_id, subscribed, created_at, updated_at)
  select ${id('task', 'n')}, ${id('user', HOT_OWNER)}, true, now(), now() from generate_series(${HOT_TASK}, ${HOT_TASK + PROBE_TASKS}) n;
set session_replication_role = origin;
-- Triggers were off while seeding (replica role), so the per-status task counts that the tasks
-- trigger keeps (migration 0004) are filled here once, as that migration does for existing data.
insert into project_task_counts (project_id, status, count)
  select project_id, status, count(*)::int from tasks group by project_id, status;
-- Task numbers go on after the seeded ones, and each project's key is its own (migration 0011).
update projects set next_task_number = numbered.last + 1
  from (select project_id, max(number) as last from tasks group by project_id) as numbered where projects.id = numbered.project_id;
insert into project_keys (key, project_id) select key, id from projects;
-- Each project's workflow states: the five every new project starts with (migration 0010).
insert into project_states (id, project_id, key, name, category, color, position)
  select gen_random_uuid(), p.id, d.key, d.name, d.category, d.color, d.position
  from projects as p cross join (values
    ('TODO', 'To do', 'unstarted', '#6b7280', 0), ('IN_PROGRESS', 'In progress', 'started', '#2563eb', 1),
    ('IN_REVIEW', 'In review', 'started', '#9333ea', 2), ('DONE', 'Done', 'completed', '#16a34a', 3),
    ('CANCELLED', 'Cancelled', 'cancelled', '#dc2626', 4)
  ) as d(key, name, category, color, position);
analyze;
`;
}

/** Seeds through `exec(sqlText)`, a runner of a multi-statement script on one session. */
export async function seed(exec) {
  const passwordHash = await bcrypt.hash(PASSWORD, 10);
  await exec(seedSql(passwordHash));
}

/**
 * What each load connection uses: its own user, an EDITOR of its own project (project 0, the one
 * with 50 000 tasks, is connection 0's), 20 task ids of that project to read and 250 to write, and
 * four other members of it to mention and assign.
 */
export function fixtures(connections) {
  return Array.from({ length: connections }, (_, c) => {
    const project = (c * 4) % PROJECTS;
    const user = memberUser(project, 1);
    const taskNumbers = [];
    for (let j = 0; taskNumbers.length < 20; j += 1) {
      taskNumbers.push(project === 0 ? j * 997 : BIG_PROJECT_TASKS + project - 1 + (PROJECTS - 1) * j * 3);
    }
    // Writes go to 250 tasks of the project in turn, as a team's spread over its tasks, rather
    // than rewriting the same 20 rows over and over.
    const writeNumbers = Array.from({ length: WRITE_TASKS }, (_, j) => (project === 0 ? j * 199 : BIG_PROJECT_TASKS + project - 1 + (PROJECTS - 1) * (j * 3 + 1)));
    return {
      email: emailOf(user),
      userId: idOf('user', user),
      projectId: idOf('project', project),
      labelIds: Array.from({ length: LABELS_PER_PROJECT }, (_, k) => idOf('label', project * 10 + k)),
      taskIds: taskNumbers.map((n) => idOf('task', n)),
      writeTaskIds: writeNumbers.map((n) => idOf('task', n)),
      // Other members of the project (the ADMIN and the next ones): mentioned in comments, given tasks.
      mateIds: [0, 2, 3, 4].map((k) => idOf('user', memberUser(project, k))),
    };
  });
}

export const HOT_TASK_ID = idOf('task', HOT_TASK);
export const HOT_PROJECT_ID = idOf('project', HOT_PROJECT);

/**
 * The hot task's writers: `connections` EDITORs of the hot project, each its own user (users
 * HOT_OWNER + 1 …), all PATCHing the one hot task.
 */
export function hotFixtures(connections) {
  if (connections > HOT_EDITORS - 2) throw new Error(`the hot project has ${HOT_EDITORS - 2} writers to spare, not ${connections}`);
  return Array.from({ length: connections }, (_, c) => ({
    email: emailOf(HOT_OWNER + 1 + c),
    userId: idOf('user', HOT_OWNER + 1 + c),
    projectId: HOT_PROJECT_ID,
    hotTaskId: HOT_TASK_ID,
    connection: c,
  }));
}

/**
 * The lag scenario's users: the owner (registers the webhook), the writer (the last EDITOR but one)
 * and the reader (the last EDITOR: follows the project's stream and its own notifications, and is
 * mentioned in every probe comment); the probe tasks.
 */
export const lagFixtures = () => ({
  owner: { email: emailOf(HOT_OWNER), userId: idOf('user', HOT_OWNER) },
  writer: { email: emailOf(HOT_OWNER + HOT_EDITORS - 1), userId: idOf('user', HOT_OWNER + HOT_EDITORS - 1) },
  reader: { email: emailOf(HOT_OWNER + HOT_EDITORS), userId: idOf('user', HOT_OWNER + HOT_EDITORS) },
  projectId: HOT_PROJECT_ID,
  probeTaskIds: Array.from({ length: PROBE_TASKS }, (_, k) => idOf('task', HOT_TASK + 1 + k)),
});

/** One token per connection, each for its own user, from the real login endpoint. */
export async function logIn(url, list) {
  for (const fixture of list) {
    const response = await fetch(`${url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: fixture.email, password: PASSWORD }),
    });
    if (!response.ok) throw new Error(`login of ${fixture.email} failed: ${response.status} ${await response.text()}`);
    fixture.token = (await response.json()).access_token;
  }
  return list;
}

/** Users for the login flood: members of no particular project, distinct from the readers. */
export const floodEmails = (count) => Array.from({ length: count }, (_, i) => emailOf(USERS - 1 - i));
