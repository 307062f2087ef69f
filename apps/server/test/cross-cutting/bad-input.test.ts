import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSnapshot, expectErrorBody, issueAt, queryRows } from '../support/checks';
import { createProject, createTask, invite, registerUser, startTestApp, type TestApp, type TestUser } from '../support/harness';

/**
 * Every endpoint refuses bad input with the documented status and error body
 * ({message, code, reason?, issues?} and nothing else), and the refused request writes nothing.
 */

interface World {
  t: TestApp;
  owner: TestUser;
  editor: TestUser;
  outsider: TestUser;
  /** Replaces the `:name` placeholders of routes and bodies (`:project`, `:task`, …). */
  values: Record<string, string>;
}

type Issue = string | { path: (string | number)[]; code?: string; message?: string };

interface Case {
  name: string;
  /** `METHOD /path` with `:placeholders`. */
  route: string;
  /** Sent as JSON; strings inside may hold `:placeholders`. */
  body?: unknown;
  /** Sent verbatim (no content type unless given in `headers`). */
  rawBody?: string;
  headers?: Record<string, string>;
  anonymous?: boolean;
  status: number;
  reason?: string;
  message?: string;
  /** The fields the error must name, in order; a string is a dotted path. */
  issues?: Issue[];
}

const long = (length: number) => 'x'.repeat(length);
const unknownField = (name: string): Issue => ({ path: [name], code: 'unrecognized_keys', message: `Unknown field "${name}"` });
const UNKNOWN_ID = '01935d2c-0000-7000-8000-000000000000';

/** The endpoints with a body, each with a body it accepts, and the names of its path parameters. */
const BODY_ENDPOINTS: { route: string; body: Record<string, unknown>; pathParameters: string[]; anonymous?: boolean }[] = [
  { route: 'POST /api/v1/auth/register', body: { name: 'New', email: 'new-user@example.com', password: 'secret-1' }, pathParameters: [], anonymous: true },
  { route: 'POST /api/v1/auth/login', body: { email: ':ownerEmail', password: 'password-123' }, pathParameters: [], anonymous: true },
  { route: 'POST /api/v1/projects', body: { name: 'Another' }, pathParameters: [] },
  { route: 'PATCH /api/v1/projects/:project', body: { name: 'Renamed' }, pathParameters: ['id'] },
  { route: 'POST /api/v1/projects/:project/members/invite', body: { email: ':outsiderEmail' }, pathParameters: ['id'] },
  { route: 'PATCH /api/v1/projects/:project/members/:member/role', body: { role: 'ADMIN' }, pathParameters: ['id', 'memberId'] },
  { route: 'POST /api/v1/tasks', body: { title: 'Another', projectId: ':project' }, pathParameters: [] },
  { route: 'PATCH /api/v1/tasks/:task', body: { title: 'Retitled' }, pathParameters: ['id'] },
  { route: 'POST /api/v1/tasks/:task/comments', body: { text: 'Hello' }, pathParameters: ['id'] },
];

const MALFORMED_JSON = { status: 400, reason: 'MALFORMED_JSON' };
const UNSUPPORTED = { status: 415, message: 'Unsupported content type: send application/json' };
const NOT_AN_OBJECT = { status: 400, issues: [{ path: [], code: 'invalid_type', message: 'The body must be a JSON object' }] };

