import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/**
 * Every REST response a test receives through the harness is checked against the served OpenAPI
 * document: the operation must list the status, the body must match its schema, and the headers
 * a client reads (ETag, Link, Location, Retry-After, the RateLimit fields) must be documented. A response the document
 * does not describe fails the test that received it.
 */

const REST_PREFIX = '/api/v1';
const DOCUMENT_URL = `${REST_PREFIX}/openapi.json`;
const DOCUMENTED_HEADERS = ['etag', 'link', 'location', 'retry-after', 'allow', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

/** The request paths a document path template names: `/tasks/{id}` → `/api/v1/tasks/<anything but a slash>`. */
export const pathPattern = (template: string) => new RegExp(`^${REST_PREFIX}${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`);

type Response = { headers?: Record<string, unknown>; content?: Record<string, { schema?: object }> };
type Operation = { responses: Record<string, Response> };
type OpenApiDocument = { paths: Record<string, Record<string, Operation>>; components?: { responses?: Record<string, Response> } };

interface Route {
  template: string;
  pattern: RegExp;
  literalSegments: number;
  operations: Record<string, Operation>;
}

export interface ReceivedResponse {
  status: number;
  body: unknown;
  headers: Record<string, unknown>;
}

class Conformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly routes: Route[];

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    // Most specific first: literal segments win over templated ones.
    this.routes = Object.entries(document.paths)
      .map(([template, operations]) => ({
        template,
        operations,
        pattern: pathPattern(template),
        literalSegments: template.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
      }))
      .sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** The problems of one response, empty when the document describes it. */
  problems(method: string, url: string, response: ReceivedResponse): string[] {
    const path = url.split('?')[0]!;
    const verb = method.toLowerCase();
    if (!path.startsWith(`${REST_PREFIX}/`) || path === DOCUMENT_URL || verb === 'options' || verb === 'head') return [];
    const route = this.routes.find((candidate) => candidate.pattern.test(path));
    const operation = route?.operations[verb];
    if (!route || !operation) {
      // Not an operation of the API: only a refusal (404, or 413/415 when the body is read first) in the error body.
      if (response.status < 400 || response.status >= 500) return [`no operation ${method} ${path} in the document, yet it answered ${response.status}`];
      if (response.status === 405) return [...this.methodNotAllowedProblems(path, response), ...this.bodyProblems('#/components/schemas/Error', 'Error', response.body)];
      return this.bodyProblems('#/components/schemas/Error', 'Error', response.body);
    }
    const where = `${method} ${route.template} → ${response.status}`;
    const documented = operation.responses[String(response.status)] ?? operation.responses.default;
    if (!documented) return [`${where}: status not in the document (it lists ${Object.keys(operation.responses).join(', ')})`];
    const problems: string[] = [];
    const declaredHeaders = Object.keys(documented.headers ?? {}).map((name) => name.toLowerCase());
    for (const name of DOCUMENTED_HEADERS) {
      if (response.headers[name] !== undefined && !declaredHeaders.includes(name)) problems.push(`${where}: header ${name} is not documented`);
    }
    // A page for a browser (the unsubscribe link's): its media type must be documented; no schema applies.
    const mediaType = String(response.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (mediaType && mediaType !== 'application/json') {
      // A media type range (`*/*`, `image/*`) documents every type it covers: a file's bytes as they are.
      const ranges = [mediaType, `${mediaType.split('/')[0]}/*`, '*/*'];
      return ranges.some((range) => documented.content?.[range]) ? problems : [...problems, `${where}: content type ${mediaType} is not in the document`];
    }
    const schema = documented.content?.['application/json']?.schema;
    if (!schema) {
      if (response.body !== undefined && response.body !== '') problems.push(`${where}: the document describes no body`);
      return problems;
    }
    const pointer = `#/paths/${escapePointer(route.template)}/${verb}/responses/${response.status}/content/application~1json/schema`;
    return [...problems, ...this.bodyProblems(pointer, where, response.body)];
  }

  /** A 405 as `#/components/responses/MethodNotAllowed` says: `Allow` names every method the document gives the path (and HEAD with GET). */
  private methodNotAllowedProblems(path: string, response: ReceivedResponse): string[] {
    if (!this.document.components?.responses?.MethodNotAllowed) return ['405: the document has no #/components/responses/MethodNotAllowed'];
    const methods = new Set(this.routes.filter((route) => route.pattern.test(path)).flatMap((route) => Object.keys(route.operations).map((verb) => verb.toUpperCase())));
    if (methods.has('GET')) methods.add('HEAD');
    const expected = [...methods].sort().join(', ');
    return response.headers.allow === expected ? [] : [`405 for ${path}: Allow is ${String(response.headers.allow)}, the document gives ${expected}`];
  }

  private bodyProblems(pointer: string, where: string, body: unknown): string[] {
    let validate = this.validators.get(pointer);
    if (!validate) {
      // The schema is compiled inside a copy of the document so its `#/components/…` refs resolve.
      validate = this.ajv.compile({ ...this.document, $id: `tasklane-response-${this.validators.size}`, $ref: pointer });
      this.validators.set(pointer, validate);
    }
    if (validate(body)) return [];
    const errors = (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || '(body)'} ${error.message}`);
    return [`${where}: body does not match the document: ${errors.join('; ')}; body: ${JSON.stringify(body)?.slice(0, 300)}`];
  }
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

let conformance: Promise<Conformance> | undefined;

/** One checker per test process, built from the document the app serves. */
export function documentConformance(app: FastifyInstance): Promise<Conformance> {
  conformance ??= app.inject({ method: 'GET', url: DOCUMENT_URL }).then((response) => {
    if (response.statusCode !== 200) throw new Error(`GET ${DOCUMENT_URL} answered ${response.statusCode}`);
    return new Conformance(response.json() as OpenApiDocument);
  });
  return conformance;
}

/** Throws, failing the calling test, when the document does not describe the response. */
export async function assertDocumented(app: FastifyInstance, method: string, url: string, response: ReceivedResponse): Promise<void> {
  const problems = (await documentConformance(app)).problems(method, url, response);
  if (problems.length > 0) throw new Error(`Response not described by the OpenAPI document:\n  ${problems.join('\n  ')}`);
}
