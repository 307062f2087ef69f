import { STATUS_CODES } from 'node:http';
import type { ErrorBody } from '@tasklane/schemas';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  type ErrorData,
  MALFORMED_JSON_MESSAGE,
  MALFORMED_JSON_REASON,
  summarizeIssues,
  UNSUPPORTED_MEDIA_TYPE_MESSAGE,
} from '../trpc/errors';

/**
 * One `code` per status (docs/api.md): tRPC's own names where tRPC has the status, so both
 * transports agree; any other status the HTTP layer answers (416 from the static files, 431 from
 * Node's parser) is named after its RFC 9110 reason phrase, never a code of another status.
 */
const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  416: 'RANGE_NOT_SATISFIABLE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

export const codeOfStatus = (status: number): string =>
  CODE_BY_STATUS[status] ?? (STATUS_CODES[status] ?? 'Error').toUpperCase().replace(/[^A-Z]+/g, '_');

export const errorBody = (status: number, message: string, reason?: string): ErrorBody => ({
  message,
  code: codeOfStatus(status),
  ...(reason ? { reason } : {}),
});

/**
 * trpc-to-openapi answers errors with our tRPC error shape spread into its own body
 * (`{ message, code, data, issues }`); REST clients get the documented body instead.
 */
export function toRestErrorPayload(payload: string): string {
  let parsed: { message?: string; code?: string; data?: ErrorData };
  try {
    parsed = JSON.parse(payload) as typeof parsed;
  } catch {
    return payload;
  }
  if (!parsed || typeof parsed !== 'object' || !parsed.data) return payload;
  const { data } = parsed;
  const body: ErrorBody = {
    message: data.issues ? summarizeIssues(data.issues) : (parsed.message ?? 'Error'),
    code: data.code,
    ...(data.reason ? { reason: data.reason } : {}),
    ...(data.issues ? { issues: data.issues } : {}),
  };
  return JSON.stringify(body);
}

/** Errors Fastify raises before a route runs (bad JSON, body too large, unknown content type, rate limit). */
export function fastifyErrorToBody(error: FastifyError): { status: number; body: ErrorBody } {
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, body: errorBody(400, MALFORMED_JSON_MESSAGE, MALFORMED_JSON_REASON) };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, body: errorBody(400, 'The JSON body is empty', 'MALFORMED_JSON') };
    case 'JSON_TOO_DEEP':
      return { status: 400, body: errorBody(400, error.message, 'JSON_TOO_DEEP') };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: errorBody(413, 'The request body exceeds 1 MiB') };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, body: errorBody(415, UNSUPPORTED_MEDIA_TYPE_MESSAGE) };
    default:
      break;
  }
  if (status === 500) return { status, body: errorBody(500, 'Internal server error') };
  return { status, body: errorBody(status, error.message || 'Bad request') };
}

/**
 * Answers an error raised outside the procedures (limits, parsing, routing) in the body the
 * caller's transport reads: the REST error body, or on /api/trpc the tRPC error envelope, so the
 * tRPC client raises a TRPCClientError with `data.code`, `data.httpStatus` and `data.reason`.
 */
export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, body: ErrorBody) {
  if (!request.url.startsWith('/api/trpc')) return reply.code(status).send(body);
  const code = body.code as TRPC_ERROR_CODE_KEY;
  return reply.code(status).send({
    error: {
      message: body.message,
      code: TRPC_ERROR_CODES_BY_KEY[code] ?? TRPC_ERROR_CODES_BY_KEY.INTERNAL_SERVER_ERROR,
      data: {
        code,
        httpStatus: status,
        ...(body.reason ? { reason: body.reason } : {}),
        ...(body.issues ? { issues: body.issues } : {}),
      },
    },
  });
}
