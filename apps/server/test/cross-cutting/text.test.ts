import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseSnapshot, expectErrorBody, issueAt } from '../support/checks';
import { createProject, createTask, registerUser, startTestApp, type TestApp, type TestResponse, type TestUser } from '../support/harness';
import { isTrpcErrorBody } from '../support/transport';
import { UNSTORABLE_TEXT_MESSAGE } from '@tasklane/schemas';

/**
 * The text rule (docs/api.md, "Text"), for every text field on both transports: a string holding
 * U+0000 or an unpaired surrogate is refused with a 400 naming the field and writes nothing; any
 * other is stored exactly and reads back identical (PGlite and PostgreSQL alike), U+FEFF at the
 * start included; lengths count code points.
 */

/** Accepted as sent, each with something other than white space at both ends. */
const KEPT: Record<string, string> = {
  'a byte order mark first': '\uFEFFstarts with a BOM',
  'a byte order mark alone after trimming': '\uFEFF',
  noncharacters: 'x\uFFFE\uFFFFy\u{10FFFF}z',
  'combining marks': 'e\u0301 n\u0303 \u0915\u094D\u0937',
  'right-to-left marks and overrides': '\u202Eabc\u202C \u200Fשלום\u200E',
  'emoji sequences and astral letters': '👩‍👩‍👧 🏳️‍🌈 𝔘𝔫𝔦 🙂',
  'CRLF, tabs and line separators inside': 'a\r\nb\tc\u2028d\u0085e',
  'zero-width characters': 'a\u200Bb\u200Dc\u2060d',
  'a replacement character sent as such': 'a\uFFFDb',
};

/** Refused: PostgreSQL cannot hold a NUL, and UTF-8 cannot encode an unpaired surrogate. */
const REFUSED: Record<string, string> = {
  'a NUL': 'a\u0000b',
  'only a NUL': '\u0000',
  'a lone high surrogate': 'a\uD800b',
  'a lone high surrogate at the end': 'ab\uDBFF',
  'a lone low surrogate': 'a\uDC00b',
  'a pair in the wrong order': 'a\uDE00\uD83Db',
  'two high surrogates': '\uD83D\uD83D',
};

type Transport = 'rest' | 'trpc';

interface Field {
  name: string;
  /** The field's name in the error's issues. */
  field: string;
  /** Writes `value` into the field; answers with the stored value on success. */
  write: (transport: Transport, value: string) => Promise<TestResponse>;
  /** The stored value, read again. */
  read?: () => Promise<unknown[]>;
  /** Leading and trailing white space is removed. */
  trimmed?: boolean;
  /** Only refusals are checked (the field must hold something else, as an email or a password). */
  refuseOnly?: boolean;
}

let t: TestApp;
let owner: TestUser;
let projectId: string;
let taskId: string;
let commentId: string;
let webhookProjectId: string;
let webhookId: string;
let counter = 0;
const unique = () => `${Date.now()}-${(counter += 1)}`;

/** The call through either transport: REST at /api/v1, or the procedure at /api/trpc. */
async function call(transport: Transport, rest: [string, string], procedure: string, input: Record<string, unknown>, token?: string) {
  if (transport === 'rest') {
    const [method, path] = rest;
    const body = Object.fromEntries(Object.entries(input).filter(([key]) => !path.includes(`{${key}}`)));
    const url = `/api/v1${path.replace(/\{(\w+)\}/g, (_match, key: string) => String(input[key]))}`;
    return t.request(method, url, { ...(token ? { token } : {}), body });
  }
  const response = await t.request('POST', `/api/trpc/${procedure}`, { ...(token ? { token } : {}), body: input });
  return response.status < 300 ? { ...response, body: (response.body as { result: { data: unknown } }).result.data } : response;
}

const get = async (url: string) => {
  const response = await t.request('GET', url, { token: owner.token });
  expect(response.status, url).toBe(200);
  return response.body;
};

