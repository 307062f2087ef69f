import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CODE_BY_STATUS, databaseSnapshot, unacceptableAuthorizations } from '../support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestResponse } from '../support/harness';
import { discoverRestRoutes, fillPath, trpcProcedures, type RestRoute } from '../support/routes';
import { isTrpcErrorBody } from '../support/transport';

/**
 * Property: whatever a client sends — random JSON, wrong types, huge or odd strings, deep nesting,
 * duplicate keys, bad ids, cursors and query values, missing or garbage tokens — the answer is
 * never a 5xx, an error is always the documented body for its transport, and a refused request
 * leaves every row of the database as it was. FUZZ_RUNS scales the run per transport (`npm run fuzz` at the root: 20 000 by default).
 */
// The default keeps the file well under a minute on a busy two-core machine; `npm run fuzz` runs 20 000.
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/** Each run of the text property is two requests (the write and the read). */
const TEXT_RUNS = Math.max(1, Math.round(RUNS / 4));
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

interface Fixture {
  ids: Record<string, string>;
  /** Tokens of the project's owner, a viewer and an outsider. */
  validAuthorizations: string[];
  /** No token, expired, another secret, alg none, unknown user, another scheme. */
  refusedAuthorizations: (string | undefined)[];
  bodyFields: string[];
}

interface Request {
  method: string;
  url: string;
  headers: Record<string, string>;
  rawBody?: string;
}

// ── arbitraries ────────────────────────────────────────────────────────────────────────────
/** The characters the text rule is about: refused (NUL, unpaired surrogates) and kept exactly (all the others). */
const unicodeEdge = fc.constantFrom(
  '\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uFEFF', '\uFFFE', '\uFFFF', '\u{10FFFF}', '\uFFFD', '\u0301', '\u094D',
  '\u202E', '\u200F', '\u200B', '\u200D', '\r\n', '\r', '\n', '\t', '\u2028', '\u0085', '\u00A0', '\u3000', ' ', '🙂', '👩‍👩‍👧',
  '🏳️‍🌈', '𝔘', 'a', 'é', 'ß', 'İ', 'ﬃ', '"', '\\', '%00',
);
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
const unicodeText = fc
  .array(
    fc.oneof(
      { arbitrary: unicodeEdge, weight: 4 },
      { arbitrary: fc.string({ unit: anyUnit, maxLength: 3 }), weight: 1 },
      { arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }), weight: 1 },
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 120 });
const hugeText = fc.integer({ min: 10_000, max: 1_100_000 }).map((length) => 'x'.repeat(length));
const oddText = fc.oneof(
  { arbitrary: fc.string({ maxLength: 60 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 60 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 2 },
  {
    arbitrary: fc.constantFrom('', ' ', 'null', 'undefined', '../../etc/passwd', '%00', "' OR 1=1 --", '<script>x</script>', '\u0000', '\u202e', '🙂'.repeat(300), '-1', '1e309', 'NaN', 'me', 'none', '0000-01-01T00:00:00Z', '9999-12-31T23:00:00-14:00'),
    weight: 3,
  },
  { arbitrary: hugeText, weight: 1 },
  { arbitrary: unicodeText, weight: 4 },
);
const anyJson = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 4 },
  { arbitrary: oddText, weight: 3 },
  { arbitrary: fc.constantFrom(null, true, false, 0, -1, 2 ** 53, 1e308, [], {}), weight: 2 },
);

function idValue(fixture: Fixture) {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...Object.values(fixture.ids)), weight: 4 },
    { arbitrary: fc.uuid({ version: 7 }), weight: 2 },
    { arbitrary: fc.uuid(), weight: 1 },
    { arbitrary: oddText, weight: 3 },
  );
}

const cursorValue = fc.oneof(
  fc.base64String({ maxLength: 80 }),
  fc.jsonValue({ maxDepth: 2 }).map((value) => Buffer.from(JSON.stringify(value)).toString('base64url')),
  printable,
);

function queryValue(fixture: Fixture) {
  return fc.oneof(
    oddText,
    fc.integer({ min: -10, max: 1000 }).map(String),
    fc.constantFrom('-priority', 'createdAt', 'dueDate', 'TODO,DONE', 'URGENT', '2026-01-01T00:00:00Z', '2026-02-30'),
    cursorValue,
    idValue(fixture),
  );
}

/** A JSON object with known fields (and some unknown ones), each holding anything at all. */
function bodyObject(fixture: Fixture, fields: string[]) {
  const key = fc.oneof({ arbitrary: fc.constantFrom(...fields), weight: 5 }, { arbitrary: fc.string({ maxLength: 20 }), weight: 1 });
  const value = fc.oneof({ arbitrary: anyJson, weight: 4 }, { arbitrary: idValue(fixture), weight: 1 });
  return fc.dictionary(key, value, { maxKeys: 6 });
}

