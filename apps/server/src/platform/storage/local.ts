import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type BlobStore, checkKey, MeasuringStream, TEMPORARY_PREFIX } from './blob-store';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Blobs as files under `root` (DATA_DIR/files): `<root>/<projectId>/<sha256>`, temporaries in
 * `<root>/tmp`. Directories are made on first write, so a server that never stores a file leaves
 * no trace. A promotion is a rename within one file system: atomic, so a reader sees the whole
 * file or none.
 */
export function createLocalBlobStore(root: string): BlobStore {
  const pathOf = (key: string) => join(root, checkKey(key));
  const newTemporaryKey = async () => {
    await mkdir(join(root, TEMPORARY_PREFIX), { recursive: true });
    return `${TEMPORARY_PREFIX}${randomUUID()}`;
  };

  return {
    kind: 'local',

    async upload(source, maxBytes) {
      const key = await newTemporaryKey();
      const measuring = new MeasuringStream(maxBytes);
      // Opened before the bytes flow: a stream that opens its own file may create it after a failed
      // pipeline has already removed it, leaving a stray temporary. `wx`: a fresh file, never one
      // another upload writes.
      const handle = await open(pathOf(key), 'wx');
      try {
        await pipeline(source, measuring, handle.createWriteStream());
      } catch (error) {
        await handle.close().catch(() => {});
        await rm(pathOf(key), { force: true });
        throw error;
      }
      return measuring.result(key);
    },

    async putTemporary(bytes) {
      const key = await newTemporaryKey();
      await writeFile(pathOf(key), bytes, { flag: 'wx' });
      return key;
    },

    async promote(temporaryKey, key) {
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true });
      await rename(pathOf(temporaryKey), target);
    },

    async exists(key) {
      try {
        return (await stat(pathOf(key))).isFile();
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },

    async read(key, range) {
      const stream = createReadStream(pathOf(key), range ? { start: range.start, end: range.end } : {});
      // Opened before it is handed out, so a missing file is an answer (undefined), not a broken stream.
      try {
        await new Promise<void>((resolve, reject) => {
          stream.once('open', () => resolve());
          stream.once('error', reject);
        });
      } catch (error) {
        stream.destroy();
        if (isMissing(error)) return undefined;
        throw error;
      }
      return stream;
    },

    localPath: (key) => pathOf(key),

    async remove(keys) {
      await Promise.all(keys.map((key) => rm(pathOf(key), { force: true })));
    },

    async *list(prefix = '') {
      let directories: string[];
      try {
        directories = await readdir(root);
      } catch (error) {
        if (isMissing(error)) return;
        throw error;
      }
      for (const directory of directories.sort()) {
        let names: string[];
        try {
          names = await readdir(join(root, directory));
        } catch (error) {
          // A file where a directory was expected, or a directory removed meanwhile: not ours to list.
          if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
          throw error;
        }
        for (const name of names) {
          const key = `${directory}/${name}`;
          if (!key.startsWith(prefix)) continue;
          try {
            yield { key, modified: (await stat(join(root, key))).mtime };
          } catch (error) {
            if (!isMissing(error)) throw error;
          }
        }
      }
    },
  };
}
