import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { ZodError } from 'zod';

export type ErrorIssue = { path: (string | number)[]; message: string; code?: string };

/** A refusal the service means to give: status via the tRPC code, plus a stable `reason` key. */
export class ApiError extends TRPCError {
  readonly reason: string | undefined;
  constructor(code: TRPC_ERROR_CODE_KEY, message: string, reason?: string) {
    super({ code, message });
    this.reason = reason;
  }
}

export const notFound = (what: string) => new ApiError('NOT_FOUND', `${what} not found`);

/** Zod issues reduced to what a client needs; an unknown key is named in the path and the message. */
export function normalizeIssues(error: ZodError): ErrorIssue[] {
  return error.issues.flatMap((issue): ErrorIssue[] => {
    const path = issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key], message: `Unknown field "${key}"`, code: issue.code }));
    }
    return [{ path, message: issue.message, code: issue.code }];
  });
}

export function summarizeIssues(issues: ErrorIssue[]): string {
  const parts = issues.slice(0, 5).map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
  return `Invalid input: ${parts.join('; ')}${issues.length > 5 ? ` (and ${issues.length - 5} more)` : ''}`;
}

export interface ErrorData {
  code: TRPC_ERROR_CODE_KEY;
  httpStatus: number;
  reason?: string;
  issues?: ErrorIssue[];
}

/**
 * The error shape of both transports. Native tRPC clients read `{ message, code: number, data }`;
 * the REST layer (rest-errors.ts) turns the same shape into the documented REST body.
 * Nothing internal (stack, cause, input) is ever included.
 */
export function formatError({
  shape,
  error,
}: {
  shape: { message: string; code: number; data: { code: TRPC_ERROR_CODE_KEY; httpStatus: number } };
  error: TRPCError;
}) {
  const issues = error.cause instanceof ZodError ? normalizeIssues(error.cause) : undefined;
  const internal = error.code === 'INTERNAL_SERVER_ERROR';
  const data: ErrorData = {
    code: shape.data.code,
    httpStatus: shape.data.httpStatus,
    ...(error instanceof ApiError && error.reason ? { reason: error.reason } : {}),
    ...(issues ? { issues } : {}),
  };
  return {
    message: issues ? summarizeIssues(issues) : internal ? 'Internal server error' : shape.message,
    code: shape.code,
    data,
  };
}
