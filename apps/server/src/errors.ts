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
  | 'TOO_MANY_REQUESTS'
  | 'SERVICE_UNAVAILABLE';

/** A refusal a service means to give, with a stable `reason` key for clients. */
export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly reason: ErrorReason | undefined;
  /** Response headers the refusal carries on REST (e.g. the current ETag of a 412). */
  readonly headers: Record<string, string> | undefined;
  constructor(code: DomainErrorCode, message: string, reason?: ErrorReason, headers?: Record<string, string>) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.reason = reason;
    this.headers = headers;
  }
}

export const notFound = (what: string) => new DomainError('NOT_FOUND', `${what} not found`);