/** What every endpoint with a body must refuse, whatever its fields. */
const bodyCases: Case[] = BODY_ENDPOINTS.flatMap(({ route, body, pathParameters, anonymous }) => {
  const json = JSON.stringify(body);
  const jsonType = { 'content-type': 'application/json' };
  const cases: Omit<Case, 'route' | 'anonymous'>[] = [
    { name: 'an unknown field', body: { ...body, surprise: true }, status: 400, issues: [unknownField('surprise')] },
    ...pathParameters.map((parameter) => ({
      name: `a body field named like the path parameter "${parameter}"`,
      body: { ...body, [parameter]: UNKNOWN_ID },
      status: 400,
      issues: [unknownField(parameter)],
    })),
    { name: 'malformed JSON', rawBody: json.slice(0, -3), headers: jsonType, ...MALFORMED_JSON },
    { name: 'an empty JSON body', rawBody: '', headers: jsonType, ...MALFORMED_JSON },
    // Prototype poisoning: refused before it reaches any handler (nor tRPC's object spreads).
    { name: 'a "__proto__" key', rawBody: `{"__proto__":{"polluted":true},${json.slice(1)}`, headers: jsonType, ...MALFORMED_JSON },
    { name: 'a "constructor.prototype" key', rawBody: `{"constructor":{"prototype":{"polluted":true}},${json.slice(1)}`, headers: jsonType, ...MALFORMED_JSON },
    { name: 'a JSON array', rawBody: `[${json}]`, headers: jsonType, ...NOT_AN_OBJECT },
    { name: 'a JSON string', rawBody: '"text"', headers: jsonType, ...NOT_AN_OBJECT },
    { name: 'JSON null', rawBody: 'null', headers: jsonType, ...NOT_AN_OBJECT },
    { name: 'content type text/plain', rawBody: json, headers: { 'content-type': 'text/plain' }, ...UNSUPPORTED },
    { name: 'content type application/xml', rawBody: '<task/>', headers: { 'content-type': 'application/xml' }, ...UNSUPPORTED },
    { name: 'no content type', rawBody: json, ...UNSUPPORTED },
    {
      name: 'a body over 1 MiB',
      rawBody: JSON.stringify({ ...body, padding: long(1024 * 1024) }),
      headers: jsonType,
      status: 413,
      message: 'The request body exceeds 1 MiB',
    },
  ];
  return cases.map((item) => ({ ...item, route, anonymous }));
});

const registerBody = { name: 'Ada', email: 'ada-new@example.com', password: 'secret-1' };
const taskBody = { title: 'Task', projectId: ':project' };

