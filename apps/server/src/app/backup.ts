import { createWriteStream, existsSync, readdirSync } from 'node:fs';
import { mkdtemp, open, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createDatabase } from '@tasklane/db';
import { list } from 'tar';
import { openDatabase } from './app';
import { CliError } from './cli-error';
import type { Config } from '../platform/config';
import { lockDataDir, operatorSocketPath, pgliteDir } from './data-dir';
import { askRunningServer } from './operator-client';


export const PG_DUMP_HINT =
  'With DATABASE_URL (PostgreSQL) use its own tools while the service runs:\n' +
  '  pg_dump --format=custom --file=tasklane.dump "$DATABASE_URL"\n' +
  '  pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" tasklane.dump';

/** What every PGlite data directory holds; an archive without them is not one of ours. */
const REQUIRED_ENTRIES = ['PG_VERSION', 'global/pg_control', 'base'];
const GZIP_MAGIC = [0x1f, 0x8b];

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The first bytes of a file as text an operator can recognise ("<!doctype html>…"). */
const printable = (bytes: Buffer) => JSON.stringify(bytes.toString('latin1').replace(/[^\x20-\x7e]/g, '.'));

/**
 * Reads a backup completely before anything trusts it: gzip, a tar archive that parses to its
 * end (tar's strict mode turns a truncated or corrupt stream into an error), only relative paths,
 * and the files of a PGlite data directory. Throws a CliError naming the file and what is wrong.
 */
