import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CopyObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { type BlobStore, checkKey, MeasuringStream, TEMPORARY_PREFIX } from './blob-store';

export interface S3Config {
  bucket: string;
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

/** S3 answers a missing key with 404 (NoSuchKey, NotFound). */
const isMissing = (error: unknown) => error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404;

/**
 * The smallest part S3 accepts, and one part in flight: an upload holds at most about two parts in
 * memory (the one being sent and the one being filled), whatever the file's size.
 */
const PART_BYTES = 5 * 1024 * 1024;

/**
 * Blobs as objects of an S3-compatible bucket, through the AWS SDK v3 (credentials from the
 * configuration, else the SDK's default chain). An upload streams as a multipart upload
 * (lib-storage); one that fails or runs over the limit is aborted, so the bucket keeps no part.
 * S3 has no rename: a promotion copies server-side, then deletes the temporary object.
 */
export function createS3BlobStore(config: S3Config): BlobStore & { client: S3Client } {
  const client = new S3Client({
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config.accessKeyId && config.secretAccessKey ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } } : {}),
    // Checksums only where S3 requires them: S3-compatible servers (MinIO's older releases,
    // s3rver) refuse or mangle the SDK's default CRC32 trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = config.bucket;
  const newTemporaryKey = () => `${TEMPORARY_PREFIX}${randomUUID()}`;

  return {
    kind: 's3',
    client,

    async upload(source, maxBytes) {
      const Key = newTemporaryKey();
      const measuring = new MeasuringStream(maxBytes);
      const body = new PassThrough();
      const upload = new Upload({ client, params: { Bucket, Key, Body: body }, partSize: PART_BYTES, queueSize: 1, leavePartsOnError: false });
      const sent = upload.done();
      // Not left unhandled when the copy below fails first (it is awaited or aborted there).
      sent.catch(() => {});
      try {
        await pipeline(source, measuring, body);
        await sent;
      } catch (error) {
        await upload.abort().catch(() => {});
        // The upload's own promise settled (rejected by the abort) before the delete. It does not wait
        // for a request already on the wire; a single PUT is sent only after the body ended whole, and
        // the sweep removes any temporary left behind.
        await sent.catch(() => {});
        // A single-part upload may have completed before the failure was seen: remove it too.
        await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: [{ Key }], Quiet: true } })).catch(() => {});
        throw error;
      }
      return measuring.result(Key);
    },

    async putTemporary(bytes) {
      const Key = newTemporaryKey();
      await client.send(new PutObjectCommand({ Bucket, Key, Body: bytes }));
      return Key;
    },

    async promote(temporaryKey, key) {
      await client.send(new CopyObjectCommand({ Bucket, Key: checkKey(key), CopySource: `${Bucket}/${checkKey(temporaryKey)}` }));
      await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: [{ Key: temporaryKey }], Quiet: true } }));
    },

    async exists(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: checkKey(key) }));
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },

    async read(key, range) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: checkKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
        return object.Body as NodeJS.ReadableStream;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    localPath: () => undefined,

    async remove(keys) {
      // DeleteObjects takes up to 1000 keys a request.
      for (let start = 0; start < keys.length; start += 1000) {
        const Objects = keys.slice(start, start + 1000).map((key) => ({ Key: checkKey(key) }));
        await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects, Quiet: true } }));
      }
    },

    async *list(prefix) {
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, ...(prefix ? { Prefix: prefix } : {}), ...(ContinuationToken ? { ContinuationToken } : {}) }));
        for (const object of page.Contents ?? []) {
          if (object.Key) yield { key: object.Key, modified: object.LastModified ?? new Date(0) };
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
  };
}
