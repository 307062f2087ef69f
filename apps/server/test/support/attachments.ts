import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { assertDocumented } from './openapi-conformance';
import type { TestApp, TestResponse } from './harness';

export interface Part {
  name: string;
  filename?: string;
  /** The part's Content-Disposition parameters after `name`, verbatim (instead of `filename`). */
  rawParameters?: string;
  content: Buffer | string;
  contentType?: string;
}

/** A multipart/form-data body of the parts, as a browser or curl sends it. */
export function multipartBody(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----tasklane${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    // The name as curl sends it: UTF-8 in a quoted string, `"` and `\\` escaped with a backslash.
    const filename = part.rawParameters ?? (part.filename === undefined ? '' : `; filename="${part.filename.replace(/[\\"]/g, '\\$&')}"`);
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n`));
    if (part.filename !== undefined || part.rawParameters !== undefined) chunks.push(Buffer.from(`Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n`));
    chunks.push(Buffer.from('\r\n'), Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The parts of an import (POST /imports) of a one-task CSV, as a raw body and its headers. */
export function csvImportRequest(): { rawBody: Buffer; headers: Record<string, string> } {
  const { body, contentType } = multipartBody([
    { name: 'source', content: 'csv' },
    { name: 'mapping', content: '{"title":"Name"}' },
    { name: 'file', filename: 'tasks.csv', content: 'Name\nImported' },
  ]);
  return { rawBody: body, headers: { 'content-type': contentType } };
}

/** POST /tasks/{id}/attachments with one part `file`. */
export function upload(t: TestApp, token: string | undefined, taskId: string, filename: string, content: Buffer | string, contentType?: string): Promise<TestResponse> {
  const { body, contentType: type } = multipartBody([{ name: 'file', filename, content, ...(contentType ? { contentType } : {}) }]);
  return t.request('POST', `/api/v1/tasks/${taskId}/attachments`, { ...(token ? { token } : {}), rawBody: body, headers: { 'content-type': type } });
}

export interface BytesResponse extends TestResponse {
  bytes: Buffer;
}

/** A GET of bytes (content, thumbnail, a signed link), checked against the OpenAPI document like every response. */
export async function getBytes(t: TestApp, url: string, options: { token?: string; headers?: Record<string, string>; method?: 'GET' | 'HEAD' } = {}): Promise<BytesResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const method = options.method ?? 'GET';
  const response = await t.app.inject({ method, url, headers });
  let body: unknown = response.body;
  if (String(response.headers['content-type'] ?? '').startsWith('application/json')) body = JSON.parse(response.body);
  const received = { status: response.statusCode, body, headers: response.headers, bytes: response.rawPayload };
  await assertDocumented(t.app, method, url, received);
  return received;
}

/** A temporary DATA_DIR of a test's own, removed by `remove`. */
export function temporaryDataDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-attachments-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every file under DATA_DIR/files, by its key (`<projectId>/<sha256>`, `tmp/<uuid>`). */
export function storedKeys(dataDir: string): string[] {
  const root = join(dataDir, 'files');
  const keys: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else keys.push(relative(root, path));
    }
  };
  walk(root);
  return keys.sort();
}
