import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../support/harness';

// The bug patches/postgres@3.4.9.patch fixes: once the LISTEN connection had reconnected, postgres.js's
// unlisten removed nothing, so an instance kept receiving (and handing to a departed stream) the
// announcements of a channel it had left.
describe.runIf(process.env.TEST_DB === 'postgres')('LISTEN on PostgreSQL', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let other: ReturnType<typeof postgres>;
  beforeAll(async () => {
    opened = await openTestDatabase();
    other = postgres(opened.url!, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await other.end();
    await opened.drop();
  });

  const until = async (condition: () => boolean | Promise<boolean>, what: string) => {
    for (const started = Date.now(); !(await condition()); ) {
      if (Date.now() - started > 10_000) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('stops a channel’s notifications at unlisten, after the LISTEN connection reconnected too', async () => {
    const received: string[] = [];
    let listens = 0;
    const unlisten = await opened.database.listen('reconnect_probe', (payload) => received.push(payload), () => (listens += 1));
    expect(listens).toBe(1);
    await other`select pg_notify('reconnect_probe', 'before')`;
    await until(() => received.includes('before'), 'the first notification');

    // Cut the LISTEN connection from the server's side; postgres.js reconnects and listens again.
    const cut = await other`
      select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%'`;
    expect(cut.length).toBe(1);
    await until(() => listens === 2, 'the re-listen');
    await other`select pg_notify('reconnect_probe', 'after reconnect')`;
    await until(() => received.includes('after reconnect'), 'a notification on the new connection');

    await unlisten();
    await other`select pg_notify('reconnect_probe', 'after unlisten')`;
    // A notification sent after the UNLISTEN would arrive well within this.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(received).toEqual(['before', 'after reconnect']);
  });
});