/** Body text: valid JSON of the wrong shape, duplicate keys, deep nesting, or not JSON at all. */
function rawBody(fixture: Fixture, fields: string[]) {
  const field = fc.constantFrom(...fields);
  return fc.oneof(
    { arbitrary: bodyObject(fixture, fields).map((body) => JSON.stringify(body)), weight: 8 },
    { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)), weight: 3 },
    {
      arbitrary: fc.tuple(field, anyJson, anyJson).map(([name, first, second]) => `{"${name}":${JSON.stringify(first)},"${name}":${JSON.stringify(second)}}`),
      weight: 2,
    },
    { arbitrary: fc.integer({ min: 20, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`), weight: 1 },
    { arbitrary: fc.integer({ min: 20, max: 5_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`), weight: 1 },
    { arbitrary: fc.string({ maxLength: 100 }), weight: 2 },
    { arbitrary: bodyObject(fixture, fields).map((body) => JSON.stringify(body).slice(0, -1)), weight: 1 },
  );
}

const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 10 },
  { arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x'), weight: 2 },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

function authorization(fixture: Fixture) {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...fixture.validAuthorizations), weight: 8 },
    { arbitrary: fc.constantFrom(...fixture.refusedAuthorizations), weight: 2 },
    { arbitrary: printable.map((garbage) => `Bearer ${garbage}`), weight: 1 },
    { arbitrary: printable, weight: 1 },
  );
}

function extraHeaders() {
  return fc.record(
    { 'if-match': printable, 'idempotency-key': printable, 'x-request-id': printable },
    { requiredKeys: [] },
  );
}

function headersFor(auth: string | undefined, type: string | undefined, extra: Record<string, string>, withBody: boolean) {
  return {
    ...extra,
    ...(auth !== undefined ? { authorization: auth } : {}),
    ...(withBody && type ? { 'content-type': type } : {}),
  };
}

function restRequest(fixture: Fixture, route: RestRoute): fc.Arbitrary<Request> {
  // `.` and `..` are dot segments, which URL normalisation removes (RFC 3986 §5.2.4): the request
  // would address another path than the route's, so they are no value of the route's parameter.
  const pathValues = fc.record(Object.fromEntries(route.pathParams.map((name) => [name, idValue(fixture).filter((value) => value !== '.' && value !== '..')])));
  const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom('limit', 'cursor', ...route.queryParams), printable), queryValue(fixture)), { maxLength: 4 });
  const fields = route.bodyFields.length > 0 ? route.bodyFields : ['name'];
  const body = route.hasBody ? fc.option(rawBody(fixture, fields), { freq: 8 }) : fc.option(rawBody(fixture, fields), { freq: 1 });
  return fc
    .tuple(pathValues, query, body, authorization(fixture), contentType, extraHeaders())
    .map(([values, pairs, text, auth, type, extra]) => {
      const search = new URLSearchParams(pairs).toString();
      return {
        method: route.method,
        url: `${fillPath(route.path, values as Record<string, string>)}${search ? `?${search}` : ''}`,
        headers: headersFor(auth, type, extra, text !== null),
        ...(text !== null ? { rawBody: text } : {}),
      };
    });
}

function trpcRequest(fixture: Fixture, procedure: { name: string; type: string }): fc.Arbitrary<Request> {
  const input = fc.oneof(
    { arbitrary: rawBody(fixture, fixture.bodyFields), weight: 6 },
    { arbitrary: bodyObject(fixture, fixture.bodyFields).map((value) => JSON.stringify({ 0: value })), weight: 2 },
  );
  const method = procedure.type === 'mutation' ? fc.constantFrom('POST', 'POST', 'POST', 'GET') : fc.constantFrom('GET', 'GET', 'GET', 'POST');
  return fc
    .tuple(method, fc.boolean(), fc.option(input, { freq: 8 }), authorization(fixture), contentType, extraHeaders())
    .map(([verb, batch, text, auth, type, extra]) => {
      const params = new URLSearchParams(batch ? { batch: '1' } : {});
      if (verb === 'GET' && text !== null) params.set('input', text);
      const search = params.toString();
      const withBody = verb === 'POST' && text !== null;
      return {
        method: verb,
        url: `/api/trpc/${procedure.name}${search ? `?${search}` : ''}`,
        headers: headersFor(auth, type, extra, withBody),
        ...(withBody ? { rawBody: text } : {}),
      };
    });
}

// ── text fields ─────────────────────────────────────────────────────────────────────────────
interface TextField {
  procedure: string;
  rest: [string, string];
  field: string;
  /** The other fields of the input, path ids included. */
  input: Record<string, unknown>;
  trim: boolean;
  read: string;
  pick: (body: any) => unknown;
}

