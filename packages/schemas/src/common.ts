import { z } from 'zod';

/** Ids are UUIDv7 strings. */
export const IdSchema = z.string().meta({ description: 'Resource id (UUIDv7)', example: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b' });
export const TimestampSchema = z.string().meta({
  description: 'UTC ISO 8601 timestamp with milliseconds',
  example: '2026-11-21T09:30:00.000Z',
});

/**
 * An id in a path: any string, because a malformed id (of any length) names nothing and is a 404
 * like an unknown one, not a 400. The services check the format before asking the database.
 */
export const PathIdSchema = z.string().meta({ description: 'Resource id (UUIDv7); a malformed or unknown id is a 404' });

export const PathIdInput = z.object({ id: PathIdSchema }).strict();

export const MessageSchema = z
  .object({ message: z.string() })
  .meta({ id: 'Message', example: { message: 'Task deleted' } });

export const ErrorIssueSchema = z.object({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
  code: z.string().optional(),
});

/**
 * Every `reason` the server gives, where one status has several causes. The server's DomainError
 * takes only these, and the SDK types `TasklaneError.reason` from this list.
 */
export const ERROR_REASONS = [
  'ALREADY_MEMBER',
  'ASSIGNEE_NOT_MEMBER',
  'CONCURRENT_CHANGE',
  'DATABASE_UNAVAILABLE',
  'EMAIL_NOT_VERIFIED',
  'EMAIL_TAKEN',
  'IDEMPOTENCY_KEY_REUSED',
  'INSUFFICIENT_SCOPE',
  'INVALID_CREDENTIALS',
  'INVALID_CURRENT_PASSWORD',
  'INVALID_CURSOR',
  'INVALID_EVENT_ID',
  'INVALID_IDEMPOTENCY_KEY',
  'INVALID_RESET_TOKEN',
  'INVALID_SSO_CODE',
  'JSON_TOO_DEEP',
  'MALFORMED_JSON',
  'METHOD_NOT_SUPPORTED',
  'NOT_AUTHOR',
  'NOT_A_MEMBER',
  'OIDC_CODE_REJECTED',
  'OIDC_DENIED',
  'OIDC_DISABLED',
  'OIDC_EMAIL_MISSING',
  'OIDC_SIGNUP_DISABLED',
  'OIDC_STATE_MISMATCH',
  'OIDC_UNAVAILABLE',
  'OWNER_IMMUTABLE',
  'PASSWORD_LOGIN_DISABLED',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'SESSION_REQUIRED',
  'SLOW_CONSUMER',
  'STALE_VERSION',
  'TOKEN_LIMITED_TO_PROJECTS',
  'UNSTORABLE_VALUE',
  'UNSUPPORTED_MEDIA_TYPE',
  'USER_NOT_FOUND',
  'WEBHOOK_TARGET_REFUSED',
] as const;
export type ErrorReason = (typeof ERROR_REASONS)[number];

export const ErrorBodySchema = z
  .object({
    message: z.string().meta({ description: 'Human-readable explanation' }),
    code: z.string().meta({ description: 'tRPC error code, one per HTTP status (e.g. NOT_FOUND)' }),
    reason: z.string().optional().meta({ description: 'Stable domain key where one status has several causes' }),
    issues: z.array(ErrorIssueSchema).optional().meta({ description: 'Invalid input fields' }),
  })
  .meta({
    id: 'Error',
    example: { message: 'title: Too small', code: 'BAD_REQUEST', issues: [{ path: ['title'], message: 'Too small' }] },
  });

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

const LIMIT_MESSAGE = `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`;

/**
 * The paging parameters every list shares. Typed as the server checks them: tRPC callers send
 * `limit: 50`; REST query strings are decoded to these types first (digits to a number, comma lists
 * to arrays: apps/server/src/http/rest-input.ts), so one schema validates both transports exactly.
 */
export const PageQueryShape = {
  limit: z
    .int({ error: LIMIT_MESSAGE })
    .min(1, { error: LIMIT_MESSAGE })
    .max(MAX_PAGE_SIZE, { error: LIMIT_MESSAGE })
    .meta({ description: `Page size, 1–${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`, example: 50 })
    .optional(),
  cursor: z
    .string()
    .max(512)
    .meta({ description: 'Opaque cursor from the `Link: rel="next"` header of the previous page' })
    .optional(),
};

/**
 * A list of enum values: an array for tRPC callers, a comma list in a REST query (`status=TODO,DONE`,
 * which the OpenAPI document describes as `style: form, explode: false`).
 */
export const enumList = <T extends readonly [string, ...string[]]>(values: T, name: string) =>
  z
    .array(z.enum(values, { error: `${name} must be a comma list of ${values.join(', ')}` }))
    .min(1, { error: `${name} must name at least one value` })
    .max(50, { error: `${name} lists at most 50 values` })
    .meta({ description: `Comma list of ${values.join(', ')}`, example: [values[0]] })
    .optional();

/** Trimmed string with a length range, checked after trimming. */
export const trimmed = (min: number, max: number) => z.string().trim().min(min).max(max);

export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** The page shape of the tRPC-only `…Page` procedures, which the SDK pages through. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() });
