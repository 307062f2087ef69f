import { fromBody, TasklaneError } from './errors';
import type { Attachment } from './generated/api';

/** How far an upload is: bytes sent so far, and the file's size when known. */
export interface UploadProgress {
  loaded: number;
  total: number | undefined;
}

export interface UploadOptions {
  /** The name to keep; by default a `File`'s name, a file stream's base name, else `file`. */
  filename?: string | undefined;
  /** Called as the bytes go out (in a browser, from XMLHttpRequest's upload events). */
  onProgress?: ((progress: UploadProgress) => void) | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * What `upload` takes: a `Blob` or `File`, a web `ReadableStream`, or any async iterable of bytes —
 * a Node `Readable` (`fs.createReadStream(path)`) is one, and is read as it is sent, never whole.
 */
export type UploadSource = Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface AttachmentTransfer {
  /** `POST /api/v1/tasks/{taskId}/attachments`: resolves with the stored Attachment (413s: `PAYLOAD_TOO_LARGE`, `QUOTA_EXCEEDED`). */
  upload(taskId: string, file: UploadSource, options?: UploadOptions): Promise<Attachment>;
  /** The bytes (`GET /api/v1/attachments/{id}/content`) as the server's Response: `.blob()`, `.arrayBuffer()` or `.body`. */
  download(id: string, options?: { signal?: AbortSignal | undefined }): Promise<Response>;
  /** The preview image (`GET /api/v1/attachments/{id}/thumbnail`) when `thumbnail` is true. */
  thumbnail(id: string, options?: { signal?: AbortSignal | undefined }): Promise<Response>;
}

export interface TransferContext {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  authorization: () => Promise<Record<string, string>>;
}

const encoder = new TextEncoder();

/**
 * A part header's quoted value: the name's own UTF-8, `"` and `\` escaped with a backslash (what
 * busboy, the parser behind @fastify/multipart, reads back exactly); line breaks, which no header
 * may hold, become spaces.
 */
const quoted = (value: string) => value.replace(/[\r\n]+/g, ' ').replace(/["\\]/g, (char) => `\\${char}`);
/** An RFC 5987 value: percent-encoded UTF-8, `'()*` included (encodeURIComponent leaves them, the grammar does not). */
const extended = (value: string) => encodeURIComponent(value).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

function nameOf(file: UploadSource, given: string | undefined): string {
  if (given) return given;
  if (typeof File !== 'undefined' && file instanceof File && file.name) return file.name;
  // fs.ReadStream keeps the path it reads.
  const path = (file as { path?: unknown }).path;
  if (typeof path === 'string' && path) return path.split(/[\\/]/).pop() || 'file';
  return 'file';
}

function multipartFraming(filename: string, contentType: string): { boundary: string; head: Uint8Array; tail: Uint8Array } {
  const boundary = `----tasklane-${globalThis.crypto.randomUUID()}`;
  // `filename*` (RFC 5987) too, for parsers that read the quoted value as Latin-1.
  const plain = quoted(filename);
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${plain}"; filename*=UTF-8''${extended(filename)}\r\n` +
    `Content-Type: ${contentType}\r\n\r\n`;
  return { boundary, head: encoder.encode(head), tail: encoder.encode(`\r\n--${boundary}--\r\n`) };
}

async function* chunksOf(file: UploadSource): AsyncGenerator<Uint8Array> {
  if (file instanceof Blob) return yield* chunksOf(file.stream());
  if (typeof (file as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] === 'function') {
    for await (const chunk of file as AsyncIterable<Uint8Array | string>) yield typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    return;
  }
  // A ReadableStream without async iteration (older browsers).
  const reader = (file as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** The multipart body as a stream pulled by fetch: each chunk of the file is read when the previous one has gone. */
function streamedBody(file: UploadSource, head: Uint8Array, tail: Uint8Array, onSent: (bytes: number) => void): ReadableStream<Uint8Array> {
  const parts = (async function* () {
    yield head;
    for await (const chunk of chunksOf(file)) {
      yield chunk;
      onSent(chunk.byteLength);
    }
    yield tail;
  })();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await parts.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel(reason) {
      await parts.return(reason);
    },
  });
}

export async function failureOf(response: Response): Promise<TasklaneError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return fromBody(response.status, body, response.headers);
}

/**
 * The browser's XMLHttpRequest, as far as the upload uses it: typed here so that the SDK also
 * compiles where the DOM library is not loaded (a Node project's types have no XMLHttpRequest).
 */
interface Xhr {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  upload: { onprogress: ((event: { loaded: number; total: number; lengthComputable: boolean }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
  abort(): void;
  send(body: Blob): void;
  readonly status: number;
  readonly responseText: string;
  getResponseHeader(name: string): string | null;
}
const XMLHttpRequest = (globalThis as { XMLHttpRequest?: new () => Xhr }).XMLHttpRequest;

/** A Blob's parts: the framing's bytes and the file (typed without the DOM library's BlobPart, as Xhr). */
type BlobPart = ConstructorParameters<typeof Blob>[0] extends Iterable<infer Part> | undefined ? Part : never;

/** A Blob upload in a browser: XMLHttpRequest is the one API that reports upload progress. */
function sendWithXhr(url: string, headers: Record<string, string>, body: Blob, options: UploadOptions): Promise<Attachment> {
  return new Promise((resolve, reject) => {
    if (!XMLHttpRequest) throw new TasklaneError('No XMLHttpRequest here', { code: 'CLIENT_ERROR' });
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => options.onProgress?.({ loaded: event.loaded, total: event.lengthComputable ? event.total : undefined });
    xhr.onload = () => {
      const response = new Response(xhr.responseText, {
        status: xhr.status,
        headers: { 'content-type': xhr.getResponseHeader('content-type') ?? 'application/json', 'retry-after': xhr.getResponseHeader('retry-after') ?? '' },
      });
      if (xhr.status === 201 || xhr.status === 200) resolve(response.json() as Promise<Attachment>);
      else void failureOf(response).then(reject);
    };
    xhr.onerror = () => reject(new TasklaneError('The upload could not reach the server', { code: 'CLIENT_ERROR' }));
    xhr.onabort = () => reject(options.signal?.reason ?? new TasklaneError('The upload was aborted', { code: 'CLIENT_ERROR' }));
    options.signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(body);
  });
}

/** A GET of bytes or a file beside the procedures: the server's Response when it is 2xx, else its error as a TasklaneError. */
export async function fetchFile(context: TransferContext, path: string, signal: AbortSignal | undefined): Promise<Response> {
  let response: Response;
  try {
    response = await context.fetch(`${context.baseUrl}${path}`, { headers: await context.authorization(), ...(signal ? { signal } : {}) });
  } catch (error) {
    throw TasklaneError.from(error);
  }
  if (!response.ok) throw await failureOf(response);
  return response;
}

export function attachmentTransfer(context: TransferContext): AttachmentTransfer {
  const get = (path: string, signal: AbortSignal | undefined) => fetchFile(context, path, signal);
  return {
    async upload(taskId, file, options = {}) {
      const filename = nameOf(file, options.filename);
      const contentType = (file instanceof Blob && file.type) || 'application/octet-stream';
      const { boundary, head, tail } = multipartFraming(filename, contentType);
      const url = `${context.baseUrl}/api/v1/tasks/${encodeURIComponent(taskId)}/attachments`;
      const headers = { ...(await context.authorization()), 'content-type': `multipart/form-data; boundary=${boundary}` };
      const total = file instanceof Blob ? file.size : undefined;
      if (file instanceof Blob && options.onProgress && XMLHttpRequest !== undefined) {
        return sendWithXhr(url, headers, new Blob([head as BlobPart, file, tail as BlobPart]), options);
      }
      let response: Response;
      try {
        // In a browser (no progress asked) a Blob body: browsers stream request bodies only over HTTP/2.
        // Elsewhere a stream, so a large file or a Node stream is never held whole in memory.
        const inBrowser = file instanceof Blob && XMLHttpRequest !== undefined;
        let loaded = 0;
        const body = inBrowser
          ? new Blob([head as BlobPart, file, tail as BlobPart])
          : streamedBody(file, head, tail, (bytes) => {
              loaded += bytes;
              options.onProgress?.({ loaded, total });
            });
        response = await context.fetch(url, {
          method: 'POST',
          headers,
          body,
          ...(inBrowser ? {} : { duplex: 'half' }),
          ...(options.signal ? { signal: options.signal } : {}),
        } as RequestInit);
      } catch (error) {
        throw TasklaneError.from(error);
      }
      if (!response.ok) throw await failureOf(response);
      return (await response.json()) as Attachment;
    },
    download: (id, options = {}) => get(`/api/v1/attachments/${encodeURIComponent(id)}/content`, options.signal),
    thumbnail: (id, options = {}) => get(`/api/v1/attachments/${encodeURIComponent(id)}/thumbnail`, options.signal),
  };
}
