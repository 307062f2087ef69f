import { join } from 'node:path';
import type { BlobStore } from './blob-store';
import { createLocalBlobStore } from './local';
import { createS3BlobStore, type S3Config } from './s3';

export * from './blob-store';
export type { S3Config } from './s3';

/** The configured store: the S3 bucket when S3_BUCKET is set, else files under DATA_DIR/files. */
export const createBlobStore = (options: { dataDir: string; s3?: S3Config }): BlobStore =>
  options.s3 ? createS3BlobStore(options.s3) : createLocalBlobStore(join(options.dataDir, 'files'));
