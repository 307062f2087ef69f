import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { procedureMetas } from '../../src/transport/rest/openapi';
import { appRouter } from '../../src/transport/trpc/router';
import { documentConformance } from '../support/openapi-conformance';
import { startTestApp, type TestApp } from '../support/harness';

type Schema = Record<string, unknown>;
type Operation = {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: string; description?: string }[];
  requestBody?: { content: { 'application/json': { schema: Schema; example?: unknown } } };
  responses: Record<string, { headers?: Record<string, unknown>; content?: { 'application/json': { schema: Schema } } }>;
};
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  tags: { name: string; description?: string }[];
  security: unknown[];
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
};

const restProcedures = procedureMetas(appRouter).flatMap(([procedure, meta]) => (meta?.openapi ? [{ procedure, meta, openapi: meta.openapi }] : []));

describe('GET /api/v1/openapi.json', () => {
  let t: TestApp;
  let document: Document;
  let operations: { path: string; method: string; operation: Operation }[];

  beforeAll(async () => {
    t = await startTestApp();
    const response = await t.request('GET', '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    document = response.body;
    operations = Object.entries(document.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, operation]) => ({ path, method, operation })),
    );
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has one operation per REST procedure, and none for the tRPC-only page procedures', () => {
    // …and the two live event streams and the emails' unsubscribe link, plain Fastify routes described by hand.
    expect(operations.map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort()).toEqual(
      [
        ...restProcedures.map(({ openapi }) => `${openapi.method} ${openapi.path}`),
        'GET /projects/{id}/events',
        'GET /notifications/events',
        'GET /notification-settings/unsubscribe',
        'POST /notification-settings/unsubscribe',
        'POST /tasks/{id}/attachments',
        'GET /attachments/{id}/content',
        'GET /attachments/{id}/thumbnail',
        'GET /projects/{id}/export',
        'GET /auth/me/export',
        'POST /imports',
      ].sort(),
    );
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(ids).toContain('tasksListForProject');
    expect(ids).toContain('authRegister');
  });

  it('describes every operation, tagged by resource, with every tag listed', () => {
    const tagNames = document.tags.map((tag) => tag.name);
    for (const { path, method, operation } of operations) {
      const label = `${method} ${path}`;
      expect(operation.summary, label).toMatch(/\S/);
      expect(operation.description, label).toMatch(/\S/);
      expect(operation.tags?.length, label).toBe(1);
      expect(tagNames, label).toContain(operation.tags![0]);
    }
    for (const resource of ['auth', 'projects', 'members', 'tasks', 'comments']) {
      expect(document.tags.find((tag) => tag.name === resource)?.description).toMatch(/\S/);
    }
  });

  it('needs a bearer token (a login token or a personal access token) everywhere except signing in, password reset and the unsubscribe link', () => {
    expect(document.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: expect.any(String) });
    expect(document.components.securitySchemes.personalAccessToken).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'tl_pat_…', description: expect.any(String) });
    expect(document.security).toEqual([{ bearerAuth: [] }, { personalAccessToken: [] }]);
    const open = operations.filter(({ operation }) => operation.security?.length === 0).map(({ path }) => path);
    expect(open.sort()).toEqual([
      '/auth/login',
      '/auth/oidc/callback',
      '/auth/oidc/exchange',
      '/auth/oidc/login',
      '/auth/password-reset',
      '/auth/password-reset/confirm',
      '/auth/providers',
      '/auth/register',
      '/notification-settings/unsubscribe',
      '/notification-settings/unsubscribe',
    ]);
    for (const { operation } of operations) {
      if (operation.security?.length !== 0) expect(operation.responses['401']).toBeDefined();
    }
  });

  it('gives the real success status: 201 for creates, 200 otherwise, and the redirects of single sign-on', () => {
    for (const { meta, openapi } of restProcedures) {
      const operation = document.paths[openapi.path]![openapi.method.toLowerCase()]!;
      const success = Object.keys(operation.responses).filter((status) => Number(status) < 400);
      const conditional = openapi.method === 'GET' && meta.headers?.includes('ETag');
      const expected = [meta.successStatus ?? 200, ...(conditional ? [304] : []), ...(meta.redirect ? [meta.redirect.status] : [])].map(String);
      expect(success, `${openapi.method} ${openapi.path}`).toEqual(expected);
    }
    expect(document.paths['/auth/oidc/login']!.get!.responses['302']!.headers).toHaveProperty('Location');
    expect(document.paths['/auth/oidc/callback']!.get!.responses['303']!.headers).toHaveProperty('Location');
    expect(Object.keys(document.paths['/tasks']!.post!.responses)).toContain('201');
    expect(Object.keys(document.paths['/auth/login']!.post!.responses)).toContain('200');
  });

  it('lists every error status with the Error schema, and the headers a client reads', () => {
    const RATE_LIMIT_FIELDS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
    for (const { path, method, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        expect(response.content?.['application/json'].schema, `${method} ${path} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
      expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['400', '500']));
      if (operation.responses['429']) expect(Object.keys(operation.responses['429'].headers ?? {})).toEqual(expect.arrayContaining(['Retry-After', ...RATE_LIMIT_FIELDS]));
      if (method === 'post' || method === 'patch') expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['413', '415']));
    }
    expect(document.paths['/auth/register']!.post!.responses['409']).toBeDefined();
    expect(document.paths['/auth/login']!.post!.responses['401']).toBeDefined();
    expect(document.paths['/projects/{id}']!.patch!.responses['403']).toBeDefined();
    for (const { meta, openapi } of restProcedures) {
      const { responses } = document.paths[openapi.path]![openapi.method.toLowerCase()]!;
      const success = responses[String(meta.successStatus ?? 200)]!;
      const limited = responses['429'] ? RATE_LIMIT_FIELDS : [];
      expect(Object.keys(success.headers ?? {}).sort()).toEqual([...(meta.headers ?? []), ...(meta.location ? ['Location'] : []), ...limited].sort());
    }
    expect(document.paths['/tasks/project/{projectId}']!.get!.responses['200']!.headers?.Link).toBeDefined();
    expect(document.components.schemas.Error!.required).toEqual(['message', 'code']);
  });

  it('documents conditional reads (304, If-None-Match) where a read has an ETag, and the 405 of a method a path lacks', () => {
    const reads = operations.filter(({ method, operation }) => method === 'get' && operation.responses['200']?.headers?.ETag);
    expect(reads.map(({ path }) => path)).toEqual(expect.arrayContaining(['/projects/{id}', '/tasks/{id}', '/projects/{id}/labels/{labelId}', '/projects/{id}/webhooks/{webhookId}']));
    for (const { path, operation } of reads) {
      expect(operation.responses['304']?.headers?.ETag, path).toBeDefined();
      expect(operation.responses['304']?.content, path).toBeUndefined();
      expect(operation.parameters?.some((parameter) => parameter.in === 'header' && parameter.name === 'If-None-Match'), path).toBe(true);
    }
    const notAllowed = (document.components as { responses?: Record<string, { headers?: Record<string, unknown>; content?: unknown }> }).responses?.MethodNotAllowed;
    expect(notAllowed?.headers?.Allow).toBeDefined();
    expect(notAllowed?.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/Error' } } });
  });

  it('documents every path parameter, and query parameters of the lists', () => {
    for (const { path, method, operation } of operations) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      const documented = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
      expect(documented.map((parameter) => parameter.name).sort(), `${method} ${path}`).toEqual(inPath.sort());
      for (const parameter of documented) expect(parameter.description, `${method} ${path} ${parameter.name}`).toMatch(/\S/);
    }
    const query = document.paths['/tasks/project/{projectId}']!.get!.parameters!.filter((parameter) => parameter.in === 'query');
    expect(query.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(['status', 'priority', 'assigneeId', 'q', 'sort', 'limit', 'cursor']));
  });

  it('gives every request body an example that its own schema accepts', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const withBody = operations.filter(({ operation }) => operation.requestBody?.content['application/json']);
    expect(withBody.length).toBeGreaterThanOrEqual(8);
    // The one body that is no JSON: an attachment's upload, a multipart part `file` of bytes.
    const multipart = (document.paths['/tasks/{id}/attachments']!.post!.requestBody!.content as unknown as Record<string, { schema: object }>)['multipart/form-data']!;
    expect(multipart.schema).toEqual({ type: 'object', required: ['file'], properties: { file: expect.objectContaining({ type: 'string', format: 'binary' }) } });
    for (const { path, method, operation } of withBody) {
      const media = operation.requestBody!.content['application/json'];
      expect(media.example, `${method} ${path}`).toBeDefined();
      const validate = ajv.compile({ ...document, $id: `${method}:${path}`, $ref: `#/paths/${path.replace(/\//g, '~1')}/${method}/requestBody/content/application~1json/schema` });
      expect(validate(media.example) ? [] : validate.errors, `${method} ${path}`).toEqual([]);
    }
  });

  it('the conformance check of the harness refuses what the document does not describe', async () => {
    const conformance = await documentConformance(t.app);
    const task = { id: 'x', title: 'T' };
    expect(conformance.problems('GET', '/api/v1/tasks/abc', { status: 418, body: {}, headers: {} })[0]).toMatch(/status not in the document/);
    expect(conformance.problems('GET', '/api/v1/tasks/abc', { status: 200, body: task, headers: {} })[0]).toMatch(/body does not match/);
    expect(conformance.problems('GET', '/api/v1/tasks/abc', { status: 404, body: { message: 'gone' }, headers: {} })[0]).toMatch(/body does not match/);
    expect(conformance.problems('POST', '/api/v1/tasks', { status: 200, body: {}, headers: {} })[0]).toMatch(/status not in the document/);
    expect(conformance.problems('GET', '/api/v1/projects/abc', { status: 404, body: { message: 'x', code: 'NOT_FOUND' }, headers: { link: '<x>' } })[0]).toMatch(/header link is not documented/);
    expect(conformance.problems('GET', '/api/v1/nowhere', { status: 200, body: {}, headers: {} })[0]).toMatch(/no operation/);
    expect(conformance.problems('GET', '/api/v1/nowhere', { status: 404, body: {}, headers: {} })[0]).toMatch(/body does not match/);
    expect(conformance.problems('GET', '/api/v1/projects/abc', { status: 404, body: { message: 'x', code: 'NOT_FOUND' }, headers: {} })).toEqual([]);
  });
});

describe('the OpenAPI document and Swagger UI are served', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('serves the OpenAPI document and Swagger UI', async () => {
    const document = await t.request('GET', '/api/v1/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe('3.1.0');
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining(['/auth/login', '/auth/register', '/projects', '/projects/{id}', '/projects/{id}/members/invite', '/projects/{id}/members/{memberId}/role', '/tasks', '/tasks/project/{projectId}', '/tasks/{id}', '/tasks/{id}/comments']),
    );
    expect(document.body.paths['/tasks'].post.responses['201']).toBeDefined();
    const ui = await t.request('GET', '/docs/');
    expect(ui.status).toBe(200);
    expect(String(ui.body)).toContain('swagger');
  });
});
