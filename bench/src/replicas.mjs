// `--replicas N`: a PostgreSQL primary of the bench's own and N streaming replicas of it, made as
// PostgreSQL documents it (initdb, then pg_basebackup -R of the running primary), each on a private
// port under one temporary directory, removed at the end. As root, PostgreSQL's programs run as the
// `postgres` user (it refuses root). docs/operations.md "Capacity" quotes what this measures.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { treeCpuSeconds } from './processes.mjs';

const run = promisify(execFile);

function binDir() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((version) => join(root, version, 'bin')).find((dir) => existsSync(join(dir, 'pg_basebackup')));
  if (!found) throw new Error("--replicas needs PostgreSQL's programs (initdb, pg_ctl, pg_basebackup): apt-get install postgresql");
  return found;
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** The CPU seconds of one cluster: its postmaster and every process it started (backends, WAL sender or receiver, replay). */
const clusterCpuSeconds = (dataDir) => treeCpuSeconds(Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]));

/**
 * Starts the primary and `count` replicas, with `database` created on the primary before the
 * backups (so every replica has it). `settings` go to every cluster's command line.
 */
export async function startReplicatedCluster({ count, database, settings = '', onStarting = () => {} }) {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-bench-cluster-'));
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
  const pg = (program, args) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args]) : run(join(bin, program), args));
  const started = [];
  const close = async () => {
    for (const data of [...started].reverse()) await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => {});
    started.length = 0;
    rmSync(dir, { recursive: true, force: true });
  };
  // Registered before anything starts, so an interruption part-way still stops and removes it all.
  onStarting(close);
  // A hot standby needs max_wal_senders at least the primary's: every cluster gets the same.
  const options = (port) => `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c max_wal_senders=${count + 2} ${settings}`;
  try {
    const primary = join(dir, 'primary');
    const primaryPort = await freePort();
    await pg('initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    started.push(primary);
    await pg('pg_ctl', ['-D', primary, '-o', `${options(primaryPort)} -c wal_level=replica`, '-l', join(dir, 'primary.log'), '-w', '-t', '180', 'start']);
    const admin = postgres(`postgres://postgres@127.0.0.1:${primaryPort}/postgres`, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${database}`);
    await admin.end();
    const replicas = [];
    for (let i = 0; i < count; i++) {
      const data = join(dir, `replica-${i}`);
      const port = await freePort();
      await pg('pg_basebackup', ['-D', data, '-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync']);
      started.push(data);
      await pg('pg_ctl', ['-D', data, '-o', `${options(port)} -c hot_standby=on`, '-l', join(dir, `replica-${i}.log`), '-w', '-t', '180', 'start']);
      replicas.push({ data, port });
    }
    const url = (port, name = database) => `postgres://postgres@127.0.0.1:${port}/${name}`;
    return {
      primaryUrl: url(primaryPort),
      replicaUrls: replicas.map((replica) => url(replica.port)),
      /** CPU seconds so far of the primary and of all replicas together. */
      cpuSeconds: () => ({ primary: clusterCpuSeconds(primary), replicas: replicas.reduce((sum, replica) => sum + clusterCpuSeconds(replica.data), 0) }),
      /** Resolves once every replica has replayed all the primary has written (after the seed). */
      async caughtUp() {
        const primarySession = postgres(url(primaryPort, 'postgres'), { max: 1, onnotice: () => {} });
        try {
          const [{ lsn }] = await primarySession`select pg_current_wal_insert_lsn()::text as lsn`;
          for (const replica of replicas) {
            const session = postgres(url(replica.port, 'postgres'), { max: 1, onnotice: () => {} });
            try {
              for (let attempt = 0; ; attempt++) {
                const [{ done }] = await session`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as done`;
                if (done) break;
                if (attempt > 1200) throw new Error(`replica on port ${replica.port} did not catch up within 60 s`);
                await new Promise((resolve) => setTimeout(resolve, 50));
              }
            } finally {
              await session.end();
            }
          }
        } finally {
          await primarySession.end();
        }
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
