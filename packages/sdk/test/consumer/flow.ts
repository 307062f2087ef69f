/**
 * The whole interface flow through the packed SDK, as a consumer project would write it.
 * Type-checked strict with skipLibCheck: false, then run against a live server (BASE_URL).
 */
import assert from 'node:assert/strict';
import { createTasklaneClient, paginate, TasklaneError, type TasklaneClient } from '@tasklane/sdk';
import { EventSource } from 'eventsource';

const baseUrl = process.env.BASE_URL;
assert.ok(baseUrl, 'BASE_URL is required');
const unique = Date.now().toString(36);

/** Awaits a call that must fail and returns its TasklaneError. */
async function failure(call: Promise<unknown>): Promise<TasklaneError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof TasklaneError, `expected a TasklaneError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to fail');
}

async function registered(name: string): Promise<{ client: TasklaneClient; id: string; email: string }> {
  const client = createTasklaneClient({ baseUrl: baseUrl! });
  const email = `${name.toLowerCase()}-${unique}@example.com`;
  const session = await client.auth.register.mutate({ name, email, password: 'secret-password' });
  assert.equal(session.token_type, 'Bearer');
  assert.equal(client.getToken(), session.access_token, 'register stores the token');
  return { client, id: session.user.id, email };
}

const ada = await registered('Ada');
const grace = await registered('Grace');

// The stored token authenticates later calls.
const me = await ada.client.auth.me.query();
assert.deepEqual(me, { id: ada.id, name: 'Ada', email: ada.email });

// Typed domain errors: branch on reason, not on message text.
const taken = await failure(ada.client.auth.register.mutate({ name: 'Ada again', email: ada.email, password: 'secret-password' }));
assert.equal(taken.reason, 'EMAIL_TAKEN');
assert.equal(taken.code, 'CONFLICT');
assert.equal(taken.httpStatus, 409);

const invalid = await failure(ada.client.auth.register.mutate({ name: '', email: 'not-an-email', password: 'secret-password' }));
assert.equal(invalid.code, 'BAD_REQUEST');
assert.equal(invalid.httpStatus, 400);
assert.deepEqual(invalid.issues?.map((issue) => issue.path.join('.')).sort(), ['email', 'name']);

const wrongPassword = await failure(createTasklaneClient({ baseUrl }).auth.login.mutate({ email: ada.email, password: 'wrong-password' }));
assert.equal(wrongPassword.httpStatus, 401);
assert.equal(wrongPassword.code, 'UNAUTHORIZED');

// Login returns (and stores) a fresh token.
const fresh = createTasklaneClient({ baseUrl });
const login = await fresh.auth.login.mutate({ email: ada.email, password: 'secret-password' });
assert.equal(login.user.id, ada.id);
assert.equal(fresh.getToken(), login.access_token);

// Projects
const project = await ada.client.projects.create.mutate({ name: 'Launch', description: 'The v1 launch' });
assert.equal(project.ownerId, ada.id);
assert.equal((await ada.client.projects.get.query({ id: project.id })).name, 'Launch');
const renamed = await ada.client.projects.update.mutate({ id: project.id, name: 'Launch 2' });
assert.equal(renamed.name, 'Launch 2');
assert.ok((await ada.client.projects.list.query()).some((listed) => listed.id === project.id));

// Non-members do not see the project.
const hidden = await failure(grace.client.projects.get.query({ id: project.id }));
assert.equal(hidden.httpStatus, 404);

// Members
const member = await ada.client.members.invite.mutate({ id: project.id, email: grace.email, role: 'VIEWER' });
assert.equal(member.userId, grace.id);
assert.equal(member.role, 'VIEWER');
const viewerWrite = await failure(grace.client.tasks.create.mutate({ projectId: project.id, title: 'Not allowed' }));
assert.equal(viewerWrite.httpStatus, 403);
const promoted = await ada.client.members.changeRole.mutate({ id: project.id, memberId: member.id, role: 'EDITOR' });
assert.equal(promoted.role, 'EDITOR');
const again = await failure(ada.client.members.invite.mutate({ id: project.id, email: grace.email }));
assert.equal(again.reason, 'ALREADY_MEMBER');

// Tasks
const created = [];
for (let index = 1; index <= 5; index += 1) {
  created.push(await grace.client.tasks.create.mutate({ projectId: project.id, title: `Task ${index}`, priority: 'HIGH' }));
}
const first = created[0]!;
assert.equal(first.status, 'TODO');
assert.equal(first.createdById, grace.id);
const done = await ada.client.tasks.update.mutate({ id: first.id, status: 'DONE', assigneeId: grace.id });
assert.equal(done.status, 'DONE');
assert.ok(done.completedAt, 'completedAt is set on DONE');
assert.equal((await grace.client.tasks.get.query({ id: first.id })).assigneeId, grace.id);
assert.equal((await ada.client.tasks.listForProject.query({ projectId: project.id })).length, 5);

// paginate() walks every page of a multi-page list.
const pages: number[] = [];
const paged = [];
for await (const task of paginate(
  {
    query: async (input: { projectId: string; limit: number; cursor?: string }) => {
      const page = await ada.client.tasks.listForProjectPage.query(input);
      pages.push(page.items.length);
      return page;
    },
  },
  { projectId: project.id, limit: 2 },
)) {
  paged.push(task.id);
}
assert.deepEqual(pages, [2, 2, 1]);
assert.deepEqual(paged, created.map((task) => task.id));
const mine = [];
for await (const task of paginate(grace.client.tasks.listMinePage, { assigneeId: 'me', limit: 1 })) mine.push(task.id);
assert.deepEqual(mine, [first.id]);

// Comments
const comment = await grace.client.comments.create.mutate({ id: first.id, text: 'Shipped' });
assert.equal(comment.authorId, grace.id);
assert.equal(comment.taskId, first.id);

// Live: the project's event stream as a typed subscription (Node 20 has no global EventSource, so the
// `eventsource` package is passed in). Replay from the start of the project's history, then a live event.
const live = createTasklaneClient({ baseUrl: baseUrl!, token: ada.client.getToken(), EventSource });
const seen = await new Promise<string[]>((resolve, reject) => {
  const types: string[] = [];
  let liveTaskRequested = false;
  const timer = setTimeout(() => {
    subscription.unsubscribe();
    reject(new Error(`live events timed out; got ${types.join(', ')}`));
  }, 15_000);
  const subscription = live.projects.events.subscribe(
    { projectId: project.id, lastEventId: '0' },
    {
      onData: ({ data }) => {
        types.push(data.type);
        if (data.type === 'comment.created' && !liveTaskRequested) {
          liveTaskRequested = true;
          grace.client.tasks.create.mutate({ projectId: project.id, title: 'Seen live' }).catch(reject);
        }
        if (data.type === 'task.created' && (data.resource as { title?: string }).title === 'Seen live') {
          clearTimeout(timer);
          subscription.unsubscribe();
          resolve(types);
        }
      },
      onError: (error) => {
        clearTimeout(timer);
        reject(error);
      },
    },
  );
});
assert.equal(seen[0], 'project.created');
assert.ok(seen.includes('member.added'), `replayed history: ${seen.join(', ')}`);
assert.equal(seen.at(-1), 'task.created');

// Deletes
assert.deepEqual(await grace.client.tasks.delete.mutate({ id: first.id }), { message: 'Task deleted' });
assert.equal((await failure(ada.client.tasks.get.query({ id: first.id }))).httpStatus, 404);
assert.deepEqual(await ada.client.projects.delete.mutate({ id: project.id }), { message: 'Project deleted' });

// A token can be cleared or replaced.
ada.client.setToken(undefined);
const anonymous = await failure(ada.client.auth.me.query());
assert.equal(anonymous.code, 'UNAUTHORIZED');
assert.equal(anonymous.httpStatus, 401);
ada.client.setToken(grace.client.getToken());
assert.equal((await ada.client.auth.me.query()).id, grace.id);

// The auth rate limit answers the tRPC client in its own error shape.
let limited: TasklaneError | undefined;
for (let attempt = 0; attempt < 50 && !limited; attempt += 1) {
  const error = await failure(fresh.auth.login.mutate({ email: ada.email, password: 'wrong-password' }));
  if (error.httpStatus === 429) limited = error;
  else assert.equal(error.httpStatus, 401);
}
assert.ok(limited, 'the rate limit answered 429');
assert.equal(limited.code, 'TOO_MANY_REQUESTS');
assert.equal(limited.reason, 'RATE_LIMITED');

console.log('sdk flow ok');
