import { createTRPCUntypedClient, httpBatchLink, httpLink, splitLink, type TRPCUntypedClient } from '@trpc/client';
import { attachmentTransfer, type AttachmentTransfer } from './attachments';
import { TasklaneError } from './errors';
import { exportTransfer, type ExportTransfer } from './exports';
import { importTransfer, type ImportTransfer } from './imports';
import {
  subscribe,
  subscribeNotifications,
  type EventSubscription,
  type NotificationHandlers,
  type NotificationSubscribeInput,
  type SubscribeHandlers,
  type SubscribeInput,
} from './events';
import { PROCEDURE_KINDS } from './generated/api';
import { readingOwnWrites } from './position';
import {
  IDEMPOTENT_CREATES,
  RESOURCES,
  TOKEN_ISSUERS,
  type CallOptions,
  type ProcedurePath,
  type ResourceMethods,
  type Resources,
} from './resources';

export * from './generated/api';
export type { AttachmentTransfer, UploadOptions, UploadProgress, UploadSource } from './attachments';
export type { ExportTransfer, ProjectExportInput } from './exports';
export type { CsvMapping, ImportCounts, ImportDryRun, ImportInput, ImportQueued, ImportSource, ImportTransfer } from './imports';
export { ERROR_REASONS, TasklaneError, type ErrorCode, type ErrorIssue, type ErrorReason, type TasklaneErrorFields } from './errors';
export type { EventSubscription, ImportProgressEvent, Notification, NotificationHandlers, NotificationSubscribeInput, ProjectEvent, SubscribeHandlers, SubscribeInput } from './events';
export { RESOURCES, type CallOptions, type Input, type Method, type Output, type ProcedurePath, type ResourceMethods, type Resources } from './resources';

/** A bearer token, or a function giving the current one (called before every request). */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

export interface TasklaneClientOptions {
  /** The server's origin, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** A token, or a provider for apps that refresh. `auth.register`/`auth.login` set one unless a provider is given. */
  token?: TokenSource | undefined;
  /**
   * Called when a call answers 401. Return `true` once you have a new token (from `setToken` or your
   * provider) and the call is sent once more; otherwise it rejects with the 401.
   */
  onUnauthorized?: ((error: TasklaneError) => boolean | void | Promise<boolean | void>) | undefined;
  /**
   * The `fetch` the client calls (default: the global one). Whatever it is, the client reads its own
   * writes on a server with read replicas: it sends back the `Tasklane-Lsn` its last write answered.
   */
  fetch?: typeof globalThis.fetch | undefined;
  /** Attempts for a call that failed transiently (network, 503, 429), the first included. Default 4. */
  maxAttempts?: number | undefined;
}

/** One page of a list: its items and the cursor of the next page (`null` on the last). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** A list method of the client (`tl.tasks.list`, `tl.projects.list`, …). */
export type ListMethod<I, T> = (input: I, options?: CallOptions) => Promise<Page<T>>;

/** The raw tRPC client, for calling a procedure by its path: `tl.trpc.query('tasks.get', { id })`. */
export interface RawTrpcClient {
  query(path: string, input?: unknown, options?: { context?: Record<string, unknown>; signal?: AbortSignal }): Promise<unknown>;
  mutation(path: string, input?: unknown, options?: { context?: Record<string, unknown>; signal?: AbortSignal }): Promise<unknown>;
}

export type MethodResources = Omit<Resources, 'events'>;

export type TasklaneClient = { readonly [R in keyof Omit<MethodResources, 'projects' | 'auth' | 'imports'>]: ResourceMethods<MethodResources[R]> } & {
  /** Imports from other tools: `create` and `dryRun` (the upload of the exported file), `get` (its progress and outcome). */
  readonly imports: ResourceMethods<MethodResources['imports']> & ImportTransfer;
  /** Projects' methods, and `export({ id, format })`: the file (JSON or CSV) as the server's streamed Response. */
  readonly projects: ResourceMethods<MethodResources['projects']> & { export: ExportTransfer['projectExport'] };
  /** Account methods, and `exportMe()`: your own data (JSON) as the server's streamed Response. */
  readonly auth: ResourceMethods<MethodResources['auth']> & { exportMe: ExportTransfer['exportMe'] };
  /** Files on tasks: `list`, `get`, `delete`, and `upload` (a Blob, File or stream, sent as it is read), `download`, `thumbnail`. */
  readonly attachments: AttachmentTransfer;
  readonly events: {
    /** Live events of a project; resolves once subscribed, so no later change is missed. */
    subscribe(input: SubscribeInput, handlers: SubscribeHandlers): Promise<EventSubscription>;
  };
  readonly notifications: {
    /** Your notifications live; resolves once subscribed, so no later notification is missed. */
    subscribe(input: NotificationSubscribeInput, handlers: NotificationHandlers): Promise<EventSubscription>;
  };
  /** Every item of a paged list, fetching each page when it is reached: `for await (const t of tl.paginate(tl.tasks.list, { projectId }))`. */
  paginate<I, T>(list: ListMethod<I, T>, input: I, options?: CallOptions): AsyncIterable<T>;
  /** Replaces (or clears) the token used by later calls. */
  setToken(token: TokenSource | undefined): void;
  /** The token last stored (by `setToken`, `auth.login`, …); undefined when it comes from a provider. */
  getToken(): string | undefined;
  readonly trpc: RawTrpcClient;
};

