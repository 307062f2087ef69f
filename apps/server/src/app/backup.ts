import { createReadStream, createWriteStream, existsSync, readdirSync } from 'node:fs';
import { mkdtemp, open, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createDatabase } from '@tasklane/db';
import { extract, list, Pack, Parser } from 'tar';
import { backupArchive, filesDirOf, isFilesEntry } from '../platform/backup-archive';
import { openDatabase } from './app';
import { CliError } from './cli-error';
import type { Config } from '../platform/config';
import { backupFiles, lockDataDir, operatorSocketPath, pgliteDir } from './data-dir';
import { FILES_HEADER } from '../transport/rest/admin';
import { askRunningServer } from './operator-client';


export const PG_DUMP_HINT =
  'With DATABASE_URL (PostgreSQL) use its own tools while the service runs:\n' +
  '  pg_dump --format=custom --file=tasklane.dump "$DATABASE_URL"\n' +
  '  pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" tasklane.dump\n' +
  'and, after the dump, the attachment files: DATA_DIR/files (or the S3 bucket), see docs/operations.md "Backups".';

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
export interface CheckedBackup {
  entries: number;
  bytes: number;
  /** Attachment files under `files/` (platform/backup-archive.ts); 0 in an archive without them. */
  files: number;
}

export async function checkBackupArchive(file: string): Promise<CheckedBackup> {
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
  let files = 0;
  try {
    await list({
      file,
      strict: true,
      onReadEntry: (entry) => {
        const path = entry.path.replace(/^\/+/, '').replace(/\/+$/, '');
        if (path.split('/').includes('..')) unsafe ??= entry.path;
        // Restore writes the attachment files itself: plain files and folders only (a link could point anywhere).
        if (isFilesEntry(path)) {
          if (entry.type === 'File') files += 1;
          else if (entry.type !== 'Directory') unsafe ??= `${entry.path}, a ${entry.type}`;
        }
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
  return { entries: seen.size, bytes, files };
}

/**
 * Writes beside the destination and renames only a checked archive into place, so a failed or
 * refused backup never leaves a file that looks like one (nor replaces a good one).
 */
async function writeChecked(file: string, write: (partial: string) => Promise<void>): Promise<CheckedBackup> {
  const partial = join(dirname(file), `.${basename(file)}.${process.pid}.partial`);
  try {
    await write(partial);
    const checked = await checkBackupArchive(partial);
    await rename(partial, file);
    return checked;
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
  /** The FILES_HEADER: whether the server stores attachment files locally (in the archive) or in a bucket. */
  files: string | null | undefined;
  body: Readable;
}

/** Keeps the archive a server answered, checked (writeChecked); `from` names the server, `hint` what to do when it refuses. */
async function keepAnswer(file: string, answer: Answer, from: string, hint: string): Promise<string> {
  const type = (answer.contentType ?? 'none').split(';')[0]!.trim().toLowerCase();
  if (answer.status !== 200 || !ARCHIVE_TYPES.has(type)) {
    answer.body.destroy();
    throw new CliError(`not a backup: ${from} answered ${answer.status} ${type}${hint}`);
  }
  const checked = await writeChecked(file, (partial) => pipeline(answer.body, createWriteStream(partial, { mode: 0o600 })));
  return filesLine(checked, answer.files === 'bucket');
}

/** The backup's second line: what became of the attachment files. */
function filesLine(checked: CheckedBackup, bucket: boolean): string {
  if (bucket) {
    return '\nAttachment files are in the S3 bucket (S3_BUCKET), not in this archive: copy the bucket now, after this backup (docs/operations.md, "Backups").';
  }
  return `\nAttachment files included: ${checked.files}.`;
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
    const files = local.headers[FILES_HEADER];
    const answer = { status: local.statusCode ?? 0, contentType: local.headers['content-type'], files: typeof files === 'string' ? files : undefined, body: local };
    return `Backup of the running server written to ${file}.${await keepAnswer(file, answer, from, '')}`;
  }
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}/admin/backup`;
  const live = await fetch(url, { headers: { authorization: `Bearer ${config.adminToken ?? ''}` } }).catch(() => undefined);
  if (live) {
    if (live.status === 401) {
      await live.body?.cancel();
      throw new CliError(`not a backup: the server at ${url} refused the admin token (401); set the same ADMIN_TOKEN as the server`);
    }
    const body = live.body ? Readable.fromWeb(live.body as WebReadableStream) : Readable.from([]);
    const answer = { status: live.status, contentType: live.headers.get('content-type'), files: live.headers.get(FILES_HEADER), body };
    const files = await keepAnswer(file, answer, `the server at ${url}`, '; set ADMIN_TOKEN on the server and here (PGlite only)');
    return `Backup of the running server written to ${file}.${files}`;
  }
  if (!existsSync(join(pgliteDir(config.dataDir), 'PG_VERSION'))) {
    throw new CliError(`no server answered at ${url} and ${pgliteDir(config.dataDir)} holds no database: check PORT, HOST and DATA_DIR`);
  }
  const database = await openDatabase(config, 'backup');
  let checked: CheckedBackup;
  try {
    const options = backupFiles(config);
    const databaseTar = await database.dumpDataDir!('none');
    checked = await writeChecked(file, (partial) => pipeline(backupArchive(databaseTar, options), createWriteStream(partial, { mode: 0o600 })));
  } finally {
    await database.close();
  }
  return `Backup of ${pgliteDir(config.dataDir)} written to ${file}.${filesLine(checked, !backupFiles(config).filesDir)}`;
}

/**
 * `restore <file>`: into an empty or missing PGlite data directory and attachment files directory
 * only. The archive is checked whole first; then the database is opened and migrated, and the files
 * written, in staging directories beside the targets, which are renamed into place only once all of
 * that worked, so a failure leaves the targets as they were.
 */
export async function restore(config: Config, file: string): Promise<string> {
  if (config.databaseUrl) throw new CliError(PG_DUMP_HINT);
  const lock = lockDataDir(config.dataDir, 'restore');
  let files: number;
  try {
    files = await restoreLocked(pgliteDir(config.dataDir), filesDirOf(config.dataDir), file);
  } finally {
    lock.release();
  }
  return `Restored ${file} into ${pgliteDir(config.dataDir)}${files > 0 ? ` and ${files} attachment files into ${filesDirOf(config.dataDir)}` : ''}.`;
}

const isEmptyOrMissing = (dir: string) => !existsSync(dir) || readdirSync(dir).length === 0;

/**
 * The archive's database entries, without the attachment files, as one uncompressed tar in memory
 * for PGlite's loadDataDir (which takes a Blob and would write every entry into the data directory).
 * The files are not read here: extract() streams them to disk.
 */
async function databaseEntries(file: string): Promise<Blob> {
  const pack = new Pack({ portable: true });
  const parser = new Parser({ strict: true, onReadEntry: (entry) => (isFilesEntry(entry.path.replace(/^\/+/, '')) ? entry.resume() : void pack.add(entry)) });
  const collected = pack.collect();
  await new Promise<void>((resolve, reject) => {
    parser.on('end', () => {
      pack.end();
      resolve();
    });
    parser.on('error', reject);
    createReadStream(file).on('error', reject).pipe(parser);
  });
  return new Blob(await collected);
}

async function restoreLocked(target: string, filesTarget: string, file: string): Promise<number> {
  for (const dir of [target, filesTarget]) {
    if (!isEmptyOrMissing(dir)) throw new CliError(`${dir} is not empty: stop the server and move it away first, so nothing is overwritten.`);
  }
  const { files } = await checkBackupArchive(file);
  const staging = await mkdtemp(`${target}.restoring-`);
  const filesStaging = await mkdtemp(`${filesTarget}.restoring-`);
  let placed = false;
  let failing = 'could not be opened as a database';
  try {
    const database = await createDatabase({ kind: 'pglite', dataDir: staging, loadDataDir: await databaseEntries(file) });
    try {
      await database.migrate();
      await database.ping();
    } finally {
      await database.close();
    }
    failing = 'could not have its attachment files written';
    // strip: 1 drops the leading `files/`; checkBackupArchive let through only files and folders.
    await extract({ file, cwd: filesStaging, strict: true, strip: 1, preserveOwner: false, filter: (path) => isFilesEntry(path.replace(/^\/+/, '').replace(/\/+$/, '')) });
    if (existsSync(target)) await rmdir(target);
    await rename(staging, target);
    placed = true;
    if (files > 0) {
      if (existsSync(filesTarget)) await rmdir(filesTarget);
      await rename(filesStaging, filesTarget);
    } else {
      await rmdir(filesStaging);
    }
  } catch (error) {
    // The database in place but not its files: take it back, so the target is as it was.
    if (placed) await rename(target, staging).catch(() => undefined);
    await rm(staging, { recursive: true, force: true });
    await rm(filesStaging, { recursive: true, force: true });
    throw new CliError(`not restored: ${file} ${failing} (${messageOf(error)}); ${target} and ${filesTarget} are unchanged`);
  }
  return files;
}
