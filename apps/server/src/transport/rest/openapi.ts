import { ErrorBodySchema, ImportDryRunSchema, ImportProgressEventSchema, UnsubscribeBody } from '@tasklane/schemas';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { z } from 'zod';
import { attachmentOperations, CONTENT_PATH, THUMBNAIL_PATH, UPLOAD_PATH } from './attachments-openapi';
import { ACCOUNT_EXPORT_PATH, exportOperations, IMPORT_PATH, importOperation, PROJECT_EXPORT_PATH } from './export-openapi';
import { documentAsRestList } from './paged-lists';
import type { RestRoute } from './rest-input';
import type { ProcedureMeta } from '../trpc/init';
import type { AppRouter } from '../trpc/router';

type Schema = { type?: string; minLength?: number; maxLength?: number; description?: string; examples?: unknown[]; example?: unknown; format?: string; pattern?: string };
type MediaType = { schema?: Schema; example?: unknown };
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema; style?: string; explode?: boolean; example?: unknown };
type Response = { description: string; headers?: Record<string, unknown>; content?: Record<string, MediaType> };
type Operation = {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  responses: Record<string, Response>;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, MediaType> };
};
type Document = ReturnType<typeof generateOpenApiDocument> & {
  paths?: Record<string, Record<string, Operation>>;
  tags?: { name: string; description?: string }[];
  security?: Record<string, string[]>[];
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: malformed JSON, a missing, wrongly typed or unknown field, a bad query value',
  401: 'Missing, malformed, expired or revoked token (or wrong email or password on login)',
  403: "The caller's role does not allow this action, or a personal access token's scope or project limit does not (`reason` INSUFFICIENT_SCOPE, SESSION_REQUIRED, TOKEN_LIMITED_TO_PROJECTS)",
  404: 'Unknown or malformed id, or a project the caller is not a member of',
  409: 'Conflict with the current state (see `reason`)',
  412: 'If-Match was given and is stale',
  413: 'Request body larger than 1 MiB',
  415: 'Content type other than application/json',
  429: 'Rate limited; retry after the number of seconds in Retry-After',
  500: 'Unexpected server error',
  503: 'The database is unreachable (reason `DATABASE_UNAVAILABLE`); retry shortly',
};

const HEADERS = {
  ETag: 'Version of the returned resource, for If-Match',
  Link: 'RFC 8288 link to the next page: `<…>; rel="next"` (absent on the last page)',
  Location: 'URL of the created resource',
  'Retry-After': 'Seconds until the limit resets',
  'RateLimit-Limit': 'Calls allowed a minute (IETF RateLimit header fields): per bearer token, or per client address and per email for register, login, password reset and sign-on; each call of a tRPC batch counts',
  'RateLimit-Remaining': 'Calls left in the current minute; 0 on the 429',
  'RateLimit-Reset': 'Seconds until the current minute ends and the count starts again',
  'WWW-Authenticate': 'Always `Bearer`',
  'Idempotent-Replayed': '`true` when this is the stored response of an earlier request with the same Idempotency-Key',
  Allow: 'The methods the path has, such as `GET, HEAD, PATCH`',
} as const;

const REQUEST_HEADERS = {
  'If-Match': 'ETag of the version you read, or a comma-separated list of ETags (RFC 9110): the write is refused with 412 unless one of them is the current version, compared strongly (a weak `W/"…"` tag never matches); `*` alone matches any current version; a malformed value is a 400 INVALID_IF_MATCH (without the header, last write wins)',
  'Idempotency-Key': 'A unique key (1–255 visible ASCII characters) per intended create: a retry with the same key and body within 24 h replays the first response; the same key with another body is a 409 IDEMPOTENCY_KEY_REUSED',
  'If-None-Match': 'ETag of the version you hold, or a comma-separated list of ETags (RFC 9110): when one of them is the current version (compared weakly), the answer is a 304 without a body; `*` matches any version; a malformed value is ignored',
} as const;

/** An entity tag as RFC 9110 writes it, strong or weak. */
const ENTITY_TAG = '(?:W/)?"[\\x21\\x23-\\x7e]*"';

