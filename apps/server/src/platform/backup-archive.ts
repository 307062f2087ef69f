import type { Dirent } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Pack, Parser } from 'tar';

/**
 * The layout of a Tasklane backup, one .tar.gz:
 *  - at its root, PGlite's data directory exactly as PGlite's dumpDataDir writes it (PG_VERSION,
 *    base/, global/…): an archive of a release before attachments is just that, and still restores;
 *  - under `files/`, the attachment files of local storage (DATA_DIR/files) by their keys,
 *    `files/<projectId>/<sha256>` and `files/<projectId>/<sha256>.thumb`. Uploads under way
 *    (`files/tmp/`) are left out. No PostgreSQL data directory has a `files` entry.
 */
export const ARCHIVE_FILES_DIR = 'files';

/** Where local storage keeps attachment files inside DATA_DIR (the contract's DATA_DIR/files). */
export const filesDirOf = (dataDir: string) => join(dataDir, ARCHIVE_FILES_DIR);

/** Whether an archive path (no leading or trailing slash) belongs to the attachment files. */
export const isFilesEntry = (path: string) => path === ARCHIVE_FILES_DIR || path.startsWith(`${ARCHIVE_FILES_DIR}/`);

const TEMPORARY = 'tmp';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';
const exists = (path: string) => stat(path).then(() => true, (error: unknown) => (isMissing(error) ? false : Promise.reject(error)));

/**
 * Hard links to every file under `source` (less tmp/), made under `target` right after the database
 * dump: a file deleted while the archive is being written (its attachment deleted after the dump) stays
 * in the archive, and the archive is written from a tree nobody else changes. Links cost no copy; a
 * file system refusing them (another device, no hard links) gets a copy. A file gone before its link
 * belongs to an attachment deleted since the dump; the restored server's sweep accepts either.
 */
async function snapshot(source: string, target: string, top = true): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(source, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  await mkdir(target, { recursive: true });
  for (const entry of entries) {
    if (top && entry.name === TEMPORARY) continue;
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) {
      await snapshot(from, to, false);
    } else if (entry.isFile()) {
      try {
        await link(from, to).catch((error: unknown) => (isMissing(error) ? Promise.reject(error) : copyFile(from, to)));
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
  }
}

export interface BackupArchiveOptions {
  /** DATA_DIR/files when attachments are stored locally; undefined with a bucket (not in the archive). */
  filesDir: string | undefined;
  /** Where the snapshot of the files is made: a directory on the same file system as filesDir (DATA_DIR). */
  scratchDir: string;
}

/**
 * The backup archive, streamed: the database dump's entries (an uncompressed tar PGlite made, held
 * in memory as PGlite hands it out), then the attachment files read from disk one at a time, all
 * gzip-compressed. The snapshot of the files is removed when the stream ends, fails or is dropped.
 */
export function backupArchive(databaseTar: Blob, { filesDir, scratchDir }: BackupArchiveOptions): Readable {
  async function* generate() {
    // No files directory yet (local storage makes it on the first upload): nothing to snapshot.
    const root = filesDir && (await exists(filesDir)) ? await mkdtemp(join(scratchDir, '.backup-files-')) : undefined;
    try {
      if (root && filesDir) await snapshot(filesDir, join(root, ARCHIVE_FILES_DIR));
      const pack = new Pack({ gzip: true, portable: true, cwd: root ?? scratchDir });
      const parser = new Parser({ strict: true, onReadEntry: (entry) => void pack.add(entry) });
      parser.on('error', (error) => pack.emit('error', error));
      parser.on('end', () => {
        // Written only when local storage has files: an archive without `files/` restores none.
        if (root) {
          readdir(join(root, ARCHIVE_FILES_DIR)).then(
            () => pack.end(ARCHIVE_FILES_DIR),
            () => pack.end(),
          );
        } else {
          pack.end();
        }
      });
      parser.end(Buffer.from(await databaseTar.arrayBuffer()));
      for await (const chunk of pack) yield chunk as Buffer;
    } finally {
      if (root) await rm(root, { recursive: true, force: true });
    }
  }
  return Readable.from(generate(), { objectMode: false });
}
