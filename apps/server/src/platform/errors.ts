import type { ErrorReason } from '@tasklane/schemas';

/**
 * The refusals the domain gives, free of any transport. A code names the kind of refusal; the
 * transports map it to their status in one place (`trpc/errors.ts`, which REST goes through too).
 */
export type DomainErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'TOO_MANY_REQUESTS'
  | 'SERVICE_UNAVAILABLE';

/** A refusal a service means to give, with a stable `reason` key for clients. */
export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly reason: ErrorReason | undefined;
  /** Response headers the refusal carries on REST (e.g. the current ETag of a 412). */
  readonly headers: Record<string, string> | undefined;
  /** The input fields at fault, for a 400 only the service can judge (it needs the database). */
  readonly issues: FieldIssue[] | undefined;
  constructor(code: DomainErrorCode, message: string, reason?: ErrorReason, headers?: Record<string, string>, issues?: FieldIssue[]) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.reason = reason;
    this.headers = headers;
    this.issues = issues;
  }
}

/** An input field at fault, named by its path as a schema's issue names it. */
export interface FieldIssue {
  path: (string | number)[];
  message: string;
}

/** A 400 naming the input field at fault, as the schema's own refusals do. */
export const invalidField = (path: (string | number)[], message: string, reason?: ErrorReason) =>
  new DomainError('BAD_REQUEST', message, reason, undefined, [{ path, message }]);

export const notFound = (what: string) => new DomainError('NOT_FOUND', `${what} not found`);