const fieldCases: Case[] = [
  // register
  { name: 'no fields', route: 'POST /api/v1/auth/register', anonymous: true, body: {}, status: 400, issues: ['name', 'email', 'password'] },
  { name: 'wrong types', route: 'POST /api/v1/auth/register', anonymous: true, body: { name: 7, email: true, password: 123456 }, status: 400, issues: ['name', 'email', 'password'] },
  { name: 'a blank name', route: 'POST /api/v1/auth/register', anonymous: true, body: { ...registerBody, name: '   ' }, status: 400, issues: ['name'] },
  { name: 'a name over 200 characters', route: 'POST /api/v1/auth/register', anonymous: true, body: { ...registerBody, name: long(201) }, status: 400, issues: ['name'] },
  { name: 'an invalid email', route: 'POST /api/v1/auth/register', anonymous: true, body: { ...registerBody, email: 'ada-at-example.com' }, status: 400, issues: ['email'] },
  { name: 'an empty email', route: 'POST /api/v1/auth/register', anonymous: true, body: { ...registerBody, email: '' }, status: 400, issues: ['email'] },
  { name: 'an email over 254 characters', route: 'POST /api/v1/auth/register', anonymous: true, body: { ...registerBody, email: `${long(250)}@example.com` }, status: 400, issues: ['email'] },
  { name: 'a password of 5 characters', route: 'POST /api/v1/auth/register', anonymous: true, body: { ...registerBody, password: '12345' }, status: 400, issues: ['password'] },
  { name: 'a password of 73 ASCII bytes', route: 'POST /api/v1/auth/register', anonymous: true, body: { ...registerBody, password: long(73) }, status: 400, issues: ['password'] },
  { name: 'a password of 37 characters but 74 UTF-8 bytes', route: 'POST /api/v1/auth/register', anonymous: true, body: { ...registerBody, password: 'é'.repeat(37) }, status: 400, issues: ['password'] },
  { name: 'a registered email (any case, padded)', route: 'POST /api/v1/auth/register', anonymous: true, body: { ...registerBody, email: ' :ownerEmailUpper ' }, status: 409, reason: 'EMAIL_TAKEN' },
  // login
  { name: 'no fields', route: 'POST /api/v1/auth/login', anonymous: true, body: {}, status: 400, issues: ['email', 'password'] },
  { name: 'an empty password', route: 'POST /api/v1/auth/login', anonymous: true, body: { email: ':ownerEmail', password: '' }, status: 400, issues: ['password'] },
  { name: 'a password that is a number', route: 'POST /api/v1/auth/login', anonymous: true, body: { email: ':ownerEmail', password: 123456 }, status: 400, issues: ['password'] },
  { name: 'an invalid email', route: 'POST /api/v1/auth/login', anonymous: true, body: { email: 'nope', password: 'password-123' }, status: 400, issues: ['email'] },
  // projects
  { name: 'no name', route: 'POST /api/v1/projects', body: { description: 'x' }, status: 400, issues: ['name'] },
  { name: 'a NUL character in the name', route: 'POST /api/v1/projects', body: { name: 'a\u0000b' }, status: 400, issues: ['name'] },
  { name: 'an empty name', route: 'POST /api/v1/projects', body: { name: '' }, status: 400, issues: ['name'] },
  { name: 'a name that is a number', route: 'POST /api/v1/projects', body: { name: 42 }, status: 400, issues: ['name'] },
  { name: 'a name over 200 characters', route: 'POST /api/v1/projects', body: { name: long(201) }, status: 400, issues: ['name'] },
  { name: 'a description over 10 000 characters', route: 'POST /api/v1/projects', body: { name: 'P', description: long(10_001) }, status: 400, issues: ['description'] },
  { name: 'a null description', route: 'POST /api/v1/projects', body: { name: 'P', description: null }, status: 400, issues: ['description'] },
  { name: 'an ownerId', route: 'POST /api/v1/projects', body: { name: 'P', ownerId: ':outsiderId' }, status: 400, issues: [unknownField('ownerId')] },
  { name: 'a blank name', route: 'PATCH /api/v1/projects/:project', body: { name: '  ' }, status: 400, issues: ['name'] },
  { name: 'a null name', route: 'PATCH /api/v1/projects/:project', body: { name: null }, status: 400, issues: ['name'] },
  { name: 'a name over 200 characters', route: 'PATCH /api/v1/projects/:project', body: { name: long(201) }, status: 400, issues: ['name'] },
  { name: 'a description over 10 000 characters', route: 'PATCH /api/v1/projects/:project', body: { description: long(10_001) }, status: 400, issues: ['description'] },
  { name: 'an ownerId', route: 'PATCH /api/v1/projects/:project', body: { ownerId: ':outsiderId' }, status: 400, issues: [unknownField('ownerId')] },
  { name: 'a malformed id', route: 'PATCH /api/v1/projects/not-an-id', body: { name: 'x' }, status: 404, message: 'Project not found' },
  { name: 'an unknown id', route: `PATCH /api/v1/projects/${UNKNOWN_ID}`, body: { name: 'x' }, status: 404, message: 'Project not found' },
  { name: 'a malformed id', route: 'GET /api/v1/projects/not-an-id', status: 404, message: 'Project not found' },
  { name: 'an id whose percent-encoding is not UTF-8 (an unpaired surrogate)', route: 'GET /api/v1/projects/%ED%A0%80', status: 404, message: 'Not found: the path is not valid percent-encoded UTF-8' },
  { name: 'an id whose percent-encoding is not UTF-8', route: 'PATCH /api/v1/tasks/%FF%FE', body: { title: 'x' }, status: 404, message: 'Not found: the path is not valid percent-encoded UTF-8' },
  { name: 'an id over 200 characters', route: 'GET /api/v1/projects/:longId', status: 404, message: 'Project not found' },
  { name: 'a malformed id', route: 'DELETE /api/v1/projects/not-an-id', status: 404, message: 'Project not found' },
  { name: 'an unknown id', route: `DELETE /api/v1/projects/${UNKNOWN_ID}`, status: 404, message: 'Project not found' },
  // members
  { name: 'no email', route: 'POST /api/v1/projects/:project/members/invite', body: { role: 'EDITOR' }, status: 400, issues: ['email'] },
  { name: 'an invalid email', route: 'POST /api/v1/projects/:project/members/invite', body: { email: 'grace' }, status: 400, issues: ['email'] },
  { name: 'role OWNER', route: 'POST /api/v1/projects/:project/members/invite', body: { email: ':outsiderEmail', role: 'OWNER' }, status: 400, issues: ['role'] },
  { name: 'a lower-case role', route: 'POST /api/v1/projects/:project/members/invite', body: { email: ':outsiderEmail', role: 'editor' }, status: 400, issues: ['role'] },
  { name: 'a malformed invitation token', route: 'POST /api/v1/invitations/not-a-token/accept', body: {}, status: 404, reason: 'INVITATION_INVALID' },
  { name: 'a member', route: 'POST /api/v1/projects/:project/members/invite', body: { email: ':editorEmail', role: 'ADMIN' }, status: 409, reason: 'ALREADY_MEMBER' },
  { name: 'the owner (upper case)', route: 'POST /api/v1/projects/:project/members/invite', body: { email: ':ownerEmailUpper' }, status: 409, reason: 'ALREADY_MEMBER' },
  { name: 'a malformed project id', route: 'POST /api/v1/projects/not-an-id/members/invite', body: { email: ':outsiderEmail' }, status: 404, message: 'Project not found' },
  { name: 'no role', route: 'PATCH /api/v1/projects/:project/members/:member/role', body: {}, status: 400, issues: ['role'] },
  { name: 'a null role', route: 'PATCH /api/v1/projects/:project/members/:member/role', body: { role: null }, status: 400, issues: ['role'] },
  { name: 'role OWNER', route: 'PATCH /api/v1/projects/:project/members/:member/role', body: { role: 'OWNER' }, status: 400, issues: ['role'] },
  { name: "the owner's membership", route: 'PATCH /api/v1/projects/:project/members/:ownerMember/role', body: { role: 'VIEWER' }, status: 409, reason: 'OWNER_IMMUTABLE' },
  { name: 'a malformed member id', route: 'PATCH /api/v1/projects/:project/members/not-an-id/role', body: { role: 'VIEWER' }, status: 404, message: 'Member not found' },
  { name: 'a member of another project', route: 'PATCH /api/v1/projects/:project/members/:foreignMember/role', body: { role: 'VIEWER' }, status: 404, message: 'Member not found' },
  { name: 'a malformed project id', route: 'PATCH /api/v1/projects/not-an-id/members/:member/role', body: { role: 'VIEWER' }, status: 404, message: 'Project not found' },
  // tasks
  { name: 'no fields', route: 'POST /api/v1/tasks', body: {}, status: 400, issues: ['title', 'projectId'] },
  { name: 'an empty title', route: 'POST /api/v1/tasks', body: { ...taskBody, title: '' }, status: 400, issues: ['title'] },
  { name: 'a title that is a number', route: 'POST /api/v1/tasks', body: { ...taskBody, title: 1 }, status: 400, issues: ['title'] },
  { name: 'a title over 500 characters', route: 'POST /api/v1/tasks', body: { ...taskBody, title: long(501) }, status: 400, issues: ['title'] },
  { name: 'a description over 50 000 characters', route: 'POST /api/v1/tasks', body: { ...taskBody, description: long(50_001) }, status: 400, issues: ['description'] },
  // A status is a state key (UPPER_SNAKE): another shape is refused here; a key of no state of the project (UNKNOWN_STATE) in states.test.ts.
  { name: 'status open', route: 'POST /api/v1/tasks', body: { ...taskBody, status: 'open' }, status: 400, issues: ['status'] },
  { name: 'priority CRITICAL', route: 'POST /api/v1/tasks', body: { ...taskBody, priority: 'CRITICAL' }, status: 400, issues: ['priority'] },
  { name: 'a due date that is not a date', route: 'POST /api/v1/tasks', body: { ...taskBody, dueDate: 'tomorrow' }, status: 400, issues: ['dueDate'] },
  { name: 'a due date without a time', route: 'POST /api/v1/tasks', body: { ...taskBody, dueDate: '2026-12-01' }, status: 400, issues: ['dueDate'] },
  { name: 'February 30th', route: 'POST /api/v1/tasks', body: { ...taskBody, dueDate: '2026-02-30T12:00:00Z' }, status: 400, issues: ['dueDate'] },
  { name: 'a numeric due date', route: 'POST /api/v1/tasks', body: { ...taskBody, dueDate: 1_790_000_000_000 }, status: 400, issues: ['dueDate'] },
  { name: 'an assignee who is not a member', route: 'POST /api/v1/tasks', body: { ...taskBody, assigneeId: ':outsiderId' }, status: 400, reason: 'ASSIGNEE_NOT_MEMBER' },
  { name: 'the year 0', route: 'POST /api/v1/tasks', body: { ...taskBody, dueDate: '0000-01-01T00:00:00Z' }, status: 400, issues: ['dueDate'] },
  { name: 'a date past 9999 in UTC', route: 'POST /api/v1/tasks', body: { ...taskBody, dueDate: '9999-12-31T23:00:00-14:00' }, status: 400, issues: ['dueDate'] },
  { name: 'a NUL character in the title', route: 'POST /api/v1/tasks', body: { ...taskBody, title: 'before\u0000after' }, status: 400, issues: ['title'] },
  // A recurrence over 500 characters is the schema's; a rule the server refuses (INVALID_RECURRENCE, RECURRENCE_NEEDS_DUE_DATE) in recurrence.test.ts.
  { name: 'a recurrence over 500 characters', route: 'POST /api/v1/tasks', body: { ...taskBody, dueDate: '2026-12-01T12:00:00Z', recurrence: `FREQ=DAILY;${'BYMONTH=1;'.repeat(50)}` }, status: 400, issues: ['recurrence'] },
  { name: 'a NUL character in the description', route: 'POST /api/v1/tasks', body: { ...taskBody, description: '\u0000' }, status: 400, issues: ['description'] },
  { name: 'a malformed assignee id', route: 'POST /api/v1/tasks', body: { ...taskBody, assigneeId: 'someone' }, status: 400, reason: 'ASSIGNEE_NOT_MEMBER' },
  { name: 'a malformed project id', route: 'POST /api/v1/tasks', body: { ...taskBody, projectId: 'not-an-id' }, status: 404, message: 'Project not found' },
  { name: 'an unknown project id', route: 'POST /api/v1/tasks', body: { ...taskBody, projectId: UNKNOWN_ID }, status: 404, message: 'Project not found' },
  { name: 'an empty title', route: 'PATCH /api/v1/tasks/:task', body: { title: '' }, status: 400, issues: ['title'] },
  { name: 'a null title', route: 'PATCH /api/v1/tasks/:task', body: { title: null }, status: 400, issues: ['title'] },
  { name: 'a lower-case status', route: 'PATCH /api/v1/tasks/:task', body: { status: 'done' }, status: 400, issues: ['status'] },
  { name: 'a null priority', route: 'PATCH /api/v1/tasks/:task', body: { priority: null }, status: 400, issues: ['priority'] },
  { name: 'a bad due date', route: 'PATCH /api/v1/tasks/:task', body: { dueDate: '2026-13-01T00:00:00Z' }, status: 400, issues: ['dueDate'] },
  { name: 'a numeric recurrence', route: 'PATCH /api/v1/tasks/:task', body: { recurrence: 7 }, status: 400, issues: ['recurrence'] },
  { name: 'a NUL character in the title', route: 'PATCH /api/v1/tasks/:task', body: { title: 'a\u0000b' }, status: 400, issues: ['title'] },
  { name: 'the year 0', route: 'PATCH /api/v1/tasks/:task', body: { dueDate: '0000-06-01T00:00:00Z' }, status: 400, issues: ['dueDate'] },
  { name: 'an assignee who is not a member', route: 'PATCH /api/v1/tasks/:task', body: { assigneeId: ':outsiderId' }, status: 400, reason: 'ASSIGNEE_NOT_MEMBER' },
  { name: 'a projectId (tasks do not move)', route: 'PATCH /api/v1/tasks/:task', body: { projectId: ':otherProject' }, status: 400, issues: [unknownField('projectId')] },
  { name: 'several bad fields at once', route: 'PATCH /api/v1/tasks/:task', body: { title: '', status: 'nope', extra: 1 }, status: 400, issues: ['title', 'status', unknownField('extra')] },
  { name: 'a malformed id', route: 'PATCH /api/v1/tasks/not-an-id', body: { title: 'x' }, status: 404, message: 'Task not found' },
  { name: 'a malformed id', route: 'GET /api/v1/tasks/not-an-id', status: 404, message: 'Task not found' },
  { name: 'an unknown id', route: `GET /api/v1/tasks/${UNKNOWN_ID}`, status: 404, message: 'Task not found' },
  { name: 'a malformed id', route: 'DELETE /api/v1/tasks/not-an-id', status: 404, message: 'Task not found' },
  { name: 'an unknown id', route: `DELETE /api/v1/tasks/${UNKNOWN_ID}`, status: 404, message: 'Task not found' },
  // comments
  { name: 'no text', route: 'POST /api/v1/tasks/:task/comments', body: {}, status: 400, issues: ['text'] },
  { name: 'blank text', route: 'POST /api/v1/tasks/:task/comments', body: { text: ' \n ' }, status: 400, issues: ['text'] },
  { name: 'a NUL character', route: 'POST /api/v1/tasks/:task/comments', body: { text: 'a\u0000b' }, status: 400, issues: ['text'] },
  { name: 'text that is a number', route: 'POST /api/v1/tasks/:task/comments', body: { text: 5 }, status: 400, issues: ['text'] },
  { name: 'text over 20 000 characters', route: 'POST /api/v1/tasks/:task/comments', body: { text: long(20_001) }, status: 400, issues: ['text'] },
  { name: 'an authorId', route: 'POST /api/v1/tasks/:task/comments', body: { text: 'hi', authorId: ':outsiderId' }, status: 400, issues: [unknownField('authorId')] },
  { name: 'an attachment that is no attachment of the task', route: 'POST /api/v1/tasks/:task/comments', body: { text: 'hi', attachmentIds: [UNKNOWN_ID] }, status: 400, reason: 'ATTACHMENT_NOT_IN_TASK' },
  { name: 'a malformed attachment id', route: 'POST /api/v1/tasks/:task/comments', body: { text: 'hi', attachmentIds: ['file.png'] }, status: 400, reason: 'ATTACHMENT_NOT_IN_TASK' },
  { name: 'an attachment named twice', route: 'POST /api/v1/tasks/:task/comments', body: { text: 'hi', attachmentIds: [UNKNOWN_ID, UNKNOWN_ID] }, status: 400, issues: ['attachmentIds'] },
  { name: 'more than 50 attachments', route: 'POST /api/v1/tasks/:task/comments', body: { text: 'hi', attachmentIds: Array.from({ length: 51 }, (_, index) => `01935d2c-0000-7000-8000-${String(index).padStart(12, '0')}`) }, status: 400, issues: ['attachmentIds'] },
  { name: 'a malformed task id', route: 'POST /api/v1/tasks/not-an-id/comments', body: { text: 'hi' }, status: 404, message: 'Task not found' },
  { name: 'an unknown task id', route: `POST /api/v1/tasks/${UNKNOWN_ID}/comments`, body: { text: 'hi' }, status: 404, message: 'Task not found' },
];

