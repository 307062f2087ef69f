// What each scenario sends. A request is built per connection from that connection's fixture
// (its own token, project and tasks), so no two connections share a token.
import postgres from 'postgres';
import { PASSWORD } from './seed.mjs';

const STATUSES = ['TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELLED'];
const json = (token) => ({ 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) });
const auth = (token) => ({ authorization: `Bearer ${token}` });

/*
 * Every write of the write scenarios is a real change, in every run: a rewrite of what a task
 * already holds changes nothing, so the service records no event and derives no work, and the
 * scenario would measure a cheaper write than the one it names. Runs reuse a database and restart
 * their turns at 0, so a status or assignee chosen by the turn alone repeated the last run's on
 * each task. So this process keeps what it last wrote to each task (read first from the database
 * where it can be read, primeWritesFrom, else handed on by the loads before it, rememberWritten),
 * and each write moves it on from there; titles carry a stamp of this process and a serial.
 */
const lastWritten = new Map();
const RUN_STAMP = Date.now().toString(36);
let titleSerial = 0;

/**
 * Tells the write scenarios what the fixtures' write tasks hold now, read from the database at
 * `databaseUrl`, so that each scenario's first write to a task is a real change too. Fixtures
 * without write tasks (the hot task's writers, the login flood's) have nothing to read.
 */
export async function primeWritesFrom(databaseUrl, list) {
  const ids = list.flatMap((fixture) => fixture.writeTaskIds ?? []);
  if (ids.length === 0) return;
  const session = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await session`select id, status, assignee_id as "assigneeId" from tasks where id = any(${ids}::uuid[])`;
    for (const row of rows) lastWritten.set(row.id, { status: row.status, assigneeId: row.assigneeId });
  } finally {
    await session.end();
  }
}

/**
 * What this process wrote, and what an earlier load process of the run wrote (`entries` from its
 * writtenEntries): where the database cannot be read (PGlite: the server's process holds it), each
 * load takes over from the one before it, so only a task's first write of the run may rewrite
 * what it holds.
 */
export const writtenEntries = () => [...lastWritten];
export function rememberWritten(entries) {
  for (const [taskId, held] of entries) lastWritten.set(taskId, held);
}

/** The value after the one this process knows `taskId` holds for `field` (`fallback` when it knows none), remembered as held now. */
function nextOf(taskId, field, values, fallback) {
  const held = lastWritten.get(taskId) ?? {};
  const index = values.indexOf(held[field]);
  const next = index < 0 ? values[fallback % values.length] : values[(index + 1) % values.length];
  lastWritten.set(taskId, { ...held, [field]: next });
  return next;
}