/** The request headers as the server checks them (lib/versions.ts, idempotency/service.ts): a client that follows these is never refused for them. */
const REQUEST_HEADER_SCHEMAS: Record<keyof typeof REQUEST_HEADERS, Schema> = {
  'If-Match': { type: 'string', maxLength: 255, pattern: `^[ \\t]*(?:\\*|(?:,[ \\t]*)*${ENTITY_TAG}(?:[ \\t]*,(?:[ \\t]*${ENTITY_TAG})?)*)[ \\t]*$` },
  'Idempotency-Key': { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
  'If-None-Match': { type: 'string', maxLength: 255 },
};

/** Tags the document describes; a tag used by a route but missing here is still listed, undescribed. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'Register, log in (with a password or single sign-on), the current user, sessions, personal access tokens and password reset. Register, login, password reset and single sign-on need no token.',
  projects: 'Projects the caller is a member of; the creator is the owner and an ADMIN member.',
  members: 'Project memberships and roles (VIEWER, EDITOR, ADMIN).',
  tasks: 'Tasks of a project: status, priority, due date, assignee; filtered, sorted and paged lists.',
  comments: 'Comments on tasks.',
  attachments: 'Files attached to tasks: uploaded as multipart/form-data, stored once per project for the same bytes, served with their type decided from the bytes, by token or by a signed link.',
  activity: 'Who changed what and when, per project and per task.',
};

const header = (name: keyof typeof HEADERS) => ({ [name]: { description: HEADERS[name], schema: { type: 'string' } } });

/** Every procedure's dotted path and meta; `_def.procedures` is flat in tRPC v11. */
export function procedureMetas(router: AppRouter): [string, ProcedureMeta | undefined][] {
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: ProcedureMeta } }>;
  return Object.entries(procedures).map(([path, procedure]) => [path, procedure._def.meta]);
}

