import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from '../support/harness';
import { startPgBouncer } from '../support/pgbouncer';
import { freePort } from '../support/ports';
import { call, runTasklane, startServerProcess } from '../support/server-process';
import { openStream } from '../support/sse-client';

const onPostgres = process.env.TEST_DB === 'postgres';

describe('DATABASE_POOLER and DATABASE_LISTEN_URL', () => {
  it('refuses a transaction pooler without a direct connection for LISTEN, saying why', async () => {
    const result = await runTasklane({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', DATABASE_POOLER: 'transaction' }, 'serve');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DATABASE_LISTEN_URL');
    expect(result.stderr).toContain('transaction pooler');
  });

  it('refuses DATABASE_LISTEN_URL on the embedded database', async () => {
    const result = await runTasklane({ DATABASE_LISTEN_URL: 'postgres://postgres@127.0.0.1:1/none' }, 'serve');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DATABASE_LISTEN_URL');
  });
});

describe.runIf(onPostgres)('through a real PgBouncer in transaction mode', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('serves writes, reads and live events, with LISTEN and migrations on the direct connection', async () => {
    const fresh = await freshPostgresDatabase();
    cleanups.push(fresh.drop);
    // Two server connections for a pool of six: consecutive statements of one pooled connection
    // run on different PostgreSQL sessions, which breaks anything that needs a session.
    const bouncer = await startPgBouncer(2);
    cleanups.push(bouncer.stop);
    const direct = fresh.url(Number(new URL(process.env.TEST_DATABASE_URL!).port || 5432));
    const databaseName = new URL(direct).pathname.slice(1);
    // The database is new: the server migrates it on start, under its session lock, on the direct URL.
    const server = await startServerProcess(
      // The webhook worker's poll, every 10 ms, sends a statement without parameters (postgres.js's
      // simple protocol) among the requests' statements on the same pooled connections.
      { DATABASE_URL: bouncer.through(direct), DATABASE_LISTEN_URL: direct, DATABASE_POOLER: 'transaction', DATABASE_POOL_SIZE: '6', WEBHOOK_POLL_MS: '10' },
      await freePort(),
    );
    cleanups.push(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    });
    const { baseUrl } = server;

    const registered = await call(baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Pooled', email: 'pooled@example.com', password: 'secret-password' } });
    expect(registered.status).toBe(201);
    const token = registered.body.access_token as string;
    const project = await call(baseUrl, 'POST', '/api/v1/projects', { token, body: { name: 'Through the pooler' } });
    expect(project.status).toBe(201);
    const projectId = project.body.id as string;
    const stream = await openStream(`${baseUrl}/api/v1/projects/${projectId}/events`, { authorization: `Bearer ${token}` });
    cleanups.push(async () => stream.close());
    expect(stream.status).toBe(200);

    const created = await Promise.all(
      Array.from({ length: 30 }, (_, index) => call(baseUrl, 'POST', '/api/v1/tasks', { token, body: { projectId, title: `Task ${index}` } })),
    );
    expect(created.map((response) => response.status)).toEqual(Array(30).fill(201));
    const [first] = created;
    const listed = await call(baseUrl, 'GET', `/api/v1/tasks/project/${projectId}`, { token });
    expect(listed.status).toBe(200);
    expect(listed.body.map((task: { title: string }) => task.title).sort()).toEqual(created.map((response) => response.body.title).sort());
    const moved = await call(baseUrl, 'PATCH', `/api/v1/tasks/${first!.body.id}`, { token, body: { status: 'IN_PROGRESS' } });
    expect(moved.status).toBe(200);
    const comment = await call(baseUrl, 'POST', `/api/v1/tasks/${first!.body.id}/comments`, { token, body: { text: 'Pooled and heard' } });
    expect(comment.status).toBe(201);

    // Many reads at once: a pooled connection may not send a statement while another is in flight
    // (PgBouncer 1.18 hands the server connection back at the first one's end and drops what the
    // next one was answered: the request never answers). What a read gets sent behind is the
    // webhook worker's poll (10 ms above): a statement without parameters, which postgres.js sends
    // by the simple protocol. Each read must answer within the deadline.
    const deadline = async <T>(request: Promise<T>, what: string) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        return await Promise.race([request, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within 20 s: ${what}`)), 20_000)))]);
      } finally {
        clearTimeout(timer);
      }
    };
    for (let round = 0; round < 5; round += 1) {
      const reads = await Promise.all(
        Array.from({ length: 120 }, (_, index) => {
          const path = index % 3 === 0 ? `/api/v1/tasks/project/${projectId}?limit=50` : `/api/v1/tasks/${created[index % 30]!.body.id}`;
          return deadline(call(baseUrl, 'GET', path, { token }), path);
        }),
      );
      expect(reads.map((response) => response.status)).toEqual(Array(120).fill(200));
    }

    // Live events reach the stream through the LISTEN on the direct connection.
    await stream.waitFor(() => stream.events.some((event) => event.event === 'comment.created'), 10_000);
    const names = stream.events.map((event) => event.event);
    expect(names.filter((name) => name === 'task.created')).toHaveLength(30);
    expect(names).toContain('task.updated');

    // Every statement went through PgBouncer, which kept to its two server connections.
    const pools = await bouncer.admin<Record<string, string>>('SHOW POOLS');
    const pool = pools.find((row) => row.database === databaseName);
    expect(pool).toBeDefined();
    const serverConnections = ['sv_active', 'sv_idle', 'sv_used', 'sv_tested', 'sv_login'].reduce((sum, column) => sum + Number(pool![column] ?? 0), 0);
    expect(serverConnections).toBeGreaterThan(0);
    expect(serverConnections).toBeLessThanOrEqual(2);
    const stats = (await bouncer.admin<Record<string, string>>('SHOW STATS')).find((row) => row.database === databaseName);
    expect(Number(stats?.total_xact_count)).toBeGreaterThanOrEqual(30);
    // PostgreSQL sees PgBouncer's two sessions and the LISTEN session, not the server's pool of six.
    const admin = postgres(direct, { max: 1, onnotice: () => {} });
    try {
      const [row] = await admin<{ sessions: number }[]>`select count(*)::int as sessions from pg_stat_activity where datname = ${databaseName} and backend_type = 'client backend' and pid <> pg_backend_pid()`;
      expect(row!.sessions).toBeLessThanOrEqual(3);
    } finally {
      await admin.end();
    }
    expect(server.output()).not.toMatch(/prepared statement|"level":50/);
  }, 150_000);
});
