import { join } from 'node:path';
import type { BlobStore } from './blob-store';
import { createLocalBlobStore } from './local';
import type { S3Config } from './s3';

export * from './blob-store';
export type { S3Config } from './s3';

/**
 * The configured store: the S3 bucket when S3_BUCKET is set, else files under DATA_DIR/files. The S3
 * client is loaded only in bucket mode: the AWS SDK is about 10 MB of memory a server on local files
 * would hold for nothing.
 */
export const createBlobStore = async (options: { dataDir: string; s3?: S3Config }): Promise<BlobStore> =>
  options.s3 ? (await import('./s3')).createS3BlobStore(options.s3) : createLocalBlobStore(join(options.dataDir, 'files'));