/** Each REST procedure's dotted path and meta, by "method /path" as the document names its operations. */
function proceduresByOperation(router: AppRouter): Map<string, { procedure: string; meta: ProcedureMeta }> {
  return new Map(
    procedureMetas(router).flatMap(([procedure, meta]) =>
      meta?.openapi ? [[`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, { procedure, meta }] as const] : [],
    ),
  );
}

/** Every REST operation with its input schema, for the checks made before trpc-to-openapi. */
export function restRoutes(router: AppRouter): RestRoute[] {
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: ProcedureMeta; inputs: unknown[] } }>;
  return Object.values(procedures).flatMap(({ _def }) =>
    _def.meta?.openapi ? [{ method: _def.meta.openapi.method, path: _def.meta.openapi.path, input: _def.inputs[0] }] : [],
  );
}

/** The procedures whose REST success status is 201, each with its `Location` template. */
export const createdPaths = (router: AppRouter): Map<string, string | undefined> =>
  new Map(procedureMetas(router).flatMap(([path, meta]) => (meta?.successStatus === 201 ? [[path, meta.location] as const] : [])));

/** The paged lists, whose REST answer is the page's items with a `Link` header (paged-lists.ts). */
export const pagedPaths = (router: AppRouter): Set<string> => new Set(procedureMetas(router).flatMap(([path, meta]) => (meta?.paged ? [path] : [])));

/** A create's `Location`: the template's `{field}`s filled from the created resource. */
export function locationOf(template: string, created: unknown): string | undefined {
  const fields = (created ?? {}) as Record<string, unknown>;
  let complete = true;
  const path = template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = fields[name];
    if (typeof value !== 'string') complete = false;
    return encodeURIComponent(String(value));
  });
  return complete ? `/api/v1${path}` : undefined;
}

/** `tasks.listForProject` → `tasksListForProject`: an identifier every client generator accepts. */
const operationIdOf = (procedure: string) =>
  procedure.split('.').map((part, index) => (index === 0 ? part : part[0]!.toUpperCase() + part.slice(1))).join('');

/** Ids as the server reads them (lib/ids.ts): any other value names nothing and is a 404. */
const ID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const EXAMPLE_ID = '0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b';

/** A path parameter: always an id, typed as the server checks it, with an example for Swagger UI and generated clients. */
function pathParameter(path: string, name: string, description?: string): Parameter {
  return {
    name,
    in: 'path',
    required: true,
    description: description ?? `${describePathParameter(path, name)} (UUID); a malformed or unknown id is a 404`,
    schema: { type: 'string', format: 'uuid', pattern: ID_PATTERN },
    example: EXAMPLE_ID,
  };
}

const EVENTS_PATH = '/projects/{id}/events';
const NOTIFICATION_EVENTS_PATH = '/notifications/events';

const STREAM_TAIL =
  'Reconnect with `Last-Event-ID` (or `?lastEventId=`) to resume after the last event received. A client that falls too far behind gets a last `event: stream-error` frame (an Error, reason SLOW_CONSUMER) and the stream ends. The token may also be sent as `?access_token=`, since EventSource cannot set headers. See docs/events.md.';

/**
 * The two Server-Sent Events streams (`GET /projects/{id}/events`, activity/sse.ts, and `GET
 * /notifications/events`, notifications/sse.ts) are plain Fastify routes, which trpc-to-openapi
 * cannot see: they are described here by hand, each event's `data:` one item of `item`.
 */
function streamOperation(options: { operationId: string; tag: string; summary: string; description: string; item: string; pathParameters: string[]; path: string; frames: string }): Operation {
  const eventId = { type: 'string', pattern: '^\\d{1,18}$', example: '1042' };
  return {
    operationId: options.operationId,
    tags: [options.tag],
    summary: options.summary,
    description: `${options.description} ${STREAM_TAIL}`,
    parameters: [
      ...options.pathParameters.map((name) => pathParameter(options.path, name)),
      { name: 'Last-Event-ID', in: 'header', description: 'Resume after this event id', schema: eventId },
      { name: 'lastEventId', in: 'query', description: 'Resume after this event id (for clients that cannot set headers)', schema: eventId },
      { name: 'access_token', in: 'query', description: 'The bearer token, for EventSource (which cannot set headers)', schema: { type: 'string', maxLength: 4096 } },
    ],
    responses: {
      '200': {
        description: 'The event stream',
        content: {
          'text/event-stream': {
            schema: { type: 'string', description: `${options.frames} (#/components/schemas/${options.item})` },
            // OpenAPI 3.2's name for the schema of each item of a sequential media type.
            'x-itemSchema': { $ref: `#/components/schemas/${options.item}` },
          } as MediaType,
        },
      },
      ...Object.fromEntries([400, 401, 403, ...(options.pathParameters.length ? [404] : []), 429, 500, 503].map((status) => [String(status), errorResponse(status)])),
    },
  };
}

const eventsOperation = () =>
  streamOperation({
    operationId: 'projectsEvents',
    tag: 'activity',
    summary: 'Live events of a project (Server-Sent Events)',
    description:
      'A `text/event-stream`: each change of the project as an event whose `id:` is the activity id, `event:` its type and `data:` one Activity as JSON; `: heartbeat` comments keep the connection open.',
    item: 'Activity',
    path: EVENTS_PATH,
    pathParameters: ['id'],
    frames: 'Frames of `id: <Activity.id>`, `event: <Activity.type>`, `data: <Activity as JSON>`; each data line is one Activity',
  });

const notificationEventsOperation = () =>
  streamOperation({
    operationId: 'notificationsEvents',
    tag: 'notifications',
    summary: 'Live notifications of the caller (Server-Sent Events)',
    description:
      "A `text/event-stream`: each new notification of the caller as an event whose `id:` is the caller's notification sequence number, `event:` its kind and `data:` one Notification as JSON; `: heartbeat` comments keep the connection open. Between them, the progress of the caller's imports run by this instance: `event: import.progress` with no `id:` (never replayed) and `data:` one ImportProgressEvent (`id`, `status`, `done`, `total`, `projectId`).",
    item: 'Notification',
    path: NOTIFICATION_EVENTS_PATH,
    pathParameters: [],
    frames: 'Frames of `id: <sequence number>`, `event: <Notification.kind>`, `data: <Notification as JSON>`; each data line is one Notification (or, under `event: import.progress`, one ImportProgressEvent)',
  });

const UNSUBSCRIBE_DOC_PATH = '/notification-settings/unsubscribe';