/** Query parameters: every list, with each kind of bad value. */
const TASK_LISTS = ['GET /api/v1/tasks/project/:project', 'GET /api/v1/tasks'];
const LISTS = ['GET /api/v1/projects', ...TASK_LISTS, 'GET /api/v1/projects/:project/activity', 'GET /api/v1/tasks/:task/activity'];
const queryCases: Case[] = [
  ...LISTS.flatMap((list) => [
    { name: 'limit=0', route: `${list}?limit=0`, status: 400, issues: ['limit'] },
    { name: 'limit=501', route: `${list}?limit=501`, status: 400, issues: ['limit'] },
    { name: 'limit=-1', route: `${list}?limit=-1`, status: 400, issues: ['limit'] },
    { name: 'limit=abc', route: `${list}?limit=abc`, status: 400, issues: ['limit'] },
    { name: 'limit=2.5', route: `${list}?limit=2.5`, status: 400, issues: ['limit'] },
    { name: 'limit twice', route: `${list}?limit=1&limit=2`, status: 400, issues: ['limit'] },
    { name: 'a cursor that is not one', route: `${list}?cursor=bogus`, status: 400, reason: 'INVALID_CURSOR' },
    { name: 'a cursor of the wrong shape', route: `${list}?cursor=${Buffer.from('{"a":1}').toString('base64url')}`, status: 400, reason: 'INVALID_CURSOR' },
    { name: 'an unknown parameter', route: `${list}?colour=red`, status: 400, issues: [unknownField('colour')] },
  ]),
  ...TASK_LISTS.flatMap((list) => [
    { name: 'status=open', route: `${list}?status=open`, status: 400, issues: [{ path: ['status', 0] }] },
    { name: 'a status list with one bad value', route: `${list}?status=TODO,DONE,nope`, status: 400, issues: [{ path: ['status', 2] }] },
    { name: 'priority=CRITICAL', route: `${list}?priority=CRITICAL`, status: 400, issues: [{ path: ['priority', 0] }] },
    { name: 'sort=size', route: `${list}?sort=size`, status: 400, issues: ['sort'] },
    { name: 'dueBefore=tomorrow', route: `${list}?dueBefore=tomorrow`, status: 400, issues: ['dueBefore'] },
    { name: 'dueAfter=2026-02-30T00:00:00Z', route: `${list}?dueAfter=2026-02-30T00:00:00Z`, status: 400, issues: ['dueAfter'] },
    { name: 'assigneeId=someone', route: `${list}?assigneeId=someone`, status: 400, issues: ['assigneeId'] },
    { name: 'a NUL character in q', route: `${list}?q=a%00b`, status: 400, issues: ['q'] },
  ]),
  { name: 'a projectId query next to the path one', route: 'GET /api/v1/tasks/project/:project?projectId=:otherProject', status: 400, issues: [unknownField('projectId')] },
  { name: 'an id query next to the path one', route: 'GET /api/v1/projects/:project?id=:otherProject', status: 400, issues: [unknownField('id')] },
  { name: 'a malformed project id', route: 'GET /api/v1/tasks/project/not-an-id', status: 404, message: 'Project not found' },
  { name: 'a malformed project id', route: 'GET /api/v1/projects/not-an-id/activity', status: 404, message: 'Project not found' },
  { name: 'an unknown task id', route: `GET /api/v1/tasks/${UNKNOWN_ID}/activity`, status: 404, message: 'Task not found' },
  { name: 'an id query next to the path one', route: 'GET /api/v1/tasks/:task/activity?id=:otherProject', status: 400, issues: [unknownField('id')] },
  { name: 'an unknown parameter', route: 'GET /api/v1/auth/me?verbose=1', status: 400, issues: [unknownField('verbose')] },
];

