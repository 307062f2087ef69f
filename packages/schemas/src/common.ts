import { z } from 'zod';
import { text } from './text';

/** Ids are UUIDv7 strings. */
export const IdSchema = z.string().meta({ description: 'Resource id (UUIDv7)', example: '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b' });
export const TimestampSchema = z.string().meta({
  description: 'UTC ISO 8601 timestamp with milliseconds',
  example: '2026-11-21T09:30:00.000Z',
});

/** Any RFC 3339 date-time (a `Z` or an offset is required); stored and returned in UTC. */
/** `abort`: a value that is no date-time at all gets one issue, not a second 'Invalid date'. */
export const dateTime = () => z.iso.datetime({ offset: true, abort: true }).refine(isRealDate, { message: 'Invalid date', abort: true });

/**
 * Date.parse accepts 2026-02-30 (as 2 March); a date that does not exist is refused instead,
 * and so is one whose UTC year falls outside 1–9999 (0000-01-01, or 9999-12-31 with a negative
 * offset), which PostgreSQL cannot store and the API's timestamps cannot write.
 */
function isRealDate(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  const time = Date.parse(value);
  if (Number.isNaN(time)) return false;
  const utcYear = new Date(time).getUTCFullYear();
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day && utcYear >= 1 && utcYear <= 9999;
}

/**
 * An id a client sends names a row or nothing: a malformed id is a 404 like an unknown one, not a
 * 400, and the services check its format before asking the database, so an id is never stored as
 * sent and the text rule does not apply to it. In a path any length is a 404; in a body, over 200
 * characters is a 400 like any over-long field. Every id field derives from these two schemas
 * (`.meta()` keeps their definition), which the schema audit test recognises (`isIdSchema`).
 */
export const PathIdSchema = z.string().meta({ description: 'Resource id (UUIDv7); a malformed or unknown id is a 404' });
export const IdRefSchema = z.string().max(200);

const ID_DEFINITIONS = new Set<unknown>([PathIdSchema._zod.def, IdRefSchema._zod.def]);

/** Whether a string schema is an id field (PathIdSchema or IdRefSchema, with or without metadata). */
export const isIdSchema = (schema: z.ZodType): boolean => ID_DEFINITIONS.has(schema._zod.def);

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
  'ATTACHMENT_NOT_IN_TASK',
  'CONCURRENT_CHANGE',
  'DATABASE_UNAVAILABLE',
  'EMAIL_NOT_VERIFIED',
  'EMAIL_TAKEN',
  'FILE_REQUIRED',
  'FIELD_EXISTS',
  'FIELD_LIMIT',
  'IDEMPOTENCY_KEY_REUSED',
  'IMPORT_FORMAT',
  'IMPORT_TOO_BIG',
  'INSUFFICIENT_SCOPE',
  'INVALID_CREDENTIALS',
  'INVALID_CURRENT_PASSWORD',
  'INVALID_CURSOR',
  'INVALID_EVENT_ID',
  'INVALID_FIELD_VALUE',
  'INVALID_IDEMPOTENCY_KEY',
  'INVALID_IF_MATCH',
  'INVALID_NEIGHBOUR',
  'INVALID_RECURRENCE',
  'INVALID_RESET_TOKEN',
  'INVALID_SIGNED_LINK',
  'INVALID_SSO_CODE',
  'INVALID_UNSUBSCRIBE_TOKEN',
  'INVITATION_INVALID',
  'JSON_TOO_DEEP',
  'LABEL_EXISTS',
  'LABEL_NOT_IN_PROJECT',
  'MALFORMED_JSON',
  'MENTION_NOT_MEMBER',
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
  'PARENT_CYCLE',
  'PARENT_NOT_IN_PROJECT',
  'PASSWORD_LOGIN_DISABLED',
  'PAYLOAD_TOO_LARGE',
  'PROJECT_KEY_TAKEN',
  'QUOTA_EXCEEDED',
  'RATE_LIMITED',
  'RECURRENCE_NEEDS_DUE_DATE',
  'RELATION_CYCLE',
  'RELATION_EXISTS',
  'RELATION_TO_SELF',
  'SESSION_REQUIRED',
  'SLOW_CONSUMER',
  'STALE_VERSION',
  'START_AFTER_DUE',
  'STATE_EXISTS',
  'STATE_IN_USE',
  'STATE_LIMIT',
  'STATE_REQUIRED',
  'TOKEN_LIMITED_TO_PROJECTS',
  'UNKNOWN_FIELD',
  'UNKNOWN_STATE',
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
 * to arrays: apps/server/src/transport/rest/rest-input.ts), so one schema validates both transports exactly.
 */
export const PageQueryShape = {
  limit: z
    .int({ error: LIMIT_MESSAGE })
    .min(1, { error: LIMIT_MESSAGE })
    .max(MAX_PAGE_SIZE, { error: LIMIT_MESSAGE })
    .meta({ description: `Page size, 1–${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`, example: 50 })
    .optional(),
  cursor: text({ max: 512 })
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

/** Text with leading and trailing white space removed, then its length checked (the text rule). */
export const trimmed = (min: number, max: number) => text({ min, max, trim: true });

export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/**
 * The answer of a paged list procedure, as tRPC callers (the SDK, the web app) get it; REST sends the
 * `items` as the body and the cursor in a `Link` header.
 */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() });