/**
 * The one-click unsubscribe link of notification emails (RFC 8058): a plain Fastify route
 * (http/unsubscribe.ts), since its POST is form-encoded and carries its token in the query,
 * which trpc-to-openapi does not read. Described here by hand; it needs no login.
 */
function unsubscribeOperations(): Record<'get' | 'post', Operation> {
  const token: Parameter = {
    name: 'token',
    in: 'query',
    required: true,
    description: 'The signed token of the email’s `List-Unsubscribe` link',
    schema: { type: 'string', minLength: 1, maxLength: 2000 },
  };
  // Inline, as the generated bodies are: the route walks read its fields and required ones here.
  const unsubscribeBody = z.toJSONSchema(UnsubscribeBody, { target: 'draft-2020-12' }) as Schema;
  delete (unsubscribeBody as { $schema?: string }).$schema;
  const html = { 'text/html': { schema: { type: 'string', description: 'A page for a browser (sent when Accept prefers text/html)' } } };
  const refusals = (statuses: number[]) => Object.fromEntries(statuses.map((status) => [String(status), errorResponse(status)]));
  const invalid: Response = {
    ...errorResponse(400),
    content: { ...errorResponse(400).content, ...html },
    description: 'A missing, malformed or tampered token (reason `INVALID_UNSUBSCRIBE_TOKEN`), or a body other than `List-Unsubscribe=One-Click`',
  };
  return {
    get: {
      operationId: 'notificationSettingsUnsubscribePage',
      tags: ['auth'],
      summary: 'The unsubscribe link, opened',
      description:
        'Changes nothing (mail clients and link scanners fetch links on their own): a browser gets a page with the button that POSTs to this URL; any other client a JSON message saying so. Needs no login.',
      security: [],
      parameters: [token],
      responses: {
        '200': {
          description: 'The token is genuine',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Message' } as Schema }, ...html },
        },
        ...refusals([500, 503]),
        '400': invalid,
      },
    },
    post: {
      operationId: 'notificationSettingsUnsubscribe',
      tags: ['auth'],
      summary: 'One-click unsubscribe (RFC 8058)',
      description:
        'What a mail client POSTs for the email’s `List-Unsubscribe` / `List-Unsubscribe-Post: List-Unsubscribe=One-Click` headers: turns the notification email of the user the token names `off`, without logging in. The body is `List-Unsubscribe=One-Click`, form-encoded (or the same as a JSON object). Answers the new setting (a page for a browser).',
      security: [],
      parameters: [token],
      requestBody: {
        content: Object.fromEntries(
          ['application/x-www-form-urlencoded', 'application/json'].map((type) => [type, { schema: unsubscribeBody, example: { 'List-Unsubscribe': 'One-Click' } }]),
        ),
      },
      responses: {
        '200': { description: 'Email is off', content: { 'application/json': { schema: { $ref: '#/components/schemas/NotificationSettings' } as Schema }, ...html } },
        ...refusals([413, 415, 500, 503]),
        '400': invalid,
      },
    },
  };
}

/** `{id}` after `/projects` → "Project id"; `{memberId}` → "Member id". */
function describePathParameter(path: string, name: string): string {
  if (name !== 'id') return `${name[0]!.toUpperCase()}${name.slice(1).replace(/Id$/, '')} id`;
  const segments = path.split('/');
  const resource = segments[segments.indexOf(`{${name}}`) - 1] ?? 'resource';
  return `${resource[0]!.toUpperCase()}${resource.slice(1).replace(/s$/, '')} id`;
}

/** The statuses a route can answer besides its success, from its meta and what every route shares. */
function errorStatuses(method: string, meta: ProcedureMeta | undefined): number[] {
  const isProtected = meta?.openapi?.protect !== false;
  const statuses = new Set([400, 500, 503, ...(meta?.errors ?? [])]);
  // Every request with a token is rate limited per token; unknown and foreign ids are 404s; a
  // personal access token may lack the scope.
  if (isProtected) statuses.add(401).add(403).add(404).add(429);
  if (method === 'post' || method === 'patch' || method === 'put') statuses.add(413).add(415);
  return [...statuses].sort();
}

