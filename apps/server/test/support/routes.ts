import { appRouter } from '../../src/transport/trpc/router';
import type { TestApp } from './harness';

/** One REST operation as the OpenAPI document describes it. */
export interface RestRoute {
  method: string;
  /** Path template under /api/v1, e.g. `/tasks/{id}/comments`. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyFields: string[];
  hasBody: boolean;
  isProtected: boolean;
}

type Operation = {
  parameters?: { in?: string; name?: string }[];
  responses?: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
  security?: unknown[];
};

/**
 * A live event stream (`text/event-stream`: a project's events, the caller's notifications) is
 * documented too, but it streams rather than answers: the route walks leave it out; its refusals
 * are tested in events.test.ts and notifications.test.ts, its scope in the tRPC subscriptions'.
 */
export const isEventStream = (operation: { responses?: Record<string, { content?: Record<string, unknown> }> }): boolean =>
  operation.responses?.['200']?.content?.['text/event-stream'] !== undefined;

/**
 * Every REST route, read from the served OpenAPI document: a route someone adds later is fuzzed
 * and checked for authorization without touching these tests.
 */
export async function discoverRestRoutes(t: TestApp): Promise<RestRoute[]> {
  const response = await t.request('GET', '/api/v1/openapi.json');
  const paths = (response.body as { paths: Record<string, Record<string, Operation>> }).paths;
  return Object.entries(paths).flatMap(([path, operations]) =>
    Object.entries(operations).filter(([, operation]) => !isEventStream(operation)).map(([method, operation]) => {
      const parameters = operation.parameters ?? [];
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      return {
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!),
        queryParams: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name!),
        bodyFields: Object.keys(schema?.properties ?? {}),
        hasBody: operation.requestBody !== undefined,
        isProtected: !(Array.isArray(operation.security) && operation.security.length === 0),
      };
    }),
  );
}

/** Every procedure of the native tRPC endpoint with its kind (query, mutation, subscription). */
export function trpcProcedures(): { name: string; type: string }[] {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
  return Object.entries(procedures).map(([name, procedure]) => ({ name, type: procedure._def.type }));
}

/**
 * Percent-encodes any string, an unpaired surrogate included: encodeURIComponent throws on one, so
 * it is sent as the three bytes UTF-8 would give it (invalid UTF-8, as a careless client sends).
 */
export const encodePathSegment = (value: string) =>
  value.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]|[\uD800-\uDFFF]|[^\uD800-\uDFFF]+/g, (part) =>
    part.length === 1 && part >= '\uD800' && part <= '\uDFFF'
      ? [0xe0 | (part.charCodeAt(0) >> 12), 0x80 | ((part.charCodeAt(0) >> 6) & 0x3f), 0x80 | (part.charCodeAt(0) & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('')
      : encodeURIComponent(part),
  );

/** Fills a path template: `{id}` → the value chosen for that parameter. */
export const fillPath = (path: string, values: Record<string, string>) =>
  `/api/v1${path.replace(/\{(\w+)\}/g, (_match, name: string) => encodePathSegment(values[name] ?? ''))}`;
