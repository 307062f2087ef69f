import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freePort } from './ports';

const run = promisify(execFile);

/** PostgreSQL's own programs (Debian's postgresql package; .ci/run installs it when missing). */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((version) => join(root, version, 'bin')).find((dir) => existsSync(join(dir, 'pg_basebackup')));
  if (!found) throw new Error('PostgreSQL\'s programs (initdb, pg_ctl, pg_basebackup) are missing: apt-get install postgresql');
  return found;
}

export interface PrimaryAndReplica {
  /** The application's database on the primary, and the same database on the replica. */
  primaryUrl: string;
  replicaUrl: string;
  primaryPort: number;
  replicaPort: number;
  stopReplica(): Promise<void>;
  /** Stops the primary at once, as a crash would (`pg_ctl stop -m immediate`). */
  stopPrimary(): Promise<void>;
  /** Makes the replica the primary (`pg_ctl promote`), once it accepts writes. */
  promote(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A primary and a streaming replica of its own, made as PostgreSQL documents it: `initdb`, then
 * `pg_basebackup -R` of the running primary, each started with `pg_ctl` on a private port. Both live
 * in one directory under the system's temporary directory, sockets included, removed by `close()`.
 * PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user.
 */
export async function startPrimaryAndReplica({ synchronous = false }: { synchronous?: boolean } = {}): Promise<PrimaryAndReplica> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-replica-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const pg = (program: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args]) : run(join(bin, program), args);
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const options = (port: number) => `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const started: string[] = [];
  const stop = async (data: string) => {
    if (!started.includes(data)) return;
    started.splice(started.indexOf(data), 1);
    await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
  };
  const close = async () => {
    for (const data of [...started].reverse()) await stop(data);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primary = join(dir, 'primary');
    const replica = join(dir, 'replica');
    // A fast checkpoint for the base backup: the default spreads it over minutes.
    // initdb's pg_hba.conf trusts local and loopback connections, replication ones included.
    await pg('initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    // Listed before it starts: a start that outlasts pg_ctl's wait is still stopped by close().
    started.push(primary);
    await pg('pg_ctl', ['-D', primary, '-o', `${options(primaryPort)} -c wal_level=replica -c max_wal_senders=4`, '-l', join(dir, 'primary.log'), '-w', '-t', '180', 'start']);
    const admin = postgres(`postgres://postgres@127.0.0.1:${primaryPort}/postgres`, { max: 1, onnotice: () => {} });
    await admin.unsafe('create database tasklane');
    await admin.end();
    await pg('pg_basebackup', ['-D', replica, '-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync']);
    started.push(replica);
    await pg('pg_ctl', ['-D', replica, '-o', `${options(replicaPort)} -c hot_standby=on`, '-l', join(dir, 'replica.log'), '-w', '-t', '180', 'start']);
    if (synchronous) {
      // A commit answers only once the replica has it (docs/operations.md, "Failover"): set once the
      // replica streams, since a commit would wait for it until then.
      const primaryAdmin = postgres(`postgres://postgres@127.0.0.1:${primaryPort}/postgres`, { max: 1, onnotice: () => {} });
      try {
        await primaryAdmin.unsafe(`alter system set synchronous_standby_names = '*'`);
        await primaryAdmin.unsafe('select pg_reload_conf()');
        for (let attempt = 0; ; attempt += 1) {
          const rows = await primaryAdmin.unsafe(`select 1 from pg_stat_replication where sync_state = 'sync'`);
          if (rows.length > 0) break;
          if (attempt > 300) throw new Error('the replica did not become a synchronous standby');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await primaryAdmin.end();
      }
    }
    return {
      primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/tasklane`,
      replicaUrl: `postgres://postgres@127.0.0.1:${replicaPort}/tasklane`,
      primaryPort,
      replicaPort,
      stopReplica: () => stop(replica),
      stopPrimary: () => stop(primary),
      promote: async () => {
        await pg('pg_ctl', ['-D', replica, '-w', '-t', '180', 'promote']);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