const expectedIssue = (issue: Issue) =>
  typeof issue === 'string' ? issueAt(issue.split('.')) : { message: expect.any(String), code: expect.any(String), ...issue };

/** An owner's project with an EDITOR member and a task, and a project of an outsider's where the editor is a VIEWER. */
async function makeWorld(t: TestApp): Promise<World> {
  const owner = await registerUser(t, 'Owner');
  const editor = await registerUser(t, 'Editor');
  const outsider = await registerUser(t, 'Outsider');
  const project = await createProject(t, owner, 'Bad input');
  const member = await invite(t, owner, project.id, editor, 'EDITOR');
  const task = await createTask(t, owner, project.id);
  const otherProject = await createProject(t, outsider, 'Elsewhere');
  const foreignMember = await invite(t, outsider, otherProject.id, editor, 'VIEWER');
  const [ownerMember] = await queryRows<{ id: string }>(
    t,
    `select id from memberships where project_id = '${project.id}' and user_id = '${owner.id}'`,
  );
  return {
    t,
    owner,
    editor,
    outsider,
    values: {
      project: project.id,
      otherProject: otherProject.id,
      task: task.id,
      member: member.id,
      foreignMember: foreignMember.id,
      ownerMember: ownerMember!.id,
      ownerEmail: owner.email,
      ownerEmailUpper: owner.email.toUpperCase(),
      editorEmail: editor.email,
      outsiderEmail: outsider.email,
      outsiderId: outsider.id,
      longId: long(201),
    },
  };
}

