import { fileURLToPath } from 'node:url';
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type BackupArchiveOptions, filesDirOf } from '../platform/backup-archive';
import type { Config } from '../platform/config';
import { CliError } from './cli-error';

/**
 * The one function of fs-native-extensions used here, typed by hand: the package ships no types,
 * and a declaration file would not reach the packages that type-check this file (the SDK's tests).
 * `tryLock(fd)` takes an exclusive lock on the open file, or answers false when another holds it.
 */
const { tryLock } = createRequire(import.meta.url)('fs-native-extensions') as { tryLock(fd: number): boolean };

/** Where PGlite keeps its files inside DATA_DIR. */
export const pgliteDir = (dataDir: string) => join(dataDir, 'pgdata');

/**
 * The migrated embedded database the build ships beside the server (app/build-template.ts): a new
 * DATA_DIR starts from it. Resolved from the running file, so only the built server has one; run
 * from source, a first start makes its database by initdb and the migrations.
 */
export const PGLITE_TEMPLATE = fileURLToPath(new URL('./pglite-template.tar.gz', import.meta.url));

/**
 * What a backup carries besides the database: the local attachment files (DATA_DIR/files, as
 * platform/storage keeps them), snapshotted inside DATA_DIR so hard links work; none with a bucket.
 */
export const backupFiles = (config: Pick<Config, 'dataDir' | 'attachments'>): BackupArchiveOptions => ({
  filesDir: config.attachments.s3 ? undefined : filesDirOf(config.dataDir),
  scratchDir: config.dataDir,
});

/** The file whose lock marks the one process that may open DATA_DIR; it names that process. */
export const lockPath = (dataDir: string) => join(dataDir, 'tasklane.lock');

/** The longest UNIX socket path Linux and macOS accept (sun_path, less its terminating NUL). */
const SOCKET_PATH_MAX = 103;

/**
 * The running server's operator channel (src/transport/operator/server.ts): a UNIX socket only the owner may
 * connect to. None when DATA_DIR's path is too long for one (the system would cut it short).
 */
export function operatorSocketPath(dataDir: string): string | undefined {
  const path = join(dataDir, 'tasklane.sock');
  return Buffer.byteLength(path) <= SOCKET_PATH_MAX ? path : undefined;
}

export interface DataDirLock {
  release(): void;
}

interface Holder {
  pid: number;
  command: string;
}

/** What a refused process should do instead, by what holds the directory. */
const adviceFor = (holder: Holder | undefined) =>
  holder?.command === 'serve'
    ? 'stop that server first, or give this one another DATA_DIR (backup, create-user and reset-password reach the running server by themselves)'
    : 'wait for it to finish, or stop it, then try again';

function readHolder(file: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as Holder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes DATA_DIR for this process alone, for as long as it lives. The lock is the kernel's (an open
 * file description lock, taken through fs-native-extensions), not a file's existence: it goes with
 * the process however it ends (SIGKILL, power loss), so a dead holder's lock never needs taking
 * over, and a live holder's is never taken. The file only names the holder for the refusal.
 */
export function lockDataDir(dataDir: string, command: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = lockPath(dataDir);
  // Opened without truncating: a refused process must not erase the holder's name.
  const fd = openSync(file, 'a+', 0o600);
  let locked = false;
  try {
    locked = tryLock(fd);
  } finally {
    if (!locked) closeSync(fd);
  }
  if (!locked) {
    const holder = readHolder(file);
    const who = holder ? `process ${holder.pid} (tasklane ${holder.command})` : 'another process';
    throw new CliError(`${dataDir} is in use by ${who}: ${adviceFor(holder)}.`);
  }
  ftruncateSync(fd, 0);
  writeSync(fd, JSON.stringify({ pid: process.pid, command } satisfies Holder));
  return { release: () => closeSync(fd) };
}
