import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { ZodError } from 'zod';
import { DomainError } from '../../platform/errors';

export type ErrorIssue = { path: (string | number)[]; message: string; code?: string };

/**
 * The one mapping of a domain refusal to the transports: a TRPCError of the same code and message
 * (tRPC and trpc-to-openapi derive the HTTP status from the code), the DomainError kept as its cause
 * for the reason (in the error shape) and the headers (on the REST response). Anything else passes as is.
 */
export function toTRPCError(error: unknown): unknown {
  const refusal = error instanceof DomainError ? error : domainErrorOf(error);
  return refusal ? new TRPCError({ code: refusal.code, message: refusal.message, cause: refusal }) : error;
}

/** The DomainError a tRPC error was made from (tRPC wraps what a procedure throws), if any. */
export const domainErrorOf = (error: unknown): DomainError | undefined =>
  error instanceof TRPCError && error.cause instanceof DomainError ? error.cause : undefined;

/** The answers to an unparsable body and a non-JSON one, the same from Fastify, REST and native tRPC. */
export const MALFORMED_JSON_MESSAGE = 'Malformed JSON body';
export const MALFORMED_JSON_REASON = 'MALFORMED_JSON';
export const UNSUPPORTED_MEDIA_TYPE_MESSAGE = 'Unsupported content type: send application/json';

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
  const issues = error.cause instanceof ZodError ? normalizeIssues(error.cause) : domainErrorOf(error)?.issues;
  const internal = error.code === 'INTERNAL_SERVER_ERROR';
  // tRPC's own parse error carries the parser's text, its 415 a garbled one: answer as REST does.
  const malformedJson = error.cause instanceof SyntaxError;
  const reason = malformedJson ? MALFORMED_JSON_REASON : domainErrorOf(error)?.reason;
  const data: ErrorData = {
    code: shape.data.code,
    httpStatus: shape.data.httpStatus,
    ...(reason ? { reason } : {}),
    ...(issues ? { issues } : {}),
  };
  let message = shape.message;
  if (issues) message = summarizeIssues(issues);
  else if (internal) message = 'Internal server error';
  else if (malformedJson) message = MALFORMED_JSON_MESSAGE;
  else if (error.code === 'UNSUPPORTED_MEDIA_TYPE') message = UNSUPPORTED_MEDIA_TYPE_MESSAGE;
  return {
    message,
    code: shape.code,
    data,
  };
}