describe('bad input on every endpoint: the documented error, nothing written', () => {
  const world = {} as World;

  // The refusal cases share one world: each asserts that it wrote nothing. The tests that write make their own.
  const fill = (text: string, within = world) => text.replace(/:([a-zA-Z]+)/g, (match, name: string) => within.values[name] ?? match);
  const fillBody = (body: unknown, within = world): unknown => JSON.parse(fill(JSON.stringify(body), within));

  beforeAll(async () => {
    Object.assign(world, await makeWorld(await startTestApp()));
  });
  afterAll(() => world.t.close());

  for (const testCase of [...bodyCases, ...fieldCases, ...queryCases]) {
    it(`${testCase.route} with ${testCase.name} → ${testCase.status}`, async () => {
      const { t, owner } = world;
      const [method, path] = testCase.route.split(' ') as [string, string];
      const before = await databaseSnapshot(t);
      const response = await t.request(method, fill(path), {
        ...(testCase.anonymous ? {} : { token: owner.token }),
        ...(testCase.rawBody !== undefined ? { rawBody: fill(testCase.rawBody) } : {}),
        ...(testCase.body !== undefined ? { body: fillBody(testCase.body) } : {}),
        headers: testCase.headers ?? {},
      });
      expectErrorBody(response, testCase.status, {
        ...(testCase.message ? { message: testCase.message } : {}),
        ...(testCase.reason ? { reason: testCase.reason } : {}),
        ...(testCase.issues ? { issues: testCase.issues.map(expectedIssue) } : {}),
      });
      if (testCase.issues) expect(response.body.message).toMatch(/^Invalid input: /);
      expect(await databaseSnapshot(t)).toEqual(before);
    });
  }

  it('login refuses a password over 72 bytes even when its first 72 bytes are right (bcrypt reads no further)', async () => {
    const { t } = world;
    const password = 'p'.repeat(72);
    const email = 'seventy-two@example.com';
    expect((await t.request('POST', '/api/v1/auth/register', { body: { name: 'Long', email, password } })).status).toBe(201);
    expect((await t.request('POST', '/api/v1/auth/login', { body: { email, password } })).status).toBe(200);
    const before = await databaseSnapshot(t);
    const response = await t.request('POST', '/api/v1/auth/login', { body: { email, password: `${password}-and-more` } });
    expectErrorBody(response, 400, { issues: [expectedIssue('password')] });
    expect(await databaseSnapshot(t)).toEqual(before);
  });

  it('every body the cases above spoil is accepted as it is (so each refusal is about the spoiled part)', async () => {
    const own = await makeWorld(world.t);
    const { t, owner } = own;
    for (const { route, body, anonymous } of BODY_ENDPOINTS) {
      const [method, path] = route.split(' ') as [string, string];
      const response = await t.request(method, fill(path, own), { ...(anonymous ? {} : { token: owner.token }), body: fillBody(body, own) });
      expect({ route, status: response.status }).toEqual({ route, status: method === 'POST' && !route.endsWith('/login') ? 201 : 200 });
    }
  });
});