const FIELDS: Field[] = [
  {
    name: 'the name on register',
    field: 'name',
    trimmed: true,
    write: async (transport, name) => {
      const response = await call(transport, ['POST', '/auth/register'], 'auth.register', { name, email: `text-${unique()}@example.com`, password: 'password-123' });
      if (response.status >= 300) return response;
      const me = await t.request('GET', '/api/v1/auth/me', { token: response.body.access_token });
      return { ...response, body: { ...response.body, stored: [response.body.user.name, me.body.name] } };
    },
  },
  {
    name: 'the account name',
    field: 'name',
    trimmed: true,
    write: (transport, name) => call(transport, ['PATCH', '/auth/me'], 'auth.updateMe', { name }, owner.token),
    read: async () => [(await get('/api/v1/auth/me')).name],
  },
  {
    name: 'a project name',
    field: 'name',
    trimmed: true,
    write: (transport, name) => call(transport, ['PATCH', '/projects/{id}'], 'projects.update', { id: projectId, name }, owner.token),
    read: async () => [(await get(`/api/v1/projects/${projectId}`)).name, (await get(`/api/v1/projects/${projectId}/activity?limit=1`))[0].resource.name],
  },
  {
    name: 'a new project’s description',
    field: 'description',
    write: async (transport, description) => {
      const response = await call(transport, ['POST', '/projects'], 'projects.create', { name: 'Described', description }, owner.token);
      if (response.status >= 300) return response;
      return { ...response, body: { ...response.body, stored: [response.body.description, (await get(`/api/v1/projects/${response.body.id}`)).description] } };
    },
  },
  {
    name: 'a project description',
    field: 'description',
    write: (transport, description) => call(transport, ['PATCH', '/projects/{id}'], 'projects.update', { id: projectId, description }, owner.token),
    read: async () => [(await get(`/api/v1/projects/${projectId}`)).description],
  },
  {
    name: 'a new task’s title',
    field: 'title',
    trimmed: true,
    write: async (transport, title) => {
      const response = await call(transport, ['POST', '/tasks'], 'tasks.create', { projectId, title }, owner.token);
      if (response.status >= 300) return response;
      return { ...response, body: { ...response.body, stored: [response.body.title, (await get(`/api/v1/tasks/${response.body.id}`)).title] } };
    },
  },
  {
    name: 'a task title',
    field: 'title',
    trimmed: true,
    write: (transport, title) => call(transport, ['PATCH', '/tasks/{id}'], 'tasks.update', { id: taskId, title }, owner.token),
    read: async () => [(await get(`/api/v1/tasks/${taskId}`)).title, (await get(`/api/v1/tasks/${taskId}/activity?limit=1`))[0].resource.title],
  },
  {
    name: 'a task description',
    field: 'description',
    write: (transport, description) => call(transport, ['PATCH', '/tasks/{id}'], 'tasks.update', { id: taskId, description }, owner.token),
    read: async () => [(await get(`/api/v1/tasks/${taskId}`)).description, (await get(`/api/v1/tasks/${taskId}/activity?limit=1`))[0].changes.description.new],
  },
  {
    name: 'a new comment',
    field: 'text',
    trimmed: true,
    write: async (transport, text) => {
      const response = await call(transport, ['POST', '/tasks/{id}/comments'], 'comments.create', { id: taskId, text }, owner.token);
      if (response.status >= 300) return response;
      return { ...response, body: { ...response.body, stored: [response.body.text, (await get(`/api/v1/tasks/${taskId}/comments/${response.body.id}`)).text] } };
    },
  },
  {
    name: 'an edited comment',
    field: 'text',
    trimmed: true,
    write: (transport, text) => call(transport, ['PATCH', '/tasks/{id}/comments/{commentId}'], 'comments.update', { id: taskId, commentId, text }, owner.token),
    read: async () => [(await get(`/api/v1/tasks/${taskId}/comments/${commentId}`)).text],
  },
  {
    name: 'a personal access token’s name',
    field: 'name',
    trimmed: true,
    write: async (transport, name) => {
      const response = await call(transport, ['POST', '/auth/tokens'], 'auth.tokens.create', { name, scopes: ['read'] }, owner.token);
      if (response.status >= 300) return response;
      const listed = (await get('/api/v1/auth/tokens?limit=500')) as { id: string; name: string }[];
      return { ...response, body: { ...response.body, stored: [response.body.name, listed.find((token) => token.id === response.body.id)?.name] } };
    },
  },
  {
    name: 'a webhook URL',
    field: 'url',
    write: (transport, text) => call(transport, ['PATCH', '/projects/{id}/webhooks/{webhookId}'], 'webhooks.update', { id: webhookProjectId, webhookId, url: `https://hooks.example.com/${text}` }, owner.token),
    refuseOnly: true,
  },
  {
    name: 'the search text q',
    field: 'q',
    write: (transport, q) =>
      transport === 'rest'
        ? t.request('GET', `/api/v1/tasks/project/${projectId}?q=${encodeURIComponent(q)}`, { token: owner.token })
        : t.request('GET', `/api/trpc/tasks.listForProject?input=${encodeURIComponent(JSON.stringify({ projectId, q }))}`, { token: owner.token }),
    refuseOnly: true,
  },
  {
    name: 'an invitee’s email',
    field: 'email',
    write: (transport, text) => call(transport, ['POST', '/projects/{id}/members/invite'], 'members.invite', { id: projectId, email: `a${text}@example.com` }, owner.token),
    refuseOnly: true,
  },
  {
    name: 'the password on login',
    field: 'password',
    write: (transport, text) => call(transport, ['POST', '/auth/login'], 'auth.login', { email: owner.email, password: `secret-${text}` }),
    refuseOnly: true,
  },
  {
    name: 'a new password',
    field: 'password',
    write: (transport, text) => call(transport, ['PATCH', '/auth/me'], 'auth.updateMe', { password: `secret-${text}`, currentPassword: owner.password }, owner.token),
    refuseOnly: true,
  },
  {
    name: 'the current password',
    field: 'currentPassword',
    write: (transport, text) => call(transport, ['PATCH', '/auth/me'], 'auth.updateMe', { password: 'another-secret', currentPassword: `${owner.password}${text}` }, owner.token),
    refuseOnly: true,
  },
  {
    name: 'a password-reset code',
    field: 'token',
    write: (transport, text) => call(transport, ['POST', '/auth/password-reset/confirm'], 'auth.confirmPasswordReset', { token: `x${text}`, password: 'another-secret' }),
    refuseOnly: true,
  },
];

