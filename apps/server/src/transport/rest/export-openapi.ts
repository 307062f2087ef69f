/**
 * The OpenAPI description of the exports' plain Fastify routes (rest/export.ts), which
 * trpc-to-openapi cannot see: downloads streamed as they are made. openapi.ts merges them into the
 * document, passing its helpers (a parameter: no import back, no cycle).
 */
import type { OpenApiHelpers } from './attachments-openapi';

type Json = Record<string, unknown>;

export const PROJECT_EXPORT_PATH = '/projects/{id}/export';
export const ACCOUNT_EXPORT_PATH = '/auth/me/export';

const text = (description: string) => ({ description, schema: { type: 'string' } });

const DOWNLOAD_HEADERS = {
  'Content-Disposition': text('`attachment; filename="<name>"`: the project\'s key (`WEB.json`, `WEB.csv`), or `tasklane-account-<date>.json`'),
  'Cache-Control': text('`private, no-store`'),
};

/** The file's first keys: what an importer checks before reading on. */
const fileHeader = (kind: string) => ({
  format: { const: 'tasklane', description: 'Always `tasklane`: the file is this server\'s export' },
  version: { const: 1, description: 'The layout\'s version; a change that an older importer would misread gets a new one' },
  kind: { const: kind },
  exportedAt: { type: 'string', format: 'date-time' },
});

const list = (description: string, items: Json = { type: 'object' }) => ({ type: 'array', description, items });

const PROJECT_FILE = {
  type: 'object',
  required: ['format', 'version', 'kind', 'exportedAt', 'project', 'states', 'labels', 'fields', 'members', 'tasks'],
  properties: {
    ...fileHeader('project'),
    project: { $ref: '#/components/schemas/ProjectDetail' },
    states: list('The workflow states, in board order', { $ref: '#/components/schemas/State' }),
    labels: list('Every label', { $ref: '#/components/schemas/Label' }),
    fields: list('The custom fields, in order', { $ref: '#/components/schemas/Field' }),
    members: list('Every member, with name, email and role', { $ref: '#/components/schemas/Member' }),
    tasks: list(
      'Every task, oldest first, as `GET /tasks/{id}` answers it (status, priority, dates, assignee, labels, custom field values, recurrence, parentId, position, key, …), each with `comments`, `relations` (those it is the source of, with `relatedProjectId`), `timeEntries` and `attachments` (metadata: name, type, size, SHA-256, never the bytes)',
      {
        type: 'object',
        required: ['id', 'key', 'comments', 'relations', 'timeEntries', 'attachments'],
        properties: { comments: list('Oldest first'), relations: list('Oldest first'), timeEntries: list('Oldest first'), attachments: list('Oldest first') },
      },
    ),
  },
};

const ACCOUNT_FILE = {
  type: 'object',
  required: ['format', 'version', 'kind', 'exportedAt', 'account', 'notificationSettings', 'accessTokens', 'memberships', 'comments', 'timeEntries'],
  properties: {
    ...fileHeader('account'),
    account: { $ref: '#/components/schemas/Me' },
    notificationSettings: { type: 'object' },
    accessTokens: list('Personal access tokens: name, scopes, projects, dates; never the secret'),
    memberships: list('Every project the user is a member of: projectId, projectName, projectKey, role, owner'),
    comments: list('Every comment the user wrote, in any project, with projectId, projectName, taskId and taskKey'),
    timeEntries: list('Every time entry the user logged, in any project, with projectId and projectName'),
  },
};