/** Text fields written by PATCH and read back (a token's name, created by POST, is in text.test.ts). */
function textFields(project: string, task: string, comment: string): TextField[] {
  const projectPath = `/api/v1/projects/${project}`;
  const taskPath = `/api/v1/tasks/${task}`;
  return [
    { procedure: 'auth.updateMe', rest: ['PATCH', '/api/v1/auth/me'], field: 'name', input: {}, trim: true, read: '/api/v1/auth/me', pick: (body) => body.name },
    { procedure: 'projects.update', rest: ['PATCH', projectPath], field: 'name', input: { id: project }, trim: true, read: projectPath, pick: (body) => body.name },
    { procedure: 'projects.update', rest: ['PATCH', projectPath], field: 'description', input: { id: project }, trim: false, read: projectPath, pick: (body) => body.description },
    { procedure: 'tasks.update', rest: ['PATCH', taskPath], field: 'title', input: { id: task }, trim: true, read: taskPath, pick: (body) => body.title },
    { procedure: 'tasks.update', rest: ['PATCH', taskPath], field: 'description', input: { id: task }, trim: false, read: taskPath, pick: (body) => body.description },
    { procedure: 'tasks.update', rest: ['PATCH', taskPath], field: 'description', input: { id: task }, trim: false, read: `${taskPath}/activity`, pick: (body) => body.find((event: { type: string }) => event.type.startsWith('task.'))?.resource.description },
    { procedure: 'comments.update', rest: ['PATCH', `${taskPath}/comments/${comment}`], field: 'text', input: { id: task, commentId: comment }, trim: true, read: `${taskPath}/comments/${comment}`, pick: (body) => body.text },
  ];
}

async function writeText(t: TestApp, token: string, target: TextField, via: 'rest' | 'trpc', value: string): Promise<TestResponse> {
  if (via === 'rest') {
    const body = Object.fromEntries(Object.entries({ ...target.input, [target.field]: value }).filter(([key]) => !['id', 'commentId'].includes(key)));
    return t.request(target.rest[0], target.rest[1], { token, body });
  }
  return t.request('POST', `/api/trpc/${target.procedure}`, { token, body: { ...target.input, [target.field]: value } });
}

/** No NUL check here: only whether every surrogate is paired (String.prototype.isWellFormed, Node 20). */
const isWellFormed = (value: string) => (value as unknown as { isWellFormed(): boolean }).isWellFormed();

// ── checks ────────────────────────────────────────────────────────────────────────────────
const ERROR_KEYS = new Set(['message', 'code', 'reason', 'issues']);

/** What is wrong with a REST answer, or undefined when it keeps the contract. */
function restViolation(response: TestResponse): string | undefined {
  const { status, body } = response;
  if (status >= 500) return `server error ${status}`;
  if (status < 400) return undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'error without a JSON object body';
  if (Object.keys(body).some((key) => !ERROR_KEYS.has(key))) return `unexpected keys ${Object.keys(body).join(',')}`;
  if (typeof body.message !== 'string' || body.message === '') return 'error without a message';
  if (body.code !== CODE_BY_STATUS[status]) return `code ${String(body.code)} does not match status ${status}`;
  if (status === 401 && response.headers['www-authenticate'] !== 'Bearer') return '401 without WWW-Authenticate: Bearer';
  return undefined;
}

function trpcViolation(response: TestResponse): string | undefined {
  const { status, body } = response;
  if (status >= 500) return `server error ${status}`;
  if (status < 400) return undefined;
  return isTrpcErrorBody(body, status) ? undefined : 'error not in the tRPC error envelope';
}