export async function checkBackupArchive(file: string): Promise<{ entries: number; bytes: number }> {
  let bytes: number;
  let head: Buffer;
  try {
    bytes = (await stat(file)).size;
    const handle = await open(file, 'r');
    try {
      head = Buffer.alloc(Math.min(bytes, 16));
      await handle.read(head, 0, head.length, 0);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${messageOf(error)}`);
  }
  if (bytes === 0) throw new CliError(`not a backup: ${file} is empty`);
  if (head[0] !== GZIP_MAGIC[0] || head[1] !== GZIP_MAGIC[1]) {
    throw new CliError(`not a backup: ${file} is not gzip (it starts with ${printable(head)})`);
  }
  const seen = new Set<string>();
  let unsafe: string | undefined;
  try {
    await list({
      file,
      strict: true,
      onReadEntry: (entry) => {
        const path = entry.path.replace(/^\/+/, '').replace(/\/+$/, '');
        if (path.split('/').includes('..')) unsafe ??= entry.path;
        seen.add(path);
      },
    });
  } catch (error) {
    throw new CliError(`not a backup: ${file} is not a complete .tar.gz archive (${messageOf(error)})`);
  }
  if (unsafe) throw new CliError(`not a backup: ${file} holds a path outside its directory (${unsafe})`);
  const missing = REQUIRED_ENTRIES.filter((entry) => !seen.has(entry));
  if (missing.length > 0) {
    throw new CliError(`not a backup: ${file} is a .tar.gz but not of a Tasklane data directory (no ${missing.join(', ')})`);
  }
  return { entries: seen.size, bytes };
}

/**
 * Writes beside the destination and renames only a checked archive into place, so a failed or
 * refused backup never leaves a file that looks like one (nor replaces a good one).
 */
async function writeChecked(file: string, write: (partial: string) => Promise<void>): Promise<void> {
  const partial = join(dirname(file), `.${basename(file)}.${process.pid}.partial`);
  try {
    await write(partial);
    await checkBackupArchive(partial);
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof CliError) throw new CliError(error.message.replaceAll(partial, 'the received archive'));
    throw new CliError(`cannot write ${file}: ${messageOf(error)}`);
  }
}

const ARCHIVE_TYPES = new Set(['application/gzip', 'application/x-gzip']);

/** A server's answer to a request for a backup, from either way of asking. */
interface Answer {
  status: number;
  contentType: string | null | undefined;
  body: Readable;
}

/** Keeps the archive a server answered, checked (writeChecked); `from` names the server, `hint` what to do when it refuses. */
async function keepAnswer(file: string, answer: Answer, from: string, hint: string): Promise<void> {
  const type = (answer.contentType ?? 'none').split(';')[0]!.trim().toLowerCase();
  if (answer.status !== 200 || !ARCHIVE_TYPES.has(type)) {
    answer.body.destroy();
    throw new CliError(`not a backup: ${from} answered ${answer.status} ${type}${hint}`);
  }
  await writeChecked(file, (partial) => pipeline(answer.body, createWriteStream(partial, { mode: 0o600 })));
}

/**
 * `backup <file>`: PGlite's data directory as a .tar.gz, consistent while a server runs on it. The
 * server running on DATA_DIR is asked over its operator socket; else one at HOST:PORT over HTTP
 * (GET /admin/backup with ADMIN_TOKEN, for a server on another machine); with no server, the
 * directory is locked, opened and dumped directly.
 */
export async function backup(config: Config, file: string): Promise<string> {
  if (config.databaseUrl) throw new CliError(PG_DUMP_HINT);
  const local = await askRunningServer(config.dataDir, '/backup');
  if (local) {
    const from = `the server on ${operatorSocketPath(config.dataDir)}`;
    await keepAnswer(file, { status: local.statusCode ?? 0, contentType: local.headers['content-type'], body: local }, from, '');
    return `Backup of the running server written to ${file}.`;
  }
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}/admin/backup`;
  const live = await fetch(url, { headers: { authorization: `Bearer ${config.adminToken ?? ''}` } }).catch(() => undefined);
  if (live) {
    if (live.status === 401) {
      await live.body?.cancel();
      throw new CliError(`not a backup: the server at ${url} refused the admin token (401); set the same ADMIN_TOKEN as the server`);
    }
    const body = live.body ? Readable.fromWeb(live.body as WebReadableStream) : Readable.from([]);
    await keepAnswer(file, { status: live.status, contentType: live.headers.get('content-type'), body }, `the server at ${url}`, '; set ADMIN_TOKEN on the server and here (PGlite only)');
    return `Backup of the running server written to ${file}.`;
  }
  if (!existsSync(join(pgliteDir(config.dataDir), 'PG_VERSION'))) {
    throw new CliError(`no server answered at ${url} and ${pgliteDir(config.dataDir)} holds no database: check PORT, HOST and DATA_DIR`);
  }
  const database = await openDatabase(config, 'backup');
  try {
    const archive = Buffer.from(await (await database.dumpDataDir!('gzip')).arrayBuffer());
    await writeChecked(file, (partial) => writeFile(partial, archive, { mode: 0o600 }));
  } finally {
    await database.close();
  }
  return `Backup of ${pgliteDir(config.dataDir)} written to ${file}.`;
}

/**
 * `restore <file>`: into an empty or missing PGlite data directory only. The archive is checked
 * whole first; then it is opened and migrated in a staging directory beside the target, which is
 * renamed into place only once that worked, so a failure leaves the target as it was.
 */
export async function restore(config: Config, file: string): Promise<string> {
  if (config.databaseUrl) throw new CliError(PG_DUMP_HINT);
  const lock = lockDataDir(config.dataDir, 'restore');
  try {
    await restoreLocked(pgliteDir(config.dataDir), file);
  } finally {
    lock.release();
  }
  return `Restored ${file} into ${pgliteDir(config.dataDir)}.`;
}

async function restoreLocked(target: string, file: string): Promise<void> {
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new CliError(`${target} is not empty: stop the server and move it away first, so nothing is overwritten.`);
  }
  await checkBackupArchive(file);
  const staging = await mkdtemp(`${target}.restoring-`);
  try {
    const database = await createDatabase({ kind: 'pglite', dataDir: staging, loadDataDir: new Blob([await readFile(file)]) });
    try {
      await database.migrate();
      await database.ping();
    } finally {
      await database.close();
    }
    if (existsSync(target)) await rmdir(target);
    await rename(staging, target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw new CliError(`not restored: ${file} could not be opened as a database (${messageOf(error)}); ${target} is unchanged`);
  }
}