/** Request builders: (fixture, turn) => autocannon request. `turn` counts the connection's requests. */
const build = {
  hello: () => ({ method: 'GET', path: '/' }),
  task: (f, turn) => ({ method: 'GET', path: `/api/v1/tasks/${f.taskIds[turn % f.taskIds.length]}`, headers: auth(f.token) }),
  project: (f) => ({ method: 'GET', path: `/api/v1/projects/${f.projectId}`, headers: auth(f.token) }),
  page: (f) => ({ method: 'GET', path: `/api/v1/tasks/project/${f.projectId}?limit=50`, headers: auth(f.token) }),
  filtered: (f) => ({
    method: 'GET',
    path: `/api/v1/tasks/project/${f.projectId}?status=IN_PROGRESS&assigneeId=me&limit=50`,
    headers: auth(f.token),
  }),
  // Not in the mix: a page of the tasks carrying either of two of the project's labels.
  labelled: (f) => ({
    method: 'GET',
    path: `/api/v1/tasks/project/${f.projectId}?labelId=${f.labelIds[0]},${f.labelIds[4]}&limit=50`,
    headers: auth(f.token),
  }),
  create: (f, turn) => ({
    method: 'POST',
    path: '/api/v1/tasks',
    headers: json(f.token),
    body: JSON.stringify({ projectId: f.projectId, title: `Bench task ${turn}`, priority: 'HIGH' }),
  }),
  // Each write moves the task to its next status: a real change every time (history, counts,
  // announcement), never a no-op rewrite of the same status.
  patch: (f, turn) => {
    const taskId = f.writeTaskIds[turn % f.writeTaskIds.length];
    return { method: 'PATCH', path: `/api/v1/tasks/${taskId}`, headers: json(f.token), body: JSON.stringify({ status: nextOf(taskId, 'status', STATUSES, turn) }) };
  },
  title: (f, turn) => ({
    method: 'PATCH',
    path: `/api/v1/tasks/${f.writeTaskIds[turn % f.writeTaskIds.length]}`,
    headers: json(f.token),
    body: JSON.stringify({ title: `Bench title ${RUN_STAMP}.${(titleSerial += 1)}` }),
  }),
  comment: (f, turn) => ({
    method: 'POST',
    path: `/api/v1/tasks/${f.writeTaskIds[turn % f.writeTaskIds.length]}/comments`,
    headers: json(f.token),
    body: JSON.stringify({ text: `Bench comment ${turn}` }),
  }),
  // A comment mentioning another member: the mention, the watchers' notifications and new watcher in its statement.
  mention: (f, turn) => ({
    method: 'POST',
    path: `/api/v1/tasks/${f.writeTaskIds[turn % f.writeTaskIds.length]}/comments`,
    headers: json(f.token),
    body: JSON.stringify({ text: `Bench question ${turn} for @mate`, mentionIds: [f.mateIds[turn % f.mateIds.length]] }),
  }),
  // Giving a task to another member: a task.assigned notification.
  assign: (f, turn) => {
    const taskId = f.writeTaskIds[turn % f.writeTaskIds.length];
    return { method: 'PATCH', path: `/api/v1/tasks/${taskId}`, headers: json(f.token), body: JSON.stringify({ assigneeId: nextOf(taskId, 'assigneeId', f.mateIds, turn) }) };
  },
  // The hot task: every connection PATCHes the same task, each as its own EDITOR (hotFixtures),
  // alternating a new title (always a change) and a status (the next one from this connection's
  // point of view; another connection may have set it already, then the PATCH changes nothing).
  hot: (f, turn) => ({
    method: 'PATCH',
    path: `/api/v1/tasks/${f.hotTaskId}`,
    headers: json(f.token),
    body: JSON.stringify(turn % 2 === 0 ? { title: `Hot title ${f.connection}.${turn}` } : { status: STATUSES[(f.connection + (turn >> 1)) % STATUSES.length] }),
  }),
  // The SDK's transport: httpBatchLink sends GET /api/trpc/<path>?batch=1&input={"0":…}.
  trpc: (f, turn) => ({
    method: 'GET',
    path: `/api/trpc/tasks.get?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { id: f.taskIds[turn % f.taskIds.length] } }))}`,
    headers: auth(f.token),
  }),
  login: (f) => ({ method: 'POST', path: '/api/v1/auth/login', headers: json(), body: JSON.stringify({ email: f.email, password: PASSWORD }) }),
};

/** 80 % reads, 20 % writes, in a fixed cycle of ten per connection. */
const MIX = ['task', 'project', 'task', 'page', 'create', 'task', 'project', 'task', 'filtered', 'patch'];
const MIX_WRITES_ROTATION = ['create', 'patch', 'comment', 'title', 'mention', 'assign'];

export function requestFor(scenario, fixture, turn) {
  if (scenario !== 'mix') return build[scenario](fixture, turn);
  const slot = MIX[turn % MIX.length];
  const isWrite = slot === 'create' || slot === 'patch';
  // Rotate the two write slots over create, status change, comment, title change, comment with a
  // mention and assignment, so all six writes are in the mix.
  const kind = isWrite ? MIX_WRITES_ROTATION[(Math.floor(turn / 5) + (slot === 'patch' ? 1 : 0)) % MIX_WRITES_ROTATION.length] : slot;
  return build[kind](fixture, turn);
}

export const SCENARIOS = Object.keys(build).concat('mix');
/** The scenarios whose connections are the hot project's writers (hotFixtures), not the usual ones. */
export const HOT_SCENARIOS = ['hot'];

/**
 * `count` requests of `scenario` to the server at `url`, 8 in flight, with fetch (the tools that
 * compare builds by cost rather than by load); the fixtures take turns. Throws on a 4xx or 5xx.
 */
export async function sendRequests(url, fixtureList, scenario, count) {
  let next = 0;
  const send = async (turn) => {
    const request = requestFor(scenario, fixtureList[turn % fixtureList.length], turn);
    const response = await fetch(url + request.path, {
      method: request.method,
      headers: { ...request.headers, ...(request.body ? { 'content-type': 'application/json' } : {}) },
      body: request.body,
    });
    await response.arrayBuffer();
    if (response.status >= 400) throw new Error(`${request.method} ${request.path}: ${response.status}`);
  };
  const worker = async () => {
    while (next < count) await send(next++);
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}