function errorResponse(status: number): Response {
  return {
    description: ERROR_DESCRIPTIONS[status] ?? 'Error',
    ...(status === 429
      ? { headers: header('Retry-After') }
      : status === 401
        ? { headers: header('WWW-Authenticate') }
        : status === 412
          ? { headers: header('ETag') }
          : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } as Schema } },
  };
}

/** Every response of a rate-limited operation (one that can answer 429) announces its limit, the 429 included. */
function announceRateLimits(paths: Record<string, Record<string, Operation>>): void {
  const fields = Object.assign({}, header('RateLimit-Limit'), header('RateLimit-Remaining'), header('RateLimit-Reset'));
  for (const operation of Object.values(paths).flatMap((operations) => Object.values(operations))) {
    if (!operation.responses['429']) continue;
    for (const response of Object.values(operation.responses)) response.headers = { ...response.headers, ...fields };
  }
}

/** A redirect: Location, and the same address in a `{ location }` body. */
const redirectResponse = (description: string): Response => ({
  description,
  headers: header('Location'),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Redirect' } as Schema } },
});

/** A read of one resource with an ETag: its conditional form (If-None-Match → 304). */
function addConditionalRead(operation: Operation): void {
  operation.responses['304'] = { description: 'Not modified: If-None-Match names the current version; no body', headers: header('ETag') };
  operation.parameters = [...(operation.parameters ?? []), requestHeader('If-None-Match')];
}

const requestHeader = (name: keyof typeof REQUEST_HEADERS): Parameter => ({ name, in: 'header', description: REQUEST_HEADERS[name], schema: REQUEST_HEADER_SCHEMAS[name] });

/**
 * What a method a path does not have answers (no operation can say it, since it is about the
 * operations a path lacks): a 405 naming the path's methods in `Allow`.
 */
const METHOD_NOT_ALLOWED: Response = {
  description: 'A method the path does not have (any path of this document): `Allow` names the methods it has',
  headers: header('Allow'),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } as Schema } },
};

/** Swagger UI pre-fills "Try it out" from the media type's example: lift the schema's first one. */
function liftExamples(operation: Operation): void {
  const media = operation.requestBody?.content?.['application/json'];
  const example = media?.schema?.examples?.[0] ?? media?.schema?.example;
  if (media && example !== undefined) media.example = example;
  for (const parameter of operation.parameters ?? []) {
    parameter.description ??= parameter.schema?.description;
    // A list in a query is one comma-separated value (`status=TODO,DONE`), as the server decodes it.
    if (parameter.in === 'query' && parameter.schema?.type === 'array') Object.assign(parameter, { style: 'form', explode: false });
  }
}

/**
 * The document trpc-to-openapi generates, completed from each procedure's meta where the generator
 * cannot know: operation ids, the real success status (201 for creates), the headers a route sets,
 * every error status with our error body, request examples and which routes need no token.
 */
/** An answer also offered as CSV (meta.csv): RFC 4180 text with a header row, formulas neutralised. */
function documentCsv(success: Response): void {
  const content = (success as { content?: Record<string, unknown> }).content ?? {};
  (success as { content?: Record<string, unknown> }).content = {
    ...content,
    'text/csv': {
      schema: {
        type: 'string',
        description:
          "With `Accept: text/csv`: the same rows as RFC 4180 CSV (CRLF line ends, a header row `key,label,minutes`); a cell starting with =, +, -, @, a tab or a carriage return is prefixed with ' so a spreadsheet never evaluates it",
      },
    },
  };
}

