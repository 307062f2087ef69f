// `--replicas N --pgbouncer`: Debian's PgBouncer in transaction mode in front of the bench's
// primary, on a private port, its files in a temporary directory removed by stop(). The server
// then runs with DATABASE_POOLER=transaction and LISTENs on DATABASE_LISTEN_URL, the direct address
// (docs/operations.md "Through PgBouncer").
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { treeCpuSeconds } from './processes.mjs';

const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => spawnSync(path, ['--version']).status === 0);

/** PgBouncer for `upstreamUrl`'s server on `port`, at most `serverConnections` connections to it per database. */
export async function startBouncer({ upstreamUrl, port, serverConnections }) {
  if (!PGBOUNCER) throw new Error('--pgbouncer needs PgBouncer: apt-get install pgbouncer');
  const upstream = new URL(upstreamUrl);
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-bench-pgbouncer-'));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n', { mode: 0o644 });
  const settings = {
    listen_addr: '127.0.0.1',
    listen_port: port,
    unix_socket_dir: '',
    auth_type: 'trust',
    auth_file: join(dir, 'userlist.txt'),
    admin_users: 'postgres',
    pool_mode: 'transaction',
    default_pool_size: serverConnections,
    max_client_conn: 500,
    server_reset_query: '',
    logfile: '',
    pidfile: '',
  };
  const ini = ['[databases]', `* = host=${upstream.hostname} port=${upstream.port}`, '[pgbouncer]', ...Object.entries(settings).map(([key, value]) => `${key} = ${value}`)];
  writeFileSync(join(dir, 'pgbouncer.ini'), `${ini.join('\n')}\n`, { mode: 0o644 });
  const child = spawn(PGBOUNCER, [...(process.getuid?.() === 0 ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const through = (url) => {
    const pooled = new URL(url);
    pooled.port = String(port);
    return pooled.toString();
  };
  for (let attempt = 0; ; attempt++) {
    const probe = postgres(through(upstreamUrl), { max: 1, onnotice: () => {}, connect_timeout: 2, prepare: false });
    try {
      await probe`select 1`;
      break;
    } catch (error) {
      if (child.exitCode !== null || attempt > 100) {
        await stop();
        throw new Error(`PgBouncer did not start: ${error.message}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await probe.end();
    }
  }
  return { through, cpuSeconds: () => treeCpuSeconds(child.pid), stop };
}
