// What each scenario sends. A request is built per connection from that connection's fixture
// (its own token, project and tasks), so no two connections share a token.
import { PASSWORD } from './seed.mjs';

const STATUSES = ['TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELLED'];
const json = (token) => ({ 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) });
const auth = (token) => ({ authorization: `Bearer ${token}` });

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
  patch: (f, turn) => ({
    method: 'PATCH',
    path: `/api/v1/tasks/${f.writeTaskIds[turn % f.writeTaskIds.length]}`,
    headers: json(f.token),
    // Each round over the connection's tasks moves every task to its next status: a real change
    // every time (history, counts, announcement), never a no-op rewrite of the same status.
    body: JSON.stringify({ status: STATUSES[((turn % f.writeTaskIds.length) + Math.floor(turn / f.writeTaskIds.length)) % STATUSES.length] }),
  }),
  title: (f, turn) => ({
    method: 'PATCH',
    path: `/api/v1/tasks/${f.writeTaskIds[turn % f.writeTaskIds.length]}`,
    headers: json(f.token),
    body: JSON.stringify({ title: `Bench title ${turn}` }),
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
  assign: (f, turn) => ({
    method: 'PATCH',
    path: `/api/v1/tasks/${f.writeTaskIds[turn % f.writeTaskIds.length]}`,
    headers: json(f.token),
    body: JSON.stringify({ assigneeId: f.mateIds[(turn + Math.floor(turn / f.writeTaskIds.length)) % f.mateIds.length] }),
  }),
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
