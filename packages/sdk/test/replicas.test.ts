import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { startPrimaryAndReplica } from '../../../apps/server/test/support/replica';
import { createTasklaneClient } from '../src/index';
import { startServer } from './server';

/**
 * A server with a real streaming replica (PostgreSQL's own initdb and pg_basebackup, as the server's
 * replica test makes them): the client sends back the position its last write answered, so it reads
 * its own writes even while the replica is behind. PostgreSQL only (PGlite has no replicas).
 */
describe.runIf(process.env.TEST_DATABASE_URL)('reading its own writes with read replicas', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('reads its rename while the replica has not replayed it; a client that wrote nothing reads the replica', async () => {
    const pair = await startPrimaryAndReplica();
    cleanups.push(pair.close);
    // A generous lag: a read without a position reaches the paused replica at any machine's pace.
    const server = await startServer({ DATABASE_URL: pair.primaryUrl, DATABASE_REPLICA_URLS: pair.replicaUrl, REPLICA_MAX_LAG_MS: '60000' });
    cleanups.push(server.close);
    const alice = createTasklaneClient({ baseUrl: server.baseUrl });
    await alice.auth.register({ name: 'Alice', email: 'alice@example.com', password: 'secret-password' });
    const bob = createTasklaneClient({ baseUrl: server.baseUrl });
    await bob.auth.register({ name: 'Bob', email: 'bob@example.com', password: 'secret-password' });
    const project = await alice.projects.create({ name: 'Replicated' });
    await alice.members.invite({ id: project.id, email: 'bob@example.com', role: 'VIEWER' });
    const task = await alice.tasks.create({ projectId: project.id, title: 'Draft' });

    const replica = postgres(pair.replicaUrl, { max: 1, onnotice: () => {} });
    cleanups.push(() => replica.end());
    for (;;) {
      const rows = await replica`select 1 from tasks where id = ${task.id} and title = 'Draft'`;
      if (rows.length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await replica`select pg_wal_replay_pause()`;
    cleanups.push(async () => {
      await replica`select pg_wal_replay_resume()`;
    });

    await alice.tasks.update({ id: task.id, title: 'Final' });
    const titles = async (tl: typeof alice) => (await tl.tasks.list({ projectId: project.id })).items.map((item) => item.title);
    expect(await titles(alice)).toEqual(['Final']);
    // Bob's client has written nothing in this project since: the replica serves him what it has.
    const bobReads = createTasklaneClient({ baseUrl: server.baseUrl, token: (await bob.auth.login({ email: 'bob@example.com', password: 'secret-password' })).access_token });
    expect(await titles(bobReads)).toEqual(['Draft']);
  });
});
