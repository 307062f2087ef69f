import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvImportRequest, getBytes, storedKeys, temporaryDataDir, upload } from './support/attachments';
import { expectErrorBody } from './support/checks';
import { createProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';
import { freePort } from './support/ports';

const BUCKET = 'tasklane-files';
const MAX_BYTES = 6 * 1024 * 1024;
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/**
 * The core cases against a real S3-compatible server (s3rver, started here on a free port with a
 * directory of its own): upload (one part and multipart), download, Range, previews, the size
 * limit keeping nothing, deduplication and removal after the deletion commits.
 */
describe('attachments in an S3 bucket', () => {
  let t: TestApp;
  let s3rver: S3rver;
  let client: S3Client;
  let owner: TestUser;
  const s3Dir = mkdtempSync(join(tmpdir(), 'tasklane-s3rver-'));
  // DATA_DIR stays empty: the files go to the bucket.
  const dataDir = temporaryDataDir();

  beforeAll(async () => {
    const port = await freePort();
    s3rver = new S3rver({ port, address: '127.0.0.1', directory: s3Dir, silent: true, configureBuckets: [{ name: BUCKET, configs: [] }] });
    await s3rver.run();
    const s3 = { bucket: BUCKET, endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true };
    client = new S3Client({ region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    t = await startTestApp({ dataDir: dataDir.dir, attachments: { maxBytes: MAX_BYTES, linkTtlSeconds: 300, s3, sweepIntervalMs: 3_600_000, temporaryMaxAgeMs: 3_600_000 } });
    owner = await registerUser(t, 'Owner');
  });
  afterAll(async () => {
    await t.close();
    client.destroy();
    await s3rver.close();
    rmSync(s3Dir, { recursive: true, force: true });
    dataDir.remove();
  });

  const bucketKeys = async () => ((await client.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((object) => object.Key!).sort();

  async function eventually(condition: () => Promise<boolean>, what: string) {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      if (await condition()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`Never happened: ${what}`);
  }

  it('stores uploads in the bucket under their SHA-256, once per project, and serves them with Range', async () => {
    const project = (await createProject(t, owner)).id;
    const task = await createTask(t, owner, project);
    const small = await upload(t, owner.token, task.id, 'small.txt', 'Small file');
    expect(small.status).toBe(201);
    // Over one 5 MiB part: a multipart upload.
    const large = Buffer.alloc(5 * 1024 * 1024 + 1234, 7);
    const big = await upload(t, owner.token, task.id, 'large.bin', large);
    expect(big.body).toMatchObject({ size: large.length, sha256: sha256(large) });
    const again = await upload(t, owner.token, task.id, 'copy.txt', 'Small file');
    expect(again.body.sha256).toBe(small.body.sha256);
    expect(await bucketKeys()).toEqual(expect.arrayContaining([`${project}/${sha256('Small file')}`, `${project}/${sha256(large)}`]));
    expect((await bucketKeys()).filter((key) => key.startsWith(`${project}/`) || key.startsWith('tmp/'))).toHaveLength(2);
    expect(storedKeys(dataDir.dir)).toEqual([]);

    const whole = await getBytes(t, big.body.downloadUrl);
    expect(whole.status).toBe(200);
    expect(whole.bytes.equals(large)).toBe(true);
    const part = await getBytes(t, `/api/v1/attachments/${small.body.id}/content`, { token: owner.token, headers: { range: 'bytes=6-9' } });
    expect({ status: part.status, text: part.bytes.toString(), range: part.headers['content-range'] }).toEqual({ status: 206, text: 'file', range: 'bytes 6-9/10' });
    expectErrorBody(await getBytes(t, `/api/v1/attachments/${small.body.id}/content`, { token: owner.token, headers: { range: 'bytes=50-60' } }), 416);
  });

  it('refuses a file over the limit (413) leaving no object, and makes previews of images', async () => {
    const project = (await createProject(t, owner)).id;
    const task = await createTask(t, owner, project);
    const before = await bucketKeys();
    expectErrorBody(await upload(t, owner.token, task.id, 'huge.bin', Buffer.alloc(MAX_BYTES + 1, 1)), 413, { reason: 'PAYLOAD_TOO_LARGE' });
    expect(await bucketKeys()).toEqual(before);
    const png = await sharp({ create: { width: 900, height: 450, channels: 3, background: '#abcdef' } }).png().toBuffer();
    const image = await upload(t, owner.token, task.id, 'wide.png', png);
    expect(image.body.thumbnail).toBe(true);
    const preview = await getBytes(t, `/api/v1/attachments/${image.body.id}/thumbnail`, { token: owner.token });
    expect(preview.headers['content-type']).toBe('image/webp');
    expect(await sharp(preview.bytes).metadata()).toMatchObject({ width: 400, height: 200 });
    expect(await bucketKeys()).toContain(`${project}/${sha256(png)}.thumb`);
  });

  it('removes the objects after the deletion of an attachment and of a project', async () => {
    const project = (await createProject(t, owner)).id;
    const task = await createTask(t, owner, project);
    const one = await upload(t, owner.token, task.id, 'one.txt', 'one');
    await upload(t, owner.token, task.id, 'two.txt', 'two');
    expect((await t.request('DELETE', `/api/v1/attachments/${one.body.id}`, { token: owner.token })).status).toBe(200);
    await eventually(async () => !(await bucketKeys()).includes(`${project}/${sha256('one')}`), 'the deleted attachment\'s object removed');
    expect(await bucketKeys()).toContain(`${project}/${sha256('two')}`);
    expect((await t.request('DELETE', `/api/v1/projects/${project}`, { token: owner.token })).status).toBe(200);
    await eventually(async () => !(await bucketKeys()).some((key) => key.startsWith(`${project}/`)), "the project's objects removed");
  });

  it('passes an import\'s file through the bucket (the job reads it there), removed once the project is written', async () => {
    const { rawBody, headers } = csvImportRequest();
    const queued = await t.request('POST', '/api/v1/imports', { token: owner.token, rawBody, headers });
    expect(queued.status).toBe(202);
    let state = { status: 'pending', projectId: null as string | null };
    await eventually(async () => {
      state = (await t.request('GET', `/api/v1/imports/${queued.body.id}`, { token: owner.token })).body;
      return state.status !== 'pending' && state.status !== 'running';
    }, 'the import ended');
    expect(state).toMatchObject({ status: 'succeeded' });
    await eventually(async () => !(await bucketKeys()).includes(`imports/${queued.body.id}`), "the import's file removed");
    const [task] = (await t.request('GET', `/api/v1/tasks/project/${state.projectId}`, { token: owner.token })).body;
    expect(task).toMatchObject({ title: 'Imported' });
    expect(await bucketKeys()).not.toContain(expect.stringMatching(/^(imports|tmp)\//));
    // Nothing of it on the local disk: the bucket was its only place.
    expect(storedKeys(dataDir.dir)).toEqual([]);
  });
});
