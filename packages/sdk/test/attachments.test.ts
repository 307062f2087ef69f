import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTasklaneClient, TasklaneError, type TasklaneClient } from '../src/index';
import { startServer } from './server';

const MAX_BYTES = 2_000_000;
const QUOTA = 3_000_000;

let server: Awaited<ReturnType<typeof startServer>>;
let scratch: string;
let unique = 0;

beforeAll(async () => {
  server = await startServer({ ATTACHMENT_MAX_BYTES: String(MAX_BYTES), PROJECT_STORAGE_QUOTA: String(QUOTA) });
  scratch = await mkdtemp(join(tmpdir(), 'tasklane-sdk-attachments-'));
});
afterAll(async () => {
  await server?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function taskOf(): Promise<{ tl: TasklaneClient; taskId: string; userId: string; projectId: string }> {
  const tl = createTasklaneClient({ baseUrl: server.baseUrl });
  const session = await tl.auth.register({ name: 'Ada', email: `files-${Date.now().toString(36)}-${(unique += 1)}@example.com`, password: 'secret-password' });
  const project = await tl.projects.create({ name: `Files ${unique}` });
  const task = await tl.tasks.create({ projectId: project.id, title: 'Keep the files' });
  return { tl, taskId: task.id, userId: session.user.id, projectId: project.id };
}

async function failure(call: Promise<unknown>): Promise<TasklaneError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TasklaneError);
  return error as TasklaneError;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const downloaded = async (tl: TasklaneClient, id: string) => new Uint8Array(await (await tl.attachments.download(id)).arrayBuffer());

/** A PNG of one red pixel: the server sniffs it as image/png whatever the name says. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

describe('tl.attachments', () => {
  it('uploads a Blob and a File, and downloads the same bytes', async () => {
    const { tl, taskId, userId } = await taskOf();
    const bytes = randomBytes(300_000);
    const progress: number[] = [];
    const fromBlob = await tl.attachments.upload(taskId, new Blob([bytes]), { filename: 'data.bin', onProgress: ({ loaded }) => progress.push(loaded) });
    expect(fromBlob).toMatchObject({ taskId, commentId: null, filename: 'data.bin', size: bytes.length, sha256: sha256(bytes), uploaderId: userId, thumbnail: false });
    expect(progress.at(-1)).toBe(bytes.length);
    expect(Buffer.from(await downloaded(tl, fromBlob.id)).equals(bytes)).toBe(true);

    // A File keeps its own name (Unicode included); the content type comes from the bytes.
    const fromFile = await tl.attachments.upload(taskId, new File([PNG], "Ada's Übersicht 📎 \"v2\".png", { type: 'text/plain' }));
    expect(fromFile).toMatchObject({ filename: "Ada's Übersicht 📎 \"v2\".png", contentType: 'image/png', size: PNG.length });
    expect(Buffer.from(await downloaded(tl, fromFile.id)).equals(PNG)).toBe(true);
  });

  it('uploads a Node stream as it is read: a file stream keeps its base name, any Readable works', async () => {
    const { tl, taskId } = await taskOf();
    const bytes = randomBytes(1_500_000);
    const path = join(scratch, 'report.log');
    await writeFile(path, bytes);
    let loaded = 0;
    const fromFile = await tl.attachments.upload(taskId, createReadStream(path, { highWaterMark: 64 * 1024 }), { onProgress: (progress) => (loaded = progress.loaded) });
    expect(fromFile).toMatchObject({ filename: 'report.log', size: bytes.length, sha256: sha256(bytes) });
    expect(loaded).toBe(bytes.length);
    expect(Buffer.from(await downloaded(tl, fromFile.id)).equals(bytes)).toBe(true);

    const generated = Readable.from(
      (function* () {
        for (let i = 0; i < 10; i += 1) yield Buffer.alloc(10_000, i);
      })(),
    );
    const fromReadable = await tl.attachments.upload(taskId, generated, { filename: 'zeros.bin' });
    expect(fromReadable).toMatchObject({ filename: 'zeros.bin', size: 100_000 });
    const back = await downloaded(tl, fromReadable.id);
    expect(back.length).toBe(100_000);
    expect([back[0], back[10_000], back[99_999]]).toEqual([0, 1, 9]);
  });

  it('maps refusals to TasklaneError: 413 PAYLOAD_TOO_LARGE and QUOTA_EXCEEDED, 404 for an unknown task or attachment', async () => {
    const { tl, taskId } = await taskOf();
    const tooLarge = await failure(tl.attachments.upload(taskId, new Blob([randomBytes(MAX_BYTES + 1)]), { filename: 'big.bin' }));
    expect([tooLarge.httpStatus, tooLarge.code, tooLarge.reason]).toEqual([413, 'PAYLOAD_TOO_LARGE', 'PAYLOAD_TOO_LARGE']);
    const tooLargeStream = await failure(tl.attachments.upload(taskId, Readable.from([randomBytes(MAX_BYTES + 1)]), { filename: 'big.bin' }));
    expect([tooLargeStream.httpStatus, tooLargeStream.reason]).toEqual([413, 'PAYLOAD_TOO_LARGE']);

    await tl.attachments.upload(taskId, new Blob([randomBytes(MAX_BYTES - 1000)]), { filename: 'first.bin' });
    const overQuota = await failure(tl.attachments.upload(taskId, new Blob([randomBytes(MAX_BYTES - 1000)]), { filename: 'second.bin' }));
    expect([overQuota.httpStatus, overQuota.reason]).toEqual([413, 'QUOTA_EXCEEDED']);

    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await failure(tl.attachments.upload(unknown, new Blob(['x'])))).httpStatus).toBe(404);
    expect((await failure(tl.attachments.download(unknown))).code).toBe('NOT_FOUND');
  });
});