describe('fuzzing every route on both transports', () => {
  let t: TestApp;
  let fixture: Fixture;
  let restRoutes: RestRoute[];
  let snapshot: Record<string, string> | undefined;
  const tally = { requests: 0, refused: 0, byStatus: new Map<number, number>(), requestMs: 0, snapshotMs: 0 };

  beforeAll(async () => {
    t = await startTestApp();
    restRoutes = await discoverRestRoutes(t);
  });
  // Each test fuzzes a world of its own: the other's requests may have deleted the project, changed
  // a user's password or logged their token out.
  beforeEach(async () => {
    snapshot = undefined;
    const owner = await registerUser(t, 'Owner');
    const viewer = await registerUser(t, 'Viewer');
    const outsider = await registerUser(t, 'Outsider');
    const project = await createProject(t, owner);
    const membership = await invite(t, owner, project.id, viewer, 'VIEWER');
    const task = await createTask(t, owner, project.id, { assigneeId: owner.id });
    const comment = await t.request('POST', `/api/v1/tasks/${task.id}/comments`, { token: owner.token, body: { text: 'hello' } });
    fixture = {
      ids: { project: project.id, task: task.id, member: membership.id, comment: comment.body.id, user: owner.id },
      validAuthorizations: [`Bearer ${owner.token}`, `Bearer ${owner.token}`, `Bearer ${viewer.token}`, `Bearer ${outsider.token}`],
      refusedAuthorizations: Object.values(await unacceptableAuthorizations(owner.id)),
      bodyFields: [...new Set(restRoutes.flatMap((route) => route.bodyFields).concat('projectId', 'id', 'cursor', 'limit', 'taskId'))],
    };
  });
  afterAll(async () => {
    console.info(`fuzz: ${tally.requests} requests, ${tally.refused} refused; statuses ${JSON.stringify(Object.fromEntries(tally.byStatus))}; ${Math.round(tally.requestMs)} ms in requests, ${Math.round(tally.snapshotMs)} ms in snapshots`);
    await t.close();
  });

  /** Sends one request; a refused one must leave the database exactly as it was. */
  async function sendAndCheck(request: Request, violation: (response: TestResponse) => string | undefined) {
    let started = performance.now();
    snapshot ??= await databaseSnapshot(t);
    tally.snapshotMs += performance.now() - started;
    started = performance.now();
    const response = await t.request(request.method, request.url, {
      headers: request.headers,
      ...(request.rawBody !== undefined ? { rawBody: request.rawBody } : {}),
    });
    tally.requests += 1;
    tally.requestMs += performance.now() - started;
    tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1);
    const problem = violation(response);
    if (problem) throw new Error(`${problem}: ${request.method} ${request.url.slice(0, 300)} → ${response.status} ${JSON.stringify(response.body)?.slice(0, 500)}`);
    if (response.status >= 400) {
      tally.refused += 1;
      started = performance.now();
      expect(await databaseSnapshot(t), `database changed by refused ${request.method} ${request.url.slice(0, 200)}`).toEqual(snapshot);
      tally.snapshotMs += performance.now() - started;
    } else if (request.method !== 'GET') {
      snapshot = undefined;
    }
  }

  it(`REST: ${RUNS} generated requests over every route of the OpenAPI document`, async () => {
    expect(restRoutes.length).toBeGreaterThanOrEqual(15);
    const request = fc.constantFrom(...restRoutes).chain((route) => restRequest(fixture, route));
    await fc.assert(
      fc.asyncProperty(request, (generated) => sendAndCheck(generated, restViolation)),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
  }, 600_000);

  it(`text: ${TEXT_RUNS} Unicode edge cases in every text field on both transports, refused with a 400 naming the field or read back exactly`, async () => {
    const token = fixture.validAuthorizations[0]!.slice('Bearer '.length);
    const { project, task, comment } = fixture.ids as Record<'project' | 'task' | 'comment', string>;
    const field = fc.constantFrom(...textFields(project!, task!, comment!));
    const transport = fc.constantFrom('rest' as const, 'trpc' as const);
    await fc.assert(
      fc.asyncProperty(field, transport, unicodeText, async (target, via, value) => {
        const response = await writeText(t, token, target, via, value);
        tally.requests += 1;
        tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1);
        const expected = target.trim ? value.replace(/^\p{White_Space}+/u, '').replace(/\p{White_Space}+$/u, '') : value;
        const refusable = !isWellFormed(value) || value.includes('\u0000') || (target.trim && expected === '');
        const context = `${via} ${target.procedure}.${target.field} = ${JSON.stringify(value)} → ${response.status} ${JSON.stringify(response.body)?.slice(0, 300)}`;
        if (refusable) {
          expect(response.status, context).toBe(400);
          const issues = (response.body?.issues ?? response.body?.error?.data?.issues ?? []) as { path: unknown[] }[];
          expect(issues.map((issue) => issue.path[0]), context).toContain(target.field);
          return;
        }
        expect(response.status, context).toBeLessThan(300);
        const stored = await t.request('GET', target.read, { token });
        expect(stored.status, context).toBe(200);
        expect(target.pick(stored.body) === expected, `${context}; read back ${JSON.stringify(target.pick(stored.body))}`).toBe(true);
      }),
      { numRuns: TEXT_RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
  }, 600_000);

  it(`native tRPC: ${RUNS} generated requests over every procedure`, async () => {
    // A subscription streams rather than answers, as the REST walks leave out the event streams: a
    // generated call that happens to be valid would wait for events. Its refusals are tested in
    // events.test.ts and notifications.test.ts.
    const procedures = trpcProcedures().filter((procedure) => procedure.type !== 'subscription');
    expect(procedures.length).toBeGreaterThanOrEqual(15);
    const request = fc.constantFrom(...procedures).chain((procedure) => trpcRequest(fixture, procedure));
    await fc.assert(
      fc.asyncProperty(request, (generated) => sendAndCheck(generated, trpcViolation)),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
  }, 600_000);
});