export function exportOperations({ pathParameter, errorResponse }: OpenApiHelpers): Record<string, Record<string, Json>> {
  const refusals = (statuses: number[], overrides: Record<number, string> = {}) =>
    Object.fromEntries(statuses.map((status) => [String(status), { ...errorResponse(status), ...(overrides[status] ? { description: overrides[status] } : {}) }]));
  return {
    [PROJECT_EXPORT_PATH]: {
      get: {
        operationId: 'projectsExport',
        tags: ['projects'],
        summary: 'Export a project (JSON or CSV)',
        description:
          'ADMIN or owner. `format=json` (the default): the whole project in one file, streamed as it is read: the project, its states, labels, custom fields, members (names and emails), and every task with its comments, relations, time entries and attachments\' metadata (never the bytes); it begins `{"format":"tasklane","version":1,"kind":"project"`. `format=csv`: the tasks, one row each (RFC 4180, CRLF line ends, a header row): key, title, description, status (the state\'s name), priority, start, due, assignee (email), labels (names, comma-joined), created, updated, then one column per custom field by name; a cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `\'` so no spreadsheet runs it as a formula. A personal access token needs the `read` scope.',
        parameters: [
          pathParameter(PROJECT_EXPORT_PATH, 'id'),
          { name: 'format', in: 'query', required: false, description: '`json` (default) or `csv`', schema: { type: 'string', enum: ['json', 'csv'], default: 'json' } },
        ],
        responses: {
          '200': {
            description: 'The file, as an attachment',
            headers: DOWNLOAD_HEADERS,
            content: {
              'application/json': { schema: PROJECT_FILE },
              'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV, one row per task' } },
            },
          },
          ...refusals([400, 401, 403, 404, 429, 500, 503], {
            400: 'A `format` other than `json` or `csv`, given twice, or another query parameter',
            403: "A VIEWER or EDITOR, or a personal access token's scope or project limit",
            404: 'Unknown or malformed id, or a project the caller is not a member of',
          }),
        },
      },
    },
    [ACCOUNT_EXPORT_PATH]: {
      get: {
        operationId: 'authExportMe',
        tags: ['auth'],
        summary: 'Export your own data',
        description:
          'Your account (never its password hash), notification settings, personal access tokens\' metadata (never their secrets), memberships with the projects\' names and your roles, and every comment and time entry you wrote, in one JSON file, streamed: for a data-protection request. It begins `{"format":"tasklane","version":1,"kind":"account"`. Needs a signed-in session: a personal access token gets 403 `SESSION_REQUIRED`, as for the tokens\' own list.',
        parameters: [],
        responses: {
          '200': { description: 'The file, as an attachment', headers: DOWNLOAD_HEADERS, content: { 'application/json': { schema: ACCOUNT_FILE } } },
          ...refusals([400, 401, 403, 429, 500, 503], {
            400: 'A query parameter (the route takes none)',
            403: 'A personal access token (reason `SESSION_REQUIRED`)',
          }),
        },
      },
    },
  };
}

export const IMPORT_PATH = '/imports';

/** `POST /imports` (rest/imports.ts): a multipart upload, which trpc-to-openapi cannot describe. */
export function importOperation({ errorResponse }: Pick<OpenApiHelpers, 'errorResponse'>): Record<string, Json> {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  return {
    post: {
      operationId: 'importsCreate',
      tags: ['imports'],
      summary: 'Import a project from another tool',
      description:
        'Makes one new project of yours from a file another tool exported (`source`: trello, jira, github, asana, csv, tasklane; docs/api.md says what each maps to what). The file is read at once: one that is not what `source` says is a 400 `IMPORT_FORMAT`, and nothing is kept. Then the import runs as a job (202; follow it with `GET /imports/{id}`), writing the whole project in one transaction or nothing. `?dryRun=true` answers at once (200) with what would be made and writes nothing. People are matched by email to registered users, who become EDITORs; anyone else is named in a warning. A personal access token needs the `admin` scope and no project limit, as for creating a project.',
      parameters: [{ name: 'dryRun', in: 'query', required: false, description: '`true`: describe, write nothing', schema: { type: 'string', enum: ['true', 'false'] } }],
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['source', 'file'],
              properties: {
                source: ref('ImportSource'),
                file: { type: 'string', format: 'binary', description: 'The exported file (at most IMPORT_MAX_BYTES, 150 MiB by default)' },
                mapping: { type: 'string', description: 'For `csv`: JSON of the CsvMapping schema, naming the column of each field' },
              },
            },
          },
        },
      },
      responses: {
        '200': { description: 'The dry run: what would be made', content: { 'application/json': { schema: ref('ImportDryRun') } } },
        '202': {
          description: 'Queued',
          headers: { Location: text('`/api/v1/imports/{id}`') },
          content: { 'application/json': { schema: { type: 'object', required: ['id', 'status', 'source'], properties: { id: { type: 'string' }, status: { const: 'pending' }, source: ref('ImportSource') } } } },
        },
        ...Object.fromEntries([400, 401, 403, 413, 415, 429, 500, 503].map((status) => [String(status), errorResponse(status)])),
      },
    },
  };
}
