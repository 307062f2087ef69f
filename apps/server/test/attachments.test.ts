import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBytes, multipartBody, storedKeys, temporaryDataDir, upload } from './support/attachments';
import { expectErrorBody } from './support/checks';
import { type Cast, castProject, createProject, createTask, registerUser, startTestApp, type TestApp, type TestUser } from './support/harness';

const MAX_BYTES = 200_000;
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** A PNG chunk: length, type, data, CRC. */
const chunk = (type: string, data: Buffer) => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/** A valid PNG header claiming `width`×`height` RGB pixels, with one row of image data: decoding it would need the whole image in memory. */
function hugePngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(2, 9); // RGB
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(1 + width * 3))), chunk('IEND', Buffer.alloc(0))]);
}

/** Waits until `condition` holds (file work runs after the commit), failing after a generous while. */
async function eventually(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Never happened: ${what}`);
}

/** The name a Content-Disposition's `filename*=UTF-8''…` gives. */
const extendedFilename = (header: unknown) => decodeURIComponent(/filename\*=UTF-8''([^;]+)/.exec(String(header))![1]!);

describe('attachments', () => {
  let t: TestApp;
  const dataDir = temporaryDataDir();
  const cast = {} as Cast;
  let stranger: TestUser;
  let projectId: string;
  let taskId: string;

  beforeAll(async () => {
    t = await startTestApp({ dataDir: dataDir.dir, attachments: { maxBytes: MAX_BYTES, linkTtlSeconds: 300, quotaBytes: 300_000, sweepIntervalMs: 3_600_000, temporaryMaxAgeMs: 3_600_000 } });
    for (const role of ['VIEWER', 'EDITOR', 'ADMIN', 'owner'] as const) cast[role] = await registerUser(t, role);
    stranger = await registerUser(t, 'Stranger');
    projectId = (await castProject(t, cast, 'Files')).projectId;
    taskId = (await createTask(t, cast.owner, projectId)).id;
  });
  afterAll(async () => {
    await t.close();
    dataDir.remove();
  });

  const contentKeyOf = (project: string, bytes: Buffer | string) => `${project}/${sha256(bytes)}`;

  it('uploads a file (201, Location), lists it oldest first and reads it', async () => {
    const own = await createTask(t, cast.owner, projectId, { title: 'Own list' });
    const first = await upload(t, cast.EDITOR.token, own.id, 'notes.txt', 'First notes', 'text/plain');
    expect(first.status).toBe(201);
    expect(first.headers.location).toBe(`/api/v1/attachments/${first.body.id}`);
    expect(first.body).toMatchObject({
      taskId: own.id,
      commentId: null,
      filename: 'notes.txt',
      contentType: 'application/octet-stream',
      size: 11,
      sha256: sha256('First notes'),
      uploaderId: cast.EDITOR.id,
      thumbnail: false,
    });
    expect(first.body.downloadUrl).toMatch(new RegExp(`^/api/v1/attachments/${first.body.id}/content\\?expires=\\d+&signature=[\\w-]+$`));
    const second = await upload(t, cast.ADMIN.token, own.id, 'second.bin', Buffer.from([1, 2, 3]));
    const list = await t.request('GET', `/api/v1/tasks/${own.id}/attachments`, { token: cast.VIEWER.token });
    expect(list.status).toBe(200);
    expect(list.body.map((item: { id: string }) => item.id)).toEqual([first.body.id, second.body.id]);
    const read = await t.request('GET', `/api/v1/attachments/${first.body.id}`, { token: cast.VIEWER.token });
    expect(read.status).toBe(200);
    expect({ ...read.body, downloadUrl: undefined }).toEqual({ ...first.body, downloadUrl: undefined });
    expect(storedKeys(dataDir.dir)).toContain(contentKeyOf(projectId, 'First notes'));
  });

  it('serves the bytes by token and by signed link, safely; a tampered or expired link is a 403', async () => {
    const uploaded = await upload(t, cast.EDITOR.token, taskId, 'report.txt', 'The report');
    const byToken = await getBytes(t, `/api/v1/attachments/${uploaded.body.id}/content`, { token: cast.VIEWER.token });
    expect(byToken.status).toBe(200);
    expect(byToken.bytes.toString()).toBe('The report');
    expect(byToken.headers).toMatchObject({
      'content-type': 'application/octet-stream',
      'x-content-type-options': 'nosniff',
      'content-security-policy': 'sandbox',
      etag: `"${sha256('The report')}"`,
      'accept-ranges': 'bytes',
      'content-length': '10',
    });
    expect(byToken.headers['content-disposition']).toBe(`attachment; filename="report.txt"`);
    const byLink = await getBytes(t, uploaded.body.downloadUrl);
    expect(byLink.status).toBe(200);
    expect(byLink.bytes.toString()).toBe('The report');

    const other = await upload(t, cast.EDITOR.token, taskId, 'other.txt', 'Other bytes');
    const tampered = [
      uploaded.body.downloadUrl.replace(/signature=(.)/, (_: string, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`),
      uploaded.body.downloadUrl.replace(/expires=(\d+)/, (_: string, expires: string) => `expires=${Number(expires) + 3600}`),
      uploaded.body.downloadUrl.replace(uploaded.body.id, other.body.id),
      `/api/v1/attachments/${uploaded.body.id}/content?expires=1&signature=x`,
      `/api/v1/attachments/${uploaded.body.id}/content?signature=abc`,
    ];
    for (const url of tampered) expectErrorBody(await getBytes(t, url), 403, { reason: 'INVALID_SIGNED_LINK' });
    // Without a token and without a link: 401.
    expectErrorBody(await getBytes(t, `/api/v1/attachments/${uploaded.body.id}/content`), 401);
  });

  it('refuses an expired signed link (403)', async () => {
    const short = await startTestApp({ dataDir: dataDir.dir, attachments: { maxBytes: MAX_BYTES, linkTtlSeconds: 1, sweepIntervalMs: 3_600_000, temporaryMaxAgeMs: 3_600_000 } });
    try {
      const owner = await registerUser(short, 'Owner');
      const project = await createProject(short, owner);
      const task = await createTask(short, owner, project.id);
      const uploaded = await upload(short, owner.token, task.id, 'brief.txt', 'Brief');
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expectErrorBody(await getBytes(short, uploaded.body.downloadUrl), 403, { reason: 'INVALID_SIGNED_LINK' });
      // A fresh link works.
      const fresh = await short.request('GET', `/api/v1/attachments/${uploaded.body.id}`, { token: owner.token });
      expect((await getBytes(short, fresh.body.downloadUrl)).status).toBe(200);
    } finally {
      await short.close();
    }
  });

  it('answers a range (206), an unsatisfiable one (416) and a known ETag (304)', async () => {
    const bytes = Buffer.from('0123456789abcdefghij');
    const uploaded = await upload(t, cast.EDITOR.token, taskId, 'digits.bin', bytes);
    const url = `/api/v1/attachments/${uploaded.body.id}/content`;
    const part = await getBytes(t, url, { token: cast.VIEWER.token, headers: { range: 'bytes=5-9' } });
    expect(part.status).toBe(206);
    expect(part.bytes.toString()).toBe('56789');
    expect(part.headers).toMatchObject({ 'content-range': 'bytes 5-9/20', 'content-length': '5' });
    const tail = await getBytes(t, url, { token: cast.VIEWER.token, headers: { range: 'bytes=-3' } });
    expect(tail.bytes.toString()).toBe('hij');
    const outside = await getBytes(t, url, { token: cast.VIEWER.token, headers: { range: 'bytes=100-200' } });
    expectErrorBody(outside, 416);
    expect(outside.headers['content-range']).toBe('bytes */20');
    const etag = part.headers.etag as string;
    // If-None-Match as on every read with an ETag (preconditions.test.ts): weak comparison, lists, `*` alone.
    for (const naming of [etag, `W/${etag}`, `"0", ${etag}`, '*']) {
      const notModified = await getBytes(t, url, { token: cast.VIEWER.token, headers: { 'if-none-match': naming } });
      expect({ naming, status: notModified.status, etag: notModified.headers.etag }).toEqual({ naming, status: 304, etag });
      expect(notModified.bytes.length).toBe(0);
    }
    for (const other of ['"0"', 'not-a-tag', `*, ${etag}`]) {
      expect((await getBytes(t, url, { token: cast.VIEWER.token, headers: { 'if-none-match': other } })).status).toBe(200);
    }
    // A stranger's conditional read is still a 404.
    expectErrorBody(await getBytes(t, url, { token: stranger.token, headers: { 'if-none-match': etag } }), 404);
    // If-Range naming another version: the whole file.
    const whole = await getBytes(t, url, { token: cast.VIEWER.token, headers: { range: 'bytes=0-1', 'if-range': '"other"' } });
    expect(whole.status).toBe(200);
    expect(whole.bytes).toEqual(bytes);
    const head = await getBytes(t, url, { token: cast.VIEWER.token, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('20');
  });

  it('refuses a file over ATTACHMENT_MAX_BYTES (413) and keeps nothing: no row, no file', async () => {
    const project = (await createProject(t, cast.owner, 'Limits')).id;
    const task = await createTask(t, cast.owner, project);
    const before = storedKeys(dataDir.dir);
    const exact = await upload(t, cast.owner.token, task.id, 'exact.bin', Buffer.alloc(MAX_BYTES, 1));
    expect(exact.status).toBe(201);
    // One byte over, many times: a refused file's temporary must be gone every time, not just usually.
    for (const size of [...Array.from({ length: 12 }, () => MAX_BYTES + 1), MAX_BYTES * 10]) {
      const refused = await upload(t, cast.owner.token, task.id, 'big.bin', Buffer.alloc(size, 2));
      expectErrorBody(refused, 413, { reason: 'PAYLOAD_TOO_LARGE' });
    }
    const list = await t.request('GET', `/api/v1/tasks/${task.id}/attachments`, { token: cast.owner.token });
    expect(list.body.map((item: { filename: string }) => item.filename)).toEqual(['exact.bin']);
    expect(storedKeys(dataDir.dir)).toEqual([...before, contentKeyOf(project, Buffer.alloc(MAX_BYTES, 1))].sort());
  });

  it('keeps the same bytes once per project, and enforces PROJECT_STORAGE_QUOTA (413 QUOTA_EXCEEDED) on distinct bytes', async () => {
    const project = (await createProject(t, cast.owner, 'Quota')).id;
    const task = await createTask(t, cast.owner, project);
    const a = Buffer.alloc(150_000, 'a');
    const b = Buffer.alloc(150_000, 'b');
    const first = await upload(t, cast.owner.token, task.id, 'a1.bin', a);
    const again = await upload(t, cast.owner.token, task.id, 'a2.bin', a);
    expect(again.body.sha256).toBe(first.body.sha256);
    expect(storedKeys(dataDir.dir).filter((key) => key.startsWith(`${project}/`))).toEqual([contentKeyOf(project, a)]);
    expect((await t.request('GET', `/api/v1/projects/${project}`, { token: cast.owner.token })).body.storageBytes).toBe(150_000);
    expect((await upload(t, cast.owner.token, task.id, 'b.bin', b)).status).toBe(201);
    expectErrorBody(await upload(t, cast.owner.token, task.id, 'c.bin', 'one byte more'), 413, { reason: 'QUOTA_EXCEEDED' });
    // Bytes already stored cost nothing more.
    expect((await upload(t, cast.owner.token, task.id, 'b2.bin', b)).status).toBe(201);
    expect((await t.request('GET', `/api/v1/projects/${project}`, { token: cast.owner.token })).body.storageBytes).toBe(300_000);
    expect(storedKeys(dataDir.dir).filter((key) => key.startsWith(`${project}/`) || key.startsWith('tmp/'))).toEqual([contentKeyOf(project, a), contentKeyOf(project, b)].sort());
  });

  it('decides the type from the bytes: HTML named a.png is no image, SVG and HTML are never inline', async () => {
    const html = await upload(t, cast.EDITOR.token, taskId, 'a.png', '<html><script>alert(1)</script></html>', 'image/png');
    expect(html.body.contentType).not.toMatch(/^image\/|html/);
    const svg = await upload(t, cast.EDITOR.token, taskId, 'logo.svg', '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', 'image/svg+xml');
    const bareSvg = await upload(t, cast.EDITOR.token, taskId, 'plain.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml');
    for (const uploaded of [html, svg, bareSvg]) {
      const served = await getBytes(t, uploaded.body.downloadUrl);
      expect(served.headers['content-type']).not.toMatch(/^image\/|html|svg/);
      expect(served.headers['content-disposition']).toMatch(/^attachment;/);
      expect(served.headers['content-security-policy']).toBe('sandbox');
    }
    const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#336699' } }).png().toBuffer();
    const image = await upload(t, cast.EDITOR.token, taskId, 'picture.txt', png, 'text/plain');
    expect(image.body.contentType).toBe('image/png');
    expect((await getBytes(t, image.body.downloadUrl)).headers['content-disposition']).toBe('inline; filename="picture.txt"');
    const pdf = await upload(t, cast.EDITOR.token, taskId, 'spec', '%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
    expect(pdf.body.contentType).toBe('application/pdf');
    expect((await getBytes(t, pdf.body.downloadUrl)).headers).toMatchObject({ 'content-type': 'application/pdf', 'content-disposition': 'inline; filename="spec"' });
  });

  it('keeps filenames for display: quotes, emoji and RTL text kept; slashes, controls and bidi overrides removed; at most 255 bytes', async () => {
    const cases: [string, string][] = [
      ['say "hi".txt', 'say "hi".txt'],
      ['../../etc/passwd', '....etcpasswd'],
      ['dir\\evil.bat', 'direvil.bat'],
      ['invoice\u202Egnp.exe', 'invoicegnp.exe'],
      ['\u200Fשלום.txt', 'שלום.txt'],
      ['📎 notes 👩‍💻.txt', '📎 notes 👩‍💻.txt'],
      ['/', 'file'],
    ];
    for (const [sent, kept] of cases) {
      const uploaded = await upload(t, cast.EDITOR.token, taskId, sent, 'x');
      expect(uploaded.body.filename).toBe(kept);
      const disposition = (await getBytes(t, uploaded.body.downloadUrl)).headers['content-disposition'];
      expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]*"(; filename\*=UTF-8''.+)?$/);
      if (/filename\*/.test(String(disposition))) expect(extendedFilename(disposition)).toBe(kept);
    }
    // A control character, sent percent-encoded (RFC 5987), is removed too.
    const { body, contentType } = multipartBody([{ name: 'file', rawParameters: `; filename*=UTF-8''bell%07ring.txt`, content: 'x' }]);
    const controlled = await t.request('POST', `/api/v1/tasks/${taskId}/attachments`, { token: cast.EDITOR.token, rawBody: body, headers: { 'content-type': contentType } });
    expect(controlled.body.filename).toBe('bellring.txt');
    const long = await upload(t, cast.EDITOR.token, taskId, `${'ü'.repeat(200)}.txt`, 'x');
    expect(Buffer.byteLength(long.body.filename)).toBeLessThanOrEqual(255);
    expect(long.body.filename).toBe('ü'.repeat(127));
  });

  it('answers a body without a `file` part (400 FILE_REQUIRED) and one that is no multipart (415)', async () => {
    const { body, contentType } = multipartBody([{ name: 'other', filename: 'a.txt', content: 'x' }]);
    expectErrorBody(await t.request('POST', `/api/v1/tasks/${taskId}/attachments`, { token: cast.EDITOR.token, rawBody: body, headers: { 'content-type': contentType } }), 400, { reason: 'FILE_REQUIRED' });
    const empty = multipartBody([]);
    expectErrorBody(await t.request('POST', `/api/v1/tasks/${taskId}/attachments`, { token: cast.EDITOR.token, rawBody: empty.body, headers: { 'content-type': empty.contentType } }), 400, { reason: 'FILE_REQUIRED' });
    expectErrorBody(await t.request('POST', `/api/v1/tasks/${taskId}/attachments`, { token: cast.EDITOR.token, body: { file: 'x' } }), 415);
  });

  it('answers a body that ends early with a 400 (was a 500) and keeps nothing: no row, no file', async () => {
    const before = storedKeys(dataDir.dir);
    // A small file is parsed to the body's end before the route reads it, a middling one while the
    // upload opens its temporary file, a large one while it is written: each ends in a 400.
    for (const size of [1024, 30 * 1024, 100 * 1024]) {
      const whole = multipartBody([{ name: 'file', filename: 'cut.txt', content: Buffer.alloc(size, 'c') }]);
      // No part at all; inside the part's headers; inside the file (its last ~100 bytes and the closing boundary gone).
      for (const rawBody of [Buffer.from('{}'), whole.body.subarray(0, 60), whole.body.subarray(0, whole.body.length - 150)]) {
        const cut = await t.request('POST', `/api/v1/tasks/${taskId}/attachments`, { token: cast.EDITOR.token, rawBody, headers: { 'content-type': whole.contentType } });
        expectErrorBody(cut, 400, { message: expect.stringMatching(/^Malformed multipart body: /), reason: 'FILE_REQUIRED' });
      }
    }
    const listed = await t.request('GET', `/api/v1/tasks/${taskId}/attachments`, { token: cast.EDITOR.token });
    expect(listed.body.map((item: { filename: string }) => item.filename)).not.toContain('cut.txt');
    expect(storedKeys(dataDir.dir)).toEqual(before);
  });

  it('lets every member read, editors upload, the uploader and ADMIN or owner delete; non-members get 404', async () => {
    const byEditor = await upload(t, cast.EDITOR.token, taskId, 'editor.txt', 'by the editor');
    const id = byEditor.body.id as string;
    for (const role of ['VIEWER', 'EDITOR', 'ADMIN', 'owner'] as const) {
      const token = cast[role].token;
      expect((await t.request('GET', `/api/v1/tasks/${taskId}/attachments`, { token })).status).toBe(200);
      expect((await t.request('GET', `/api/v1/attachments/${id}`, { token })).status).toBe(200);
      expect((await getBytes(t, `/api/v1/attachments/${id}/content`, { token })).status).toBe(200);
    }
    expectErrorBody(await upload(t, cast.VIEWER.token, taskId, 'viewer.txt', 'no'), 403);
    expectErrorBody(await t.request('DELETE', `/api/v1/attachments/${id}`, { token: cast.VIEWER.token }), 403);
    const byAdmin = await upload(t, cast.ADMIN.token, taskId, 'admin.txt', 'by the admin');
    expectErrorBody(await t.request('DELETE', `/api/v1/attachments/${byAdmin.body.id}`, { token: cast.EDITOR.token }), 403);
    // Non-members: 404 everywhere, as for an unknown id.
    const token = stranger.token;
    expectErrorBody(await upload(t, token, taskId, 'x.txt', 'x'), 404);
    expectErrorBody(await t.request('GET', `/api/v1/tasks/${taskId}/attachments`, { token }), 404);
    expectErrorBody(await t.request('GET', `/api/v1/attachments/${id}`, { token }), 404);
    expectErrorBody(await getBytes(t, `/api/v1/attachments/${id}/content`, { token }), 404);
    expectErrorBody(await getBytes(t, `/api/v1/attachments/${id}/thumbnail`, { token }), 404);
    expectErrorBody(await t.request('DELETE', `/api/v1/attachments/${id}`, { token }), 404);
    expectErrorBody(await getBytes(t, `/api/v1/attachments/not-an-id/content`, { token }), 404);
    // The uploader deletes their own; ADMIN and owner anyone's.
    expect((await t.request('DELETE', `/api/v1/attachments/${id}`, { token: cast.EDITOR.token })).body).toEqual({ message: 'Attachment deleted' });
    expect((await t.request('DELETE', `/api/v1/attachments/${byAdmin.body.id}`, { token: cast.owner.token })).status).toBe(200);
    expectErrorBody(await t.request('GET', `/api/v1/attachments/${id}`, { token: cast.owner.token }), 404);
    expectErrorBody(await getBytes(t, byEditor.body.downloadUrl), 404);
  });

  it('records attachment.created and attachment.deleted in the task history', async () => {
    const task = await createTask(t, cast.owner, projectId, { title: 'History' });
    const uploaded = await upload(t, cast.EDITOR.token, task.id, 'h.txt', 'history');
    await t.request('DELETE', `/api/v1/attachments/${uploaded.body.id}`, { token: cast.EDITOR.token });
    const history = await t.request('GET', `/api/v1/tasks/${task.id}/activity`, { token: cast.owner.token });
    const types = history.body.map((entry: { type: string }) => entry.type);
    expect(types).toEqual(expect.arrayContaining(['attachment.created', 'attachment.deleted']));
    const created = history.body.find((entry: { type: string }) => entry.type === 'attachment.created');
    expect(created).toMatchObject({ taskId: task.id, resource: { id: uploaded.body.id, sha256: uploaded.body.sha256, filename: 'h.txt' } });
  });

  it('removes a file after its last attachment is deleted, and with its task or project', async () => {
    const project = (await createProject(t, cast.owner, 'Removals')).id;
    const [one, two] = [await createTask(t, cast.owner, project), await createTask(t, cast.owner, project)];
    const shared = await upload(t, cast.owner.token, one.id, 'shared.txt', 'shared bytes');
    const copy = await upload(t, cast.owner.token, two.id, 'copy.txt', 'shared bytes');
    const own = await upload(t, cast.owner.token, one.id, 'own.txt', 'own bytes');
    const key = contentKeyOf(project, 'shared bytes');
    const has = (wanted: string) => storedKeys(dataDir.dir).includes(wanted);
    await t.request('DELETE', `/api/v1/attachments/${shared.body.id}`, { token: cast.owner.token });
    // Still named by the copy: kept.
    expect(has(key)).toBe(true);
    await t.request('DELETE', `/api/v1/attachments/${copy.body.id}`, { token: cast.owner.token });
    await eventually(() => !has(key), 'the shared file removed after its last attachment');
    expect(has(contentKeyOf(project, 'own bytes'))).toBe(true);
    expect((await t.request('DELETE', `/api/v1/tasks/${one.id}`, { token: cast.owner.token })).status).toBe(200);
    await eventually(() => !has(contentKeyOf(project, 'own bytes')), "the task's file removed with the task");
    expectErrorBody(await t.request('GET', `/api/v1/attachments/${own.body.id}`, { token: cast.owner.token }), 404);
    await upload(t, cast.owner.token, two.id, 'last.txt', 'last bytes');
    expect(has(contentKeyOf(project, 'last bytes'))).toBe(true);
    expect((await t.request('DELETE', `/api/v1/projects/${project}`, { token: cast.owner.token })).status).toBe(200);
    await eventually(() => !storedKeys(dataDir.dir).some((stored) => stored.startsWith(`${project}/`)), "the project's files removed with it");
  });

  it('makes WebP previews of PNG and JPEG at most 400 px; none for other files or images over 50 megapixels', async () => {
    const png = await sharp({ create: { width: 1200, height: 800, channels: 4, background: '#ff000080' } }).png().toBuffer();
    const jpeg = await sharp({ create: { width: 300, height: 600, channels: 3, background: '#00ff00' } }).jpeg().toBuffer();
    for (const [name, bytes, width, height] of [['wide.png', png, 400, 267], ['tall.jpg', jpeg, 200, 400]] as const) {
      const uploaded = await upload(t, cast.EDITOR.token, taskId, name, bytes);
      expect(uploaded.body.thumbnail).toBe(true);
      const preview = await getBytes(t, `/api/v1/attachments/${uploaded.body.id}/thumbnail`, { token: cast.VIEWER.token });
      expect(preview.status).toBe(200);
      expect(preview.headers['content-type']).toBe('image/webp');
      const metadata = await sharp(preview.bytes).metadata();
      expect({ format: metadata.format, width: metadata.width, height: metadata.height }).toEqual({ format: 'webp', width, height });
      expect(storedKeys(dataDir.dir)).toContain(`${contentKeyOf(projectId, bytes)}.thumb`);
    }
    const text = await upload(t, cast.EDITOR.token, taskId, 'plain.txt', 'no image');
    expect(text.body.thumbnail).toBe(false);
    expectErrorBody(await getBytes(t, `/api/v1/attachments/${text.body.id}/thumbnail`, { token: cast.VIEWER.token }), 404);
    const huge = await upload(t, cast.EDITOR.token, taskId, 'huge.png', hugePngHeader(10_000, 6_000));
    expect(huge.status).toBe(201);
    expect(huge.body).toMatchObject({ contentType: 'image/png', thumbnail: false });
  });

  it('sweeps files no row names and stale temporary uploads at start-up, never a named file', async () => {
    const { utimesSync, writeFileSync, mkdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { startSecondInstance } = await import('./support/second-instance');
    const named = await upload(t, cast.EDITOR.token, taskId, 'named.txt', 'named bytes');
    const files = join(dataDir.dir, 'files');
    const orphan = `${projectId}/${sha256('orphan bytes')}`;
    mkdirSync(join(files, 'tmp'), { recursive: true });
    writeFileSync(join(files, orphan), 'orphan bytes');
    writeFileSync(join(files, `${orphan}.thumb`), 'orphan preview');
    const stale = 'tmp/00000000-0000-4000-8000-000000000001';
    const fresh = 'tmp/00000000-0000-4000-8000-000000000002';
    writeFileSync(join(files, stale), 'abandoned');
    writeFileSync(join(files, fresh), 'under way');
    // An import's file no row names: old (its upload's transaction long over), and new (perhaps still committing).
    const endedImport = 'imports/00000000-0000-4000-8000-000000000003';
    const newImport = 'imports/00000000-0000-4000-8000-000000000004';
    mkdirSync(join(files, 'imports'), { recursive: true });
    writeFileSync(join(files, endedImport), '{}');
    writeFileSync(join(files, newImport), '{}');
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(join(files, stale), twoHoursAgo, twoHoursAgo);
    utimesSync(join(files, endedImport), twoHoursAgo, twoHoursAgo);
    const second = await startSecondInstance(t, { dataDir: dataDir.dir });
    try {
      await eventually(() => !storedKeys(dataDir.dir).includes(orphan) && !storedKeys(dataDir.dir).includes(stale) && !storedKeys(dataDir.dir).includes(endedImport), 'the sweep at start-up');
      const kept = storedKeys(dataDir.dir);
      expect(kept).toContain(newImport);
      expect(kept).not.toContain(`${orphan}.thumb`);
      expect(kept).toContain(contentKeyOf(projectId, 'named bytes'));
      expect(kept).toContain(fresh);
      expect((await getBytes(t, named.body.downloadUrl)).bytes.toString()).toBe('named bytes');
    } finally {
      await second.close();
      const { rmSync } = await import('node:fs');
      rmSync(join(files, fresh), { force: true });
      rmSync(join(files, newImport), { force: true });
    }
  });
  it("removes a deleted task's now-unnamed files only: a file another task names stays, and so does a stray file no event names", async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const project = (await createProject(t, cast.owner, 'Task files')).id;
    const [doomed, other] = [await createTask(t, cast.owner, project), await createTask(t, cast.owner, project)];
    await upload(t, cast.owner.token, doomed.id, 'own.txt', 'doomed own bytes');
    await upload(t, cast.owner.token, doomed.id, 'own-again.txt', 'doomed own bytes');
    await upload(t, cast.owner.token, doomed.id, 'shared.txt', 'doomed shared bytes');
    await upload(t, cast.owner.token, other.id, 'shared.txt', 'doomed shared bytes');
    // A blob no row names (as a crash leaves one): the sweep's to remove, not a task deletion's.
    const stray = contentKeyOf(project, 'stray bytes');
    mkdirSync(join(dataDir.dir, 'files', project), { recursive: true });
    writeFileSync(join(dataDir.dir, 'files', stray), 'stray bytes');
    expect((await t.request('DELETE', `/api/v1/tasks/${doomed.id}`, { token: cast.owner.token })).status).toBe(200);
    await eventually(() => !storedKeys(dataDir.dir).includes(contentKeyOf(project, 'doomed own bytes')), "the deleted task's own file removed");
    expect(storedKeys(dataDir.dir).filter((key) => key.startsWith(`${project}/`))).toEqual([contentKeyOf(project, 'doomed shared bytes'), stray].sort());
    const history = await t.request('GET', `/api/v1/projects/${project}/activity`, { token: cast.owner.token });
    const deleted = history.body.find((entry: { type: string }) => entry.type === 'task.deleted');
    expect(deleted.resource.attachmentSha256s).toEqual([sha256('doomed own bytes'), sha256('doomed shared bytes')].sort());
    expect((await t.request('GET', `/api/v1/projects/${project}`, { token: cast.owner.token })).body.storageBytes).toBe('doomed shared bytes'.length);
  });

  it('keeps storageBytes exact under concurrent uploads of the same bytes, a deletion racing an upload, and task deletions', async () => {
    const project = (await createProject(t, cast.owner, 'Storage')).id;
    const storage = async () => (await t.request('GET', `/api/v1/projects/${project}`, { token: cast.owner.token })).body.storageBytes as number;
    const [one, two] = [await createTask(t, cast.owner, project), await createTask(t, cast.owner, project)];
    const same = Buffer.alloc(10_000, 's');
    const uploads = await Promise.all([0, 1, 2, 3].map((n) => upload(t, cast.owner.token, n % 2 ? one.id : two.id, `same${n}.bin`, same)));
    expect(uploads.map((response) => response.status)).toEqual([201, 201, 201, 201]);
    expect(await storage()).toBe(10_000);
    // Every copy but one deleted while the same bytes are uploaded again, twice over.
    const racing = Buffer.alloc(3_000, 'r');
    const first = await upload(t, cast.owner.token, one.id, 'racing.bin', racing);
    const [deleted, again] = await Promise.all([
      t.request('DELETE', `/api/v1/attachments/${first.body.id}`, { token: cast.owner.token }),
      upload(t, cast.owner.token, two.id, 'racing-again.bin', racing),
    ]);
    expect([deleted.status, again.status]).toEqual([200, 201]);
    expect(await storage()).toBe(13_000);
    await t.request('DELETE', `/api/v1/attachments/${again.body.id}`, { token: cast.owner.token });
    expect(await storage()).toBe(10_000);
    // Task one's two copies go with it; task two's keep the bytes counted; then they go too.
    expect((await t.request('DELETE', `/api/v1/tasks/${one.id}`, { token: cast.owner.token })).status).toBe(200);
    expect(await storage()).toBe(10_000);
    const small = await upload(t, cast.owner.token, two.id, 'small.bin', 'tiny');
    expect(small.status).toBe(201);
    expect(await storage()).toBe(10_004);
    expect((await t.request('DELETE', `/api/v1/tasks/${two.id}`, { token: cast.owner.token })).status).toBe(200);
    expect(await storage()).toBe(0);
    await eventually(() => !storedKeys(dataDir.dir).some((key) => key.startsWith(`${project}/`)), "the tasks' files removed");
  });
});
