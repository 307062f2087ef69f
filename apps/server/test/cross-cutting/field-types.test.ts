import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, startTestApp, type TestApp, type TestResponse, type TestUser } from '../support/harness';
import { isEventStream } from '../support/routes';
import { appRouter } from '../../src/transport/trpc/router';

/**
 * Every field of every route, on both transports, with a value of each wrong JSON type: a 400 whose
 * issues name the field, never a coercion (no `"false"` taken as true, no `1` as a string). The
 * fields and their types come from the served OpenAPI document, so a field added later is covered.
 * Query-string numbers are digits only: `10` is ten; `10abc`, `1e1`, `0x10`, ` 10` and `` are 400s.
 */

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  anyOf?: JsonSchema[];
  enum?: unknown[];
  items?: JsonSchema;
};
type Operation = {
  parameters?: { in: string; name: string; schema: JsonSchema }[];
  requestBody?: { content: { 'application/json': { schema: { properties?: Record<string, JsonSchema> } } } };
  responses?: Record<string, { content?: Record<string, unknown> }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, JsonSchema> } };

const SAMPLES: unknown[] = ['text', 'true', '1', 1, 0, 1.5, true, false, null, {}, [], ['text'], [1]];
const UNKNOWN_ID = '01935d2c-0000-7000-8000-000000000000';
const QUERY_NUMBERS = ['abc', '10abc', '1e1', '', '1.5', '0x10', ' 10', '10 ', '+10', '١٠'];

/** Whether a JSON value has a type (and enum value) the schema allows. */
function accepts(document: Document, schema: JsonSchema, value: unknown): boolean {
  if (schema.$ref) return accepts(document, document.components.schemas[schema.$ref.split('/').pop()!]!, value);
  if (schema.anyOf) return schema.anyOf.some((option) => accepts(document, option, value));
  if (schema.enum) return schema.enum.includes(value);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.some((type) => {
    switch (type) {
      case 'string':
        return typeof value === 'string';
      case 'integer':
        return Number.isInteger(value);
      case 'number':
        return typeof value === 'number';
      case 'boolean':
        return typeof value === 'boolean';
      case 'null':
        return value === null;
      case 'array':
        return Array.isArray(value) && value.every((item) => accepts(document, schema.items ?? {}, item));
      case 'object':
        return typeof value === 'object' && value !== null && !Array.isArray(value);
      default:
        return true;
    }
  });
}

interface FieldCase {
  route: string;
  transport: 'rest' | 'trpc';
  field: string;
  value: unknown;
  send: () => Promise<TestResponse>;
}

const issuePaths = (response: TestResponse): unknown[] =>
  ((response.body?.issues ?? response.body?.error?.data?.issues ?? []) as { path: unknown[] }[]).map((issue) => issue.path[0]);

describe('every field refuses every wrong type, on both transports', () => {
  let t: TestApp;
  let owner: TestUser;
  let cases: FieldCase[];

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    const document = (await t.request('GET', '/api/v1/openapi.json')).body as Document;
    const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string; meta?: { openapi?: { method: string; path: string } } } }>);
    const procedureOf = (method: string, path: string) =>
      procedures.find(([, procedure]) => procedure._def.meta?.openapi?.method === method.toUpperCase() && procedure._def.meta.openapi.path === path);

    // The live event streams stream rather than answer (support/routes.ts, isEventStream).
    cases = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).filter(([, operation]) => !isEventStream(operation)).flatMap(([method, operation]) => {
        const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
        const ids = Object.fromEntries(pathParams.map((name) => [name, UNKNOWN_ID]));
        const url = `/api/v1${path.replace(/\{\w+\}/g, UNKNOWN_ID)}`;
        const route = `${method.toUpperCase()} ${path}`;
        const procedure = procedureOf(method, path);
        const trpc = (input: Record<string, unknown>) =>
          procedure![1]._def.type === 'mutation'
            ? t.request('POST', `/api/trpc/${procedure![0]}`, { token: owner.token, body: input })
            : t.request('GET', `/api/trpc/${procedure![0]}?input=${encodeURIComponent(JSON.stringify(input))}`, { token: owner.token });
        const fields: [string, JsonSchema, 'body' | 'query'][] = [
          ...Object.entries(operation.requestBody?.content['application/json']?.schema.properties ?? {}).map(([name, schema]) => [name, schema, 'body'] as [string, JsonSchema, 'body']),
          ...(operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => [parameter.name, parameter.schema, 'query'] as [string, JsonSchema, 'query']),
        ];
        return fields.flatMap(([field, schema, where]): FieldCase[] => {
          const wrong = SAMPLES.filter((value) => !accepts(document, schema, value));
          const rest: FieldCase[] =
            where === 'body'
              ? wrong.map((value) => ({ route, transport: 'rest', field, value, send: () => t.request(method.toUpperCase(), url, { token: owner.token, body: { [field]: value } }) }))
              : queryValues(document, schema).map((value) => ({
                  route,
                  transport: 'rest',
                  field,
                  value,
                  // With the route's own method: POST /imports takes `dryRun` in its query.
                  send: () => t.request(method.toUpperCase(), `${url}?${typeof value === 'string' ? new URLSearchParams({ [field]: value }) : new URLSearchParams((value as string[]).map((item): [string, string] => [field, item]))}`, { token: owner.token }),
                }));
          const native: FieldCase[] = procedure ? wrong.map((value) => ({ route, transport: 'trpc', field, value, send: () => trpc({ ...ids, [field]: value }) })) : [];
          return [...rest, ...native];
        });
      }),
    );
  });
  afterAll(() => t.close());

  /** A query string holds strings: wrong ones for integers and enum lists, and a repeated parameter for a single string. */
  function queryValues(document: Document, schema: JsonSchema): (string | string[])[] {
    const resolved = schema.$ref ? document.components.schemas[schema.$ref.split('/').pop()!]! : schema;
    if (resolved.type === 'integer') return QUERY_NUMBERS;
    // Lower case: no enum value, and no state key either (UPPER_SNAKE).
    if (resolved.type === 'array') return ['nope', 'TODO,nope', ','];
    return [['a', 'b']];
  }

  it('covers the body and query fields of every route', () => {
    const fields = new Set(cases.map(({ route, field }) => `${route} ${field}`));
    for (const expected of ['PATCH /projects/{id}/webhooks/{webhookId} active', 'POST /tasks dueDate', 'GET /tasks/project/{projectId} limit', 'GET /tasks status', 'PATCH /auth/me currentPassword', 'POST /auth/tokens scopes', 'POST /tasks/{id}/comments attachmentIds', 'PATCH /tasks/{id}/comments/{commentId} attachmentIds']) {
      expect(fields).toContain(expected);
    }
    expect(cases.filter(({ transport }) => transport === 'trpc').length).toBeGreaterThan(300);
  });

  it('answers each with a 400 naming the field', async () => {
    const wrongAnswers: string[] = [];
    for (const { route, transport, field, value, send } of cases) {
      const response = await send();
      if (response.status !== 400 || !issuePaths(response).includes(field)) {
        wrongAnswers.push(`${transport} ${route} ${field}=${JSON.stringify(value)} → ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
      }
    }
    expect(wrongAnswers).toEqual([]);
  });

  it('a query-string integer in digits is read as the number', async () => {
    const response = await t.request('GET', '/api/v1/projects?limit=10', { token: owner.token });
    expect(response.status).toBe(200);
  });
});