export function buildOpenApiDocument(router: AppRouter, version: string): Document {
  const document = generateOpenApiDocument(router, {
    title: 'Tasklane API',
    description:
      'Self-hosted task and project management. Every operation except register, login, password reset and single sign-on needs `Authorization: Bearer <token>`: the `access_token` of a login (a session), or a personal access token (`tl_pat_…`) limited by its scopes and projects (in Swagger UI: log in with "Try it out", then paste the `access_token` into Authorize). Errors share one body: `{ message, code, reason?, issues? }`. Lists return JSON arrays paged by cursor: `?limit=` (1–500, default 100) and the `Link: <…>; rel="next"` header. Every GET answers HEAD too, with the same status and headers and no body; a read that returns an `ETag` answers `If-None-Match` naming it with 304; a method a path does not have is a 405 with `Allow` (`#/components/responses/MethodNotAllowed`).',
    version,
    baseUrl: '/api/v1',
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The `access_token` of login, register or single sign-on: a session, signed out by logout or from the sessions list.' },
      personalAccessToken: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'tl_pat_…',
        description: 'A personal access token (POST /auth/tokens): `read`, `write` or `admin` scope, optionally limited to some projects; never more than its owner may do. Managing the account, sessions and tokens needs a login token.',
      },
    },
    // Schemas only plain routes answer with (no procedure's output names them).
    defs: { Error: ErrorBodySchema, ImportDryRun: ImportDryRunSchema, ImportProgressEvent: ImportProgressEventSchema },
  }) as Document;

  const procedures = proceduresByOperation(router);
  const usedTags = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const { procedure, meta } = procedures.get(`${method} ${path}`) ?? {};
      const success = operation.responses['200']!;
      if (meta?.paged) documentAsRestList(success);
      if (meta?.csv) documentCsv(success);
      success.headers = Object.assign({}, ...(meta?.headers ?? []).map(header), meta?.location ? header('Location') : {});
      if (meta?.successStatus === 201) success.description = 'Created';
      if (meta?.openapi?.successDescription) success.description = meta.openapi.successDescription;
      const responses: Record<string, Response> = { [String(meta?.successStatus ?? 200)]: success };
      if (meta?.redirect) responses[String(meta.redirect.status)] = redirectResponse(meta.redirect.description);
      for (const status of errorStatuses(method, meta)) responses[String(status)] = errorResponse(status);
      operation.responses = responses;
      if (procedure) operation.operationId = meta?.openapi?.operationId ?? operationIdOf(procedure);
      if (meta?.openapi?.protect === false) operation.security = [];
      operation.parameters = (operation.parameters ?? []).map((parameter) =>
        parameter.in === 'path' ? pathParameter(path, parameter.name, parameter.description) : parameter,
      );
      liftExamples(operation);
      for (const tag of meta?.openapi?.tags ?? []) usedTags.add(tag);
      for (const name of meta?.requestHeaders ?? []) operation.parameters = [...(operation.parameters ?? []), requestHeader(name)];
      if (method === 'get' && meta?.headers?.includes('ETag')) addConditionalRead(operation);
    }
  }
  const attachmentPaths = attachmentOperations({ pathParameter, errorResponse });
  const exportPaths = exportOperations({ pathParameter, errorResponse });
  document.paths = {
    ...document.paths,
    // The upload's POST joins the list's GET (a procedure) on the same path.
    [UPLOAD_PATH]: { ...(document.paths?.[UPLOAD_PATH] as object | undefined), ...attachmentPaths[UPLOAD_PATH] },
    [CONTENT_PATH]: attachmentPaths[CONTENT_PATH],
    [THUMBNAIL_PATH]: attachmentPaths[THUMBNAIL_PATH],
    [PROJECT_EXPORT_PATH]: exportPaths[PROJECT_EXPORT_PATH],
    [ACCOUNT_EXPORT_PATH]: exportPaths[ACCOUNT_EXPORT_PATH],
    [IMPORT_PATH]: importOperation({ errorResponse }),
    [EVENTS_PATH]: { get: eventsOperation() },
    [NOTIFICATION_EVENTS_PATH]: { get: notificationEventsOperation() },
    [UNSUBSCRIBE_DOC_PATH]: unsubscribeOperations(),
  } as never;
  announceRateLimits(document.paths ?? {});
  // trpc-to-openapi's own per-code error schemas are replaced by the one Error schema above.
  const schemas = (document.components?.schemas ?? {}) as Record<string, unknown>;
  document.components = { ...document.components, responses: { ...(document.components?.responses as object), MethodNotAllowed: METHOD_NOT_ALLOWED } } as never;
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  // Either scheme: a login token or a personal access token.
  document.security = [{ bearerAuth: [] }, { personalAccessToken: [] }];
  document.tags = [...usedTags].map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) }));
  return document;
}