/** Every item of a paged list (as `client.paginate`). */
export async function* paginate<I, T>(list: ListMethod<I, T>, input: I, options?: CallOptions): AsyncGenerator<T> {
  let cursor: string | null | undefined = (input as { cursor?: string } | undefined)?.cursor;
  do {
    const page = await list({ ...input, ...(cursor ? { cursor } : {}) } as I, options);
    yield* page.items;
    cursor = page.nextCursor;
  } while (cursor);
}

/** The server's ETag of a resource is its `updatedAt` in milliseconds, base 36, quoted. */
export function etagOf(resource: { updatedAt: string }): string {
  return `"${new Date(resource.updatedAt).getTime().toString(36)}"`;
}

const BACKOFF_MS = [200, 800, 2000, 5000];
/** Never wait longer than this for one retry, whatever Retry-After says: the caller gets the 429 instead. */
const MAX_RETRY_WAIT_MS = 30_000;

const randomKey = (): string => globalThis.crypto.randomUUID();
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

export function createTasklaneClient(options: TasklaneClientOptions): TasklaneClient {
  let token: TokenSource | undefined = options.token;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = readingOwnWrites(options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args)));
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const authorization = async (): Promise<Record<string, string>> => {
    const current = typeof token === 'function' ? await token() : token;
    return current ? { authorization: `Bearer ${current}` } : {};
  };
  const url = `${baseUrl}/api/trpc`;
  const headerLink = httpLink({
    url,
    fetch: fetchImpl,
    // A write with its own headers travels alone, so they apply to it and nothing else.
    headers: async ({ op }) => ({ ...(await authorization()), ...(op.context.headers as Record<string, string>) }),
  });
  const trpc: TRPCUntypedClient<never> = createTRPCUntypedClient({
    links: [
      splitLink({
        condition: (op) => op.context.headers !== undefined,
        true: headerLink,
        false: httpBatchLink({ url, fetch: fetchImpl, headers: authorization }),
      }),
    ],
  });

  async function call(path: ProcedurePath, input: unknown, callOptions: CallOptions = {}): Promise<unknown> {
    const kind = PROCEDURE_KINDS[path];
    const headers: Record<string, string> = {};
    const idempotent = IDEMPOTENT_CREATES.has(path);
    if (idempotent) headers['idempotency-key'] = callOptions.idempotencyKey ?? randomKey();
    if (callOptions.ifMatch) headers['if-match'] = typeof callOptions.ifMatch === 'string' ? callOptions.ifMatch : etagOf(callOptions.ifMatch);
    const request = {
      ...(Object.keys(headers).length ? { context: { headers } } : {}),
      ...(callOptions.signal ? { signal: callOptions.signal } : {}),
    };
    let reauthorized = false;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = kind === 'query' ? await trpc.query(path, input, request) : await trpc.mutation(path, input, request);
        if (TOKEN_ISSUERS.has(path) && typeof token !== 'function') token = (result as { access_token: string }).access_token;
        return result;
      } catch (raw) {
        const error = TasklaneError.from(raw);
        if (error.httpStatus === 401 && options.onUnauthorized && !reauthorized && !TOKEN_ISSUERS.has(path)) {
          reauthorized = true;
          if ((await options.onUnauthorized(error)) === true) continue;
          throw error;
        }
        // A query or a keyed create is safe to send again after any transient failure. Any other write
        // only after a 429 or 503, which the server answers without applying it.
        const refusedUnapplied = error.httpStatus === 429 || error.httpStatus === 503;
        const transient = refusedUnapplied || error.code === 'CLIENT_ERROR' || (error.httpStatus ?? 0) >= 502;
        const retryable = callOptions.signal?.aborted !== true && (kind === 'query' || idempotent ? transient : refusedUnapplied);
        if (!retryable || attempt >= maxAttempts) throw error;
        const wait = error.retryAfter !== undefined ? error.retryAfter * 1000 : BACKOFF_MS[Math.min(attempt - 1, BACKOFF_MS.length - 1)]!;
        if (wait > MAX_RETRY_WAIT_MS) throw error;
        await sleep(wait, callOptions.signal);
      }
    }
  }

  const client: Record<string, unknown> = {};
  for (const [resource, methods] of Object.entries(RESOURCES)) {
    if (resource === 'events') continue;
    client[resource] = Object.fromEntries(
      Object.entries(methods).map(([name, path]) => [name, (input?: unknown, callOptions?: CallOptions) => call(path, input, callOptions)]),
    );
  }
  const streams = { baseUrl, fetch: fetchImpl, authorization };
  client.events = {
    subscribe: (input: SubscribeInput, handlers: SubscribeHandlers) => subscribe(streams, input, handlers),
  };
  (client.notifications as Record<string, unknown>).subscribe = (input: NotificationSubscribeInput, handlers: NotificationHandlers) =>
    subscribeNotifications(streams, input, handlers);
  // Uploads and downloads are bytes, not JSON: plain HTTP beside the procedures.
  client.attachments = Object.assign((client.attachments as Record<string, unknown> | undefined) ?? {}, attachmentTransfer(streams));
  // The exports are downloads: plain HTTP beside the procedures, as attachments' bytes are.
  const exports = exportTransfer(streams);
  Object.assign(client.projects as Record<string, unknown>, { export: exports.projectExport });
  Object.assign(client.auth as Record<string, unknown>, { exportMe: exports.exportMe });
  Object.assign(client.imports as Record<string, unknown>, importTransfer(streams));
  client.paginate = paginate;
  client.setToken = (next: TokenSource | undefined) => {
    token = next;
  };
  client.getToken = () => (typeof token === 'string' ? token : undefined);
  client.trpc = trpc as unknown as RawTrpcClient;
  return client as TasklaneClient;
}
