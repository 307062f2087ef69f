import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { freePort } from './ports';

/** Debian's PgBouncer (`apt-get install pgbouncer`; .ci/run installs it when missing). */
const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => spawnSync(path, ['--version']).status === 0);

export interface Bouncer {
  /** `url` with its host and port replaced by the pooler's. */
  through(url: string): string;
  /** A statement on PgBouncer's admin console (`SHOW POOLS`, `SHOW STATS`): simple protocol only. */
  admin<T>(statement: string): Promise<T[]>;
  stop(): Promise<void>;
}

/**
 * A real PgBouncer in transaction mode in front of the test PostgreSQL (TEST_DATABASE_URL), on a
 * private port, holding at most `serverConnections` connections to PostgreSQL per database: fewer
 * than its clients open, so consecutive statements of one client run on different server
 * connections. Its files live in a directory removed by `stop()`; no Unix socket is made.
 */
export async function startPgBouncer(serverConnections: number): Promise<Bouncer> {
  if (!PGBOUNCER) throw new Error('PgBouncer is not installed: apt-get install pgbouncer (.ci/run installs it)');
  const upstream = new URL(process.env.TEST_DATABASE_URL!);
  const user = decodeURIComponent(upstream.username || 'postgres');
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-pgbouncer-'));
  // Readable by the user PgBouncer drops to when started as root.
  chmodSync(dir, 0o755);
  const port = await freePort();
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      `default_pool_size = ${serverConnections}`,
      'max_client_conn = 200',
      'server_reset_query =',
      'logfile =',
      'pidfile =',
    ].join('\n'),
    { mode: 0o644 },
  );
  const child: ChildProcess = spawn(PGBOUNCER, [...(process.getuid?.() === 0 ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const adminUrl = `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/pgbouncer`;
  const admin = async <T>(statement: string) => {
    const client = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 2, fetch_types: false });
    try {
      return (await client.unsafe(statement).simple()) as unknown as T[];
    } finally {
      await client.end();
    }
  };
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; ; attempt += 1) {
    try {
      await admin('show version');
      break;
    } catch (error) {
      if (child.exitCode !== null || attempt > 100) {
        await stop();
        throw new Error(`PgBouncer did not start: ${(error as Error).message}\n${output}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    through: (url) => {
      const pooled = new URL(url);
      pooled.hostname = '127.0.0.1';
      pooled.port = String(port);
      return pooled.toString();
    },
    admin,
    stop,
  };
}
