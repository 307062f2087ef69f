import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * Where attachment bytes live: a flat space of keys, on local disk (local.ts) or in an S3 bucket
 * (s3.ts). Keys are `<projectId>/<sha256>` (a file's bytes: the same bytes in one project are kept
 * once), `<projectId>/<sha256>.thumb` (its preview), `tmp/<uuid>` (an upload under way) and
 * `imports/<importId>` (a file waiting for its import: resources/imports).
 *
 * Nothing here knows rows: which blob may be removed is decided by resources/attachments/blobs.ts,
 * under the project's attachment lock (platform/locks.ts), never by the store.
 */
export interface BlobStore {
  readonly kind: 'local' | 's3';
  /**
   * Streams `source` to a new temporary key, computing its SHA-256 and size on the way; more than
   * `maxBytes` aborts the copy (BlobTooLargeError) and keeps nothing. `head` is the first bytes (for
   * sniffing the content type), at most HEAD_BYTES.
   */
  upload(source: NodeJS.ReadableStream, maxBytes: number): Promise<StoredUpload>;
  /** Small bytes (a thumbnail) to a new temporary key. */
  putTemporary(bytes: Buffer): Promise<string>;
  /**
   * Moves a temporary key to its final key, replacing what is there (the same bytes: keys are
   * content addresses). Called only under the project's attachment lock, inside the transaction
   * that inserts the row naming it (resources/attachments/blobs.ts says why).
   */
  promote(temporaryKey: string, key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** The bytes of `key` (from `start` to `end` inclusive, when given); undefined when there is no such key. */
  read(key: string, range?: { start: number; end: number }): Promise<NodeJS.ReadableStream | undefined>;
  /** A local path for `key` when the store is local (sharp reads a file without holding it in memory). */
  localPath(key: string): string | undefined;
  /** Removes the keys; a key already gone is no error. */
  remove(keys: readonly string[]): Promise<void>;
  /** Every key (under `prefix`), with when it was last written. */
  list(prefix?: string): AsyncIterable<{ key: string; modified: Date }>;
}

export interface StoredUpload {
  temporaryKey: string;
  size: number;
  sha256: string;
  head: Buffer;
}

/** Enough of a file's start for file-type to recognise every format it knows by its signature. */
export const HEAD_BYTES = 64 * 1024;
export const TEMPORARY_PREFIX = 'tmp/';
export const IMPORT_PREFIX = 'imports/';
export const importKey = (importId: string) => checkKey(`${IMPORT_PREFIX}${importId.toLowerCase()}`);

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The file exceeds ${maxBytes} bytes`);
  }
}

/** A key the stores accept: the shapes above, nothing that could climb out of a directory. */
const KEY = /^(tmp\/[0-9a-f-]{36}|imports\/[0-9a-f-]{36}|[0-9a-f-]{36}\/[0-9a-f]{64}(\.thumb)?)$/;
export const isBlobKey = (key: string) => KEY.test(key);
export function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`Not a blob key: ${key}`);
  return key;
}

export const contentKey = (projectId: string, sha256: string) => checkKey(`${projectId.toLowerCase()}/${sha256}`);
export const thumbnailKey = (projectId: string, sha256: string) => checkKey(`${projectId.toLowerCase()}/${sha256}.thumb`);

/**
 * Passes bytes through while hashing and counting them, keeping the first HEAD_BYTES; fails the
 * stream (so the pipeline aborts and the store drops what it wrote) as soon as more than
 * `maxBytes` have come, without waiting for the rest.
 */
export class MeasuringStream extends Transform {
  private readonly hash = createHash('sha256');
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;
  size = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return done(new BlobTooLargeError(this.maxBytes));
    this.hash.update(chunk);
    if (this.headLength < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.headLength);
      this.headChunks.push(Buffer.from(part));
      this.headLength += part.length;
    }
    done(null, chunk);
  }

  result(temporaryKey: string): StoredUpload {
    return { temporaryKey, size: this.size, sha256: this.hash.digest('hex'), head: Buffer.concat(this.headChunks) };
  }
}
