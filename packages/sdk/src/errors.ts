import { TRPCClientError } from '@trpc/client';
import { ERROR_REASONS } from './generated/api';

/** A stable key where one HTTP status has several causes (`EMAIL_TAKEN`, `STALE_VERSION`, …). */
export type ErrorReason = (typeof ERROR_REASONS)[number];
export { ERROR_REASONS };

/** The error code, one per HTTP status; `CLIENT_ERROR` when no server answered. */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_SUPPORTED'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_SERVER_ERROR'
  | 'SERVICE_UNAVAILABLE'
  | 'CLIENT_ERROR'
  | (string & {});

export interface ErrorIssue {
  path: (string | number)[];
  message: string;
  code?: string;
}

export interface TasklaneErrorFields {
  code: ErrorCode;
  reason?: ErrorReason | undefined;
  httpStatus?: number | undefined;
  issues?: ErrorIssue[] | undefined;
  /** Seconds the server asked to wait (`Retry-After` of a 429 or 503). */
  retryAfter?: number | undefined;
  cause?: unknown;
}

/** Every failed call rejects with this: branch on `code` (one per HTTP status) or `reason` (domain key). */
export class TasklaneError extends Error {
  readonly code: ErrorCode;
  readonly reason: ErrorReason | undefined;
  readonly httpStatus: number | undefined;
  readonly issues: ErrorIssue[] | undefined;
  readonly retryAfter: number | undefined;

  constructor(message: string, fields: TasklaneErrorFields) {
    super(message, { cause: fields.cause });
    this.name = 'TasklaneError';
    this.code = fields.code;
    this.reason = fields.reason;
    this.httpStatus = fields.httpStatus;
    this.issues = fields.issues;
    this.retryAfter = fields.retryAfter;
  }

  static from(error: unknown): TasklaneError {
    if (error instanceof TasklaneError) return error;
    if (error instanceof TRPCClientError) return fromTrpc(error);
    return new TasklaneError(error instanceof Error ? error.message : String(error), { code: 'CLIENT_ERROR', cause: error });
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const REASONS: ReadonlySet<string> = new Set(ERROR_REASONS);
const reasonOf = (value: unknown): ErrorReason | undefined => (typeof value === 'string' && REASONS.has(value) ? (value as ErrorReason) : undefined);

function retryAfterOf(response: unknown): number | undefined {
  if (!isRecord(response) || !isRecord(response.headers) || typeof response.headers.get !== 'function') return undefined;
  const value = (response.headers as unknown as Headers).get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** The body of a REST error answer (`{ message, code, reason?, issues? }`), e.g. the event stream's. */
export function fromBody(status: number, body: unknown, headers?: Headers): TasklaneError {
  const source = isRecord(body) ? body : {};
  return new TasklaneError(typeof source.message === 'string' ? source.message : `HTTP ${status}`, {
    code: typeof source.code === 'string' ? source.code : 'CLIENT_ERROR',
    reason: reasonOf(source.reason),
    httpStatus: status,
    issues: Array.isArray(source.issues) ? (source.issues as ErrorIssue[]) : undefined,
    retryAfter: headers ? retryAfterOf({ headers }) : undefined,
  });
}

/**
 * The server's tRPC errors carry `data: { code, httpStatus, reason?, issues? }`. Anything answering
 * in front of it (a proxy, an older server) may not: then the HTTP status and a REST-shaped body are
 * the next best source, and `CLIENT_ERROR` means no answer at all.
 */
function fromTrpc(error: TRPCClientError<never>): TasklaneError {
  const data: unknown = error.data;
  const meta: unknown = error.meta;
  const response = isRecord(meta) ? meta.response : undefined;
  const retryAfter = retryAfterOf(response);
  if (isRecord(data) && typeof data.code === 'string') {
    return new TasklaneError(error.message, {
      code: data.code,
      reason: reasonOf(data.reason),
      httpStatus: typeof data.httpStatus === 'number' ? data.httpStatus : undefined,
      issues: Array.isArray(data.issues) ? (data.issues as ErrorIssue[]) : undefined,
      retryAfter,
      cause: error,
    });
  }
  const status = isRecord(response) && typeof response.status === 'number' ? response.status : undefined;
  const body = isRecord(meta) ? meta.responseJSON : undefined;
  if (status === undefined) return new TasklaneError(error.message, { code: 'CLIENT_ERROR', cause: error });
  const parsed = fromBody(status, body);
  return new TasklaneError(isRecord(body) && typeof body.message === 'string' ? parsed.message : error.message, {
    code: parsed.code,
    reason: parsed.reason,
    httpStatus: status,
    issues: parsed.issues,
    retryAfter,
    cause: error,
  });
}