/** The value each read gives back after a successful write. */
async function storedValues(field: Field, response: TestResponse): Promise<unknown[]> {
  if (response.body?.stored) return response.body.stored as unknown[];
  return field.read!();
}

function expectRefusal(transport: Transport, response: TestResponse, field: string) {
  if (transport === 'rest') {
    expectErrorBody(response, 400, { issues: [{ path: [field], code: 'custom', message: UNSTORABLE_TEXT_MESSAGE }] });
    expect(response.body.message).toBe(`Invalid input: ${field}: ${UNSTORABLE_TEXT_MESSAGE}`);
  } else {
    expect(response.status).toBe(400);
    expect(isTrpcErrorBody(response.body, 400)).toBe(true);
    expect(response.body.error.data.issues).toEqual([{ path: [field], code: 'custom', message: UNSTORABLE_TEXT_MESSAGE }]);
  }
}

describe('text fields: one rule on both transports', () => {
  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t, 'Owner');
    projectId = (await createProject(t, owner)).id;
    taskId = (await createTask(t, owner, projectId)).id;
    commentId = (await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: owner.token, body: { text: 'first' } })).body.id;
    // In a project of its own, so that no delivery is queued while a refusal's snapshot is compared.
    webhookProjectId = (await createProject(t, owner, 'Hooks')).id;
    webhookId = (await t.request('POST', `/api/v1/projects/${webhookProjectId}/webhooks`, { token: owner.token, body: { url: 'https://hooks.example.com/a' } })).body.id;
  });
  afterAll(() => t.close());

  for (const transport of ['rest', 'trpc'] as const) {
    for (const field of FIELDS) {
      it(`${transport}: ${field.name} refuses U+0000 and unpaired surrogates with a 400 naming "${field.field}", writing nothing`, async () => {
        for (const [label, value] of Object.entries(REFUSED)) {
          // A REST query string cannot carry a lone surrogate (percent-encoding is of UTF-8); its NUL is tested.
          if (field.field === 'q' && transport === 'rest' && /[\uD800-\uDFFF]/.test(value)) continue;
          const before = await databaseSnapshot(t);
          const response = await field.write(transport, value);
          expect({ label, status: response.status }).toEqual({ label, status: 400 });
          expectRefusal(transport, response, field.field);
          expect(await databaseSnapshot(t), label).toEqual(before);
        }
      });

      if (field.refuseOnly) continue;
      it(`${transport}: ${field.name} stores Unicode edge cases exactly and reads them back identical`, async () => {
        for (const [label, value] of Object.entries(KEPT)) {
          const response = await field.write(transport, value);
          expect(response.status < 300, `${label}: ${response.status} ${JSON.stringify(response.body)}`).toBe(true);
          for (const stored of await storedValues(field, response)) expect(stored === value, `${label}: ${JSON.stringify(stored)} ≠ ${JSON.stringify(value)}`).toBe(true);
        }
      });
    }
  }

  it('trimmed fields drop leading and trailing Unicode white space, and nothing else', async () => {
    const response = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: owner.token, body: { title: '\u00A0\u3000\t\r\n title \u2028\u0085 ' } });
    expect(response.body.title).toBe('title');
    const kept = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: owner.token, body: { title: ' \uFEFF title\uFEFF ' } });
    expect(kept.body.title).toBe('\uFEFF title\uFEFF');
    const blank = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: owner.token, body: { title: '\u00A0\u2003\u3000' } });
    expectErrorBody(blank, 400, { issues: [issueAt(['title'], 'too_small')] });
  });

  it('lengths count code points, not UTF-16 units: 500 emoji are a title, 501 are not', async () => {
    const title = '🙂'.repeat(500);
    const accepted = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: owner.token, body: { title } });
    expect(accepted.status).toBe(200);
    expect((await get(`/api/v1/tasks/${taskId}`)).title).toBe(title);
    const refused = await t.request('PATCH', `/api/v1/tasks/${taskId}`, { token: owner.token, body: { title: `${title}🙂` } });
    expectErrorBody(refused, 400, { issues: [{ path: ['title'], code: 'too_big', message: 'Too big: expected string to have <=500 characters' }] });
  });

  it('the search finds text with a byte order mark and astral characters as stored', async () => {
    const title = '\uFEFF𝔘nicode 🙂 needle';
    const created = await createTask(t, owner, projectId, { title });
    const found = await get(`/api/v1/tasks/project/${projectId}?q=${encodeURIComponent('\uFEFF𝔘nicode 🙂')}`);
    expect(found.map((task: { id: string; title: string }) => [task.id, task.title])).toEqual([[created.id, title]]);
  });
});
