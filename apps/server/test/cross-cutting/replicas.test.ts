import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports';
import { startPrimaryAndReplica } from '../support/replica';
import { call as send, runTasklane, startServerProcess } from '../support/server-process';

const onPostgres = process.env.TEST_DB === 'postgres';
const LSN = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/;

/** Statements each database role ran, from the metrics. */
async function statementsByRole(baseUrl: string): Promise<{ primary: number; replica: number }> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const read = (role: string) => Number(new RegExp(`^tasklane_db_statements_total\\{role="${role}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 'NaN');
  return { primary: read('primary'), replica: read('replica') };
}

describe('DATABASE_REPLICA_URLS', () => {
  it('refuses replicas on the embedded database, saying why', async () => {
    const result = await runTasklane({ DATABASE_REPLICA_URLS: 'postgres://postgres@127.0.0.1:1/none' }, 'serve');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DATABASE_REPLICA_URLS');
  });

  it('refuses a replica address that is not a PostgreSQL URL', async () => {
    const result = await runTasklane({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', DATABASE_REPLICA_URLS: 'postgres://ok@127.0.0.1:2/x, mysql://no' }, 'serve');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DATABASE_REPLICA_URLS');
  });
});

describe.runIf(onPostgres)('a real primary and a streaming replica', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('serves reads from the replica, a writer\'s own reads from wherever has replayed the write, and survives the replica stopping', async () => {
    const pair = await startPrimaryAndReplica();
    cleanups.push(pair.close);
    // A generous lag, so that a read without a position reaches the paused replica at any machine's pace.
    const server = await startServerProcess(
      { DATABASE_URL: pair.primaryUrl, DATABASE_REPLICA_URLS: pair.replicaUrl, REPLICA_MAX_LAG_MS: '60000', DATABASE_POOL_SIZE: '3' },
      await freePort(),
    );
    cleanups.push(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    });
    const { baseUrl } = server;
    const register = async (name: string) => {
      const response = await send(baseUrl, 'POST', '/api/v1/auth/register', { body: { name, email: `${name.toLowerCase()}@example.com`, password: 'secret-password' } });
      expect(response.status).toBe(201);
      expect(response.headers.get('tasklane-lsn')).toMatch(LSN);
      return response.body.access_token as string;
    };
    const alice = await register('Alice');
    const bob = await register('Bob');
    const project = await send(baseUrl, 'POST', '/api/v1/projects', { token: alice, body: { name: 'Replicated' } });
    expect(project.status).toBe(201);
    expect((await send(baseUrl, 'POST', `/api/v1/projects/${project.body.id}/members/invite`, { token: alice, body: { email: 'bob@example.com', role: 'VIEWER' } })).status).toBe(201);
    const created = await send(baseUrl, 'POST', '/api/v1/tasks', { token: alice, body: { projectId: project.body.id, title: 'Draft' } });
    expect(created.status).toBe(201);
    const listPath = `/api/v1/tasks/project/${project.body.id}`;
    const titles = (response: { body: { title: string }[] }) => response.body.map((task) => task.title);

    // The replica replays the task, then stops replaying: from now on it is behind the primary.
    const replica = postgres(pair.replicaUrl, { max: 1, onnotice: () => {} });
    cleanups.push(() => replica.end());
    for (;;) {
      const [row] = await replica<{ done: boolean }[]>`select pg_last_wal_replay_lsn() >= ${created.headers.get('tasklane-lsn')!}::pg_lsn as done`;
      if (row!.done) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await replica`select pg_wal_replay_pause()`;

    const renamed = await send(baseUrl, 'PATCH', `/api/v1/tasks/${created.body.id}`, { token: alice, body: { title: 'Final' } });
    expect(renamed.status).toBe(200);
    const position = renamed.headers.get('tasklane-lsn')!;
    expect(position).toMatch(LSN);
    expect(renamed.headers.get('set-cookie')).toContain(`tasklane_lsn=${position}`);

    // Alice brings her write's position back (the header, or the cookie): she reads her rename.
    const before = await statementsByRole(baseUrl);
    expect(titles(await send(baseUrl, 'GET', listPath, { token: alice, headers: { 'tasklane-lsn': position } }))).toEqual(['Final']);
    expect(titles(await send(baseUrl, 'GET', listPath, { token: alice, headers: { cookie: `tasklane_lsn=${position}` } }))).toEqual(['Final']);
    // Another tab's older header with this tab's newer cookie: the later position wins.
    const older = created.headers.get('tasklane-lsn')!;
    expect(titles(await send(baseUrl, 'GET', listPath, { token: alice, headers: { 'tasklane-lsn': older, cookie: `tasklane_lsn=${position}` } }))).toEqual(['Final']);
    const afterAlice = await statementsByRole(baseUrl);
    expect(afterAlice.replica).toBe(before.replica);

    // Bob brings none: the replica, within REPLICA_MAX_LAG_MS, serves him what it has.
    const bobs = await send(baseUrl, 'GET', listPath, { token: bob });
    expect(bobs.status).toBe(200);
    expect(titles(bobs)).toEqual(['Draft']);
    expect((await statementsByRole(baseUrl)).replica).toBeGreaterThan(afterAlice.replica);
    // A search is a read too (its statements start with `with` and `explain`): the replica answers it, and it claims no write.
    const found = await send(baseUrl, 'GET', '/api/v1/search?q=draft', { token: bob });
    expect(found.status).toBe(200);
    expect(found.body.map((hit: { task: { title: string } }) => hit.task.title)).toEqual(['Draft']);
    expect(found.headers.get('tasklane-lsn')).toBeNull();
    // A position that is not one is ignored, as if none was sent.
    expect(titles(await send(baseUrl, 'GET', listPath, { token: bob, headers: { 'tasklane-lsn': 'yesterday' } }))).toEqual(['Draft']);

    // Replaying again, the replica catches up and Bob reads the rename.
    await replica`select pg_wal_replay_resume()`;
    for (let attempt = 0; ; attempt += 1) {
      if (titles(await send(baseUrl, 'GET', listPath, { token: bob }))[0] === 'Final') break;
      expect(attempt).toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // A GET that writes answers a position too: a timer past a day stops itself when read.
    expect((await send(baseUrl, 'POST', `/api/v1/tasks/${created.body.id}/timer`, { token: alice })).status).toBe(200);
    const primary = postgres(pair.primaryUrl, { max: 1, onnotice: () => {} });
    await primary`update timers set started_at = now() - interval '2 days'`;
    await primary.end();
    for (;;) {
      if ((await replica`select 1 from timers where started_at < now() - interval '1 day'`).length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const plainRead = await send(baseUrl, 'GET', listPath, { token: alice });
    expect(plainRead.headers.get('tasklane-lsn')).toBeNull();
    const stopping = await send(baseUrl, 'GET', '/api/v1/auth/me/timer', { token: alice });
    expect(stopping.status).toBe(200);
    expect(stopping.body).toBeNull();
    expect(stopping.headers.get('tasklane-lsn')).toMatch(LSN);

    // The replica stops: no read fails, every one is answered from the primary.
    await replica.end();
    await pair.stopReplica();
    const reads = await Promise.all(Array.from({ length: 20 }, () => send(baseUrl, 'GET', listPath, { token: bob })));
    expect(reads.map((read) => read.status)).toEqual(Array(20).fill(200));
    expect(reads.every((read) => titles(read)[0] === 'Final')).toBe(true);
    expect(server.output()).not.toMatch(/"level":50/);
  }, 120_000);
});
