import { createTRPCClient, httpBatchLink, httpLink, httpSubscriptionLink, splitLink, TRPCClientError, type TRPCClient } from '@trpc/client';
import type { AppRouter } from '@tasklane/server/router';

export type { AppRouter };

export interface TasklaneClientOptions {
  /** The server's origin, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** A bearer token; `auth.register` and `auth.login` set one too. */
  token?: string;
  fetch?: typeof globalThis.fetch;
  /** For live subscriptions where there is no global `EventSource` (Node 20): e.g. the `eventsource` package. */
  EventSource?: typeof globalThis.EventSource;
}

export interface ErrorIssue {
  path: (string | number)[];
  message: string;
  code?: string;
}

/** Every failed call rejects with this: branch on `code` (tRPC code) or `reason` (domain key). */
export class TasklaneError extends Error {
  readonly code: string;
  readonly reason: string | undefined;
  readonly httpStatus: number | undefined;
  readonly issues: ErrorIssue[] | undefined;

  constructor(message: string, fields: { code: string; reason?: string; httpStatus?: number; issues?: ErrorIssue[]; cause?: unknown }) {
    super(message, { cause: fields.cause });
    this.name = 'TasklaneError';
    this.code = fields.code;
    this.reason = fields.reason;
    this.httpStatus = fields.httpStatus;
    this.issues = fields.issues;
  }

  static from(error: unknown): TasklaneError {
    if (error instanceof TasklaneError) return error;
    if (error instanceof TRPCClientError) {
      const fields = fieldsOf(error);
      return new TasklaneError(fields.message ?? error.message, { ...fields, cause: error });
    }
    return new TasklaneError(error instanceof Error ? error.message : String(error), { code: 'CLIENT_ERROR', cause: error });
  }
}

type ErrorFields = { message?: string; code: string; reason?: string; httpStatus?: number; issues?: ErrorIssue[] };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The server's tRPC errors carry `data: { code, httpStatus, reason?, issues? }`. Anything answering
 * in front of it (a proxy, an older server) may not: then the HTTP status and a REST-shaped
 * `{ message, code, reason }` body are the next best source, and `CLIENT_ERROR` means no answer at all.
 */
function fieldsOf(error: TRPCClientError<never>): ErrorFields {
  const data: unknown = error.data;
  const from = (source: Record<string, unknown>, httpStatus: unknown): ErrorFields => ({
    code: typeof source.code === 'string' ? source.code : 'CLIENT_ERROR',
    ...(typeof source.reason === 'string' ? { reason: source.reason } : {}),
    ...(typeof httpStatus === 'number' ? { httpStatus } : {}),
    ...(Array.isArray(source.issues) ? { issues: source.issues as ErrorIssue[] } : {}),
  });
  if (isRecord(data) && typeof data.code === 'string') return from(data, data.httpStatus);
  const meta: unknown = error.meta;
  const response = isRecord(meta) && isRecord(meta.response) ? meta.response : undefined;
  const body = isRecord(meta) && isRecord(meta.responseJSON) ? meta.responseJSON : {};
  return { ...from(body, response?.status), ...(typeof body.message === 'string' ? { message: body.message } : {}) };
}

type TokenHolder = { token: string | undefined };

const TOKEN_ISSUERS = new Set(['auth.register', 'auth.login']);
const CALLS = new Set(['query', 'mutate']);

/** Wraps the tRPC proxy so every call rejects with TasklaneError and register/login keep the token. */
function wrap<T extends object>(target: T, holder: TokenHolder, path: string[] = []): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      const value = Reflect.get(object, key, receiver) as unknown;
      if (typeof key !== 'string') return value;
      if (CALLS.has(key) && typeof value === 'function') {
        const procedure = path.join('.');
        return async (...args: unknown[]) => {
          try {
            const result = await (value as (...a: unknown[]) => Promise<unknown>)(...args);
            if (TOKEN_ISSUERS.has(procedure)) holder.token = (result as { access_token: string }).access_token;
            return result;
          } catch (error) {
            throw TasklaneError.from(error);
          }
        };
      }
      return value && (typeof value === 'object' || typeof value === 'function') ? wrap(value as object, holder, [...path, key]) : value;
    },
  });
}

export type TasklaneClient = TRPCClient<AppRouter> & {
  /** Replaces (or clears) the bearer token used by later calls. */
  setToken(token: string | undefined): void;
  getToken(): string | undefined;
};

export function createTasklaneClient(options: TasklaneClientOptions): TasklaneClient {
  const holder: TokenHolder = { token: options.token };
  const url = `${options.baseUrl.replace(/\/+$/, '')}/api/trpc`;
  const authorization = (): Record<string, string> => (holder.token ? { authorization: `Bearer ${holder.token}` } : {});
  const fetchOption = options.fetch ? { fetch: options.fetch } : {};
  const trpc = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (operation) => operation.type === 'subscription',
        // Server-Sent Events cannot carry headers: the token travels as a connection parameter.
        true: httpSubscriptionLink({
          url,
          connectionParams: () => (holder.token ? { token: holder.token } : null),
          ...(options.EventSource ? { EventSource: options.EventSource } : {}),
        }),
        false: splitLink({
          // A conditional write travels alone, so its If-Match header applies to it and nothing else.
          condition: (operation) => typeof operation.context.ifMatch === 'string',
          true: httpLink({ url, headers: ({ op }) => ({ ...authorization(), 'if-match': String(op.context.ifMatch) }), ...fetchOption }),
          false: httpBatchLink({ url, headers: authorization, ...fetchOption }),
        }),
      }),
    ],
  });
  const client = wrap(trpc, holder) as TasklaneClient;
  return Object.assign(Object.create(client) as TasklaneClient, {
    setToken: (token: string | undefined) => {
      holder.token = token;
    },
    getToken: () => holder.token,
  });
}

/**
 * Call options for a conditional update or delete: it succeeds only if the resource is still the
 * version you read (`If-Match`); otherwise it rejects with `code: 'PRECONDITION_FAILED'` (HTTP 412)
 * and nothing changes. `await client.tasks.update.mutate({ id, title }, ifUnchanged(task))`.
 */
export function ifUnchanged(resource: { updatedAt: string }): { context: { ifMatch: string } } {
  // The server's ETag of a resource is its updatedAt in milliseconds, base 36, quoted.
  return { context: { ifMatch: `"${new Date(resource.updatedAt).getTime().toString(36)}"` } };
}

/** Every item of a paged list, page after page: `for await (const task of paginate(c.tasks.listForProjectPage, { projectId }))`. */
export async function* paginate<TInput extends { cursor?: string } | undefined | void, TItem>(
  procedure: { query(input: TInput): Promise<{ items: TItem[]; nextCursor: string | null }> },
  // Inferred from the procedure alone, so an optional input (`listMinePage`) still checks its filters.
  input: NoInfer<Exclude<TInput, undefined | void>>,
): AsyncGenerator<TItem> {
  let cursor = input.cursor;
  do {
    const page = await procedure.query({ ...input, ...(cursor ? { cursor } : {}) } as TInput);
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}
