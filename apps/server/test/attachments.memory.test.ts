import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedKeys, temporaryDataDir } from './support/attachments';
import { freePort } from './support/ports';
import { call, type ServerProcess, startServerProcess, statusBytes } from './support/server-process';

const MiB = 1024 * 1024;

/** Uploads `size` random bytes as one multipart part `file`, streamed: neither side ever holds the file. */
async function streamUpload(baseUrl: string, token: string, taskId: string, size: number) {
  const boundary = `----tasklane${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  let sent = 0;
  let headSent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!headSent) {
        headSent = true;
        controller.enqueue(head);
      } else if (sent < size) {
        const chunk = randomBytes(Math.min(64 * 1024, size - sent));
        sent += chunk.length;
        controller.enqueue(chunk);
      } else {
        controller.enqueue(tail);
        controller.close();
      }
    },
  });
  const response = await fetch(`${baseUrl}/api/v1/tasks/${taskId}/attachments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + size + tail.length) },
    body,
    duplex: 'half',
  } as RequestInit);
  return { status: response.status, body: (await response.json()) as { size: number } };
}

/**
 * A 100 MiB upload raises the server's resident memory by less than 25 MiB (a server that held the
 * file would rise by more than the file; what rises anyway is V8 at its own time: optimising the
 * embedded database's WebAssembly, growing its heap, measured up to 17 MiB): measured on the built
 * server as a process of its own, its peak resident set (VmHWM, reset just before through
 * /proc/<pid>/clear_refs) against its resident set before the upload.
 */
describe('the memory of a large upload', () => {
  const dataDir = temporaryDataDir();
  let server: ServerProcess;
  let token: string;
  let taskId: string;

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dataDir.dir, ATTACHMENT_MAX_BYTES: String(110 * MiB) }, await freePort());
    const registered = await call(server.baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Ada', email: 'ada@example.com', password: 'password-123' } });
    token = registered.body.access_token;
    const project = await call(server.baseUrl, 'POST', '/api/v1/projects', { token, body: { name: 'Memory' } });
    taskId = (await call(server.baseUrl, 'POST', '/api/v1/tasks', { token, body: { title: 'Big files', projectId: project.body.id } })).body.id;
  }, 120_000);
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    dataDir.remove();
  });

  it('stays within 25 MiB of resident memory for a 100 MiB file', async () => {
    const pid = server.child.pid!;
    // The code paths warmed up first: what is measured is the upload, not the first use of its modules.
    expect((await streamUpload(server.baseUrl, token, taskId, 2 * MiB)).status).toBe(201);
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const before = statusBytes(pid, 'VmRSS');
    const uploaded = await streamUpload(server.baseUrl, token, taskId, 100 * MiB);
    expect(uploaded).toMatchObject({ status: 201, body: { size: 100 * MiB } });
    const peak = statusBytes(pid, 'VmHWM');
    expect({ raisedMiB: (peak - before) / MiB }).toEqual({ raisedMiB: expect.toSatisfy((raised: number) => raised < 25) });
    expect(storedKeys(dataDir.dir).filter((key) => !key.startsWith('tmp/'))).toHaveLength(2);
  }, 120_000);
});
