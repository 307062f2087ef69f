import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDataDir, upload } from './support/attachments';
import { expectErrorBody } from './support/checks';
import { type Cast, castProject, createTask, registerUser, startTestApp, type TestApp, type TestResponse, type TestUser } from './support/harness';
import { type Action, can, describeAction, PERMISSIONS } from '../src/resources/policy/policy';

type Caller = 'VIEWER' | 'EDITOR' | 'ADMIN' | 'owner';
const CALLERS: Caller[] = ['VIEWER', 'EDITOR', 'ADMIN', 'owner'];

/** The permission table as DESIGN.md states it, written out: every action × caller and its answer. */
const EXPECTED: Record<Action, Record<Caller, boolean>> = {
  //                              VIEWER        EDITOR        ADMIN        owner
  'project.read':              { VIEWER: true,  EDITOR: true,  ADMIN: true,  owner: true },
  'task.write':                { VIEWER: false, EDITOR: true,  ADMIN: true,  owner: true },
  'comment.create':            { VIEWER: false, EDITOR: true,  ADMIN: true,  owner: true },
  'labels.manage':             { VIEWER: false, EDITOR: true,  ADMIN: true,  owner: true },
  'states.manage':             { VIEWER: false, EDITOR: false, ADMIN: true,  owner: true },
  'fields.manage':             { VIEWER: false, EDITOR: false, ADMIN: true,  owner: true },
  'relations.manage':          { VIEWER: false, EDITOR: true,  ADMIN: true,  owner: true },
  'comment.manageOwn':         { VIEWER: true,  EDITOR: true,  ADMIN: true,  owner: true },
  'time.log':                  { VIEWER: false, EDITOR: true,  ADMIN: true,  owner: true },
  'time.manageAny':            { VIEWER: false, EDITOR: false, ADMIN: true,  owner: true },
  'comment.deleteAny':         { VIEWER: false, EDITOR: false, ADMIN: true,  owner: true },
  'attachments.upload':        { VIEWER: false, EDITOR: true,  ADMIN: true,  owner: true },
  'attachments.deleteAny':     { VIEWER: false, EDITOR: false, ADMIN: true,  owner: true },
  'views.share':               { VIEWER: false, EDITOR: true,  ADMIN: true,  owner: true },
  'views.manageShared':        { VIEWER: false, EDITOR: false, ADMIN: true,  owner: true },
  'project.update':            { VIEWER: false, EDITOR: false, ADMIN: true,  owner: true },
  'members.manage':            { VIEWER: false, EDITOR: false, ADMIN: true,  owner: true },
  'members.leave':             { VIEWER: true,  EDITOR: true,  ADMIN: true,  owner: true },
  'webhooks.manage':           { VIEWER: false, EDITOR: false, ADMIN: true,  owner: true },
  'project.export':            { VIEWER: false, EDITOR: false, ADMIN: true,  owner: true },
  'project.delete':            { VIEWER: false, EDITOR: false, ADMIN: false, owner: true },
  'project.transferOwnership': { VIEWER: false, EDITOR: false, ADMIN: false, owner: true },
};

/** What a caller is to the project: the owner is an ADMIN member too. */
const accessOf = (caller: Caller) => ({ projectId: 'p', role: caller === 'owner' ? ('ADMIN' as const) : caller, isOwner: caller === 'owner' });

describe('the permission table (policy.ts)', () => {
  it('has a row here for every action it defines, and no other', () => {
    expect(Object.keys(PERMISSIONS).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const action of Object.keys(EXPECTED) as Action[]) {
    for (const caller of CALLERS) {
      it(`${action} for ${caller}: ${EXPECTED[action][caller] ? 'allowed' : 'refused'}`, () => {
        expect(can(accessOf(caller), action)).toBe(EXPECTED[action][caller]);
      });
    }
  }
});

/**
 * The same answers through HTTP: each action on a route that asks it, by each caller on a project
 * of the test's own. `call` makes what the request needs (the caller's own comment, another
 * member's) and sends it; `allowed` is the status when the table allows the action.
 */
interface Scene {
  t: TestApp;
  projectId: string;
  taskId: string;
  /** The cast's members of this project: the caller, and others to act on. */
  cast: Cast;
  memberIdOf(user: TestUser): Promise<string>;
}

interface HttpProof {
  allowed: number | ((caller: Caller) => number);
  call(scene: Scene, caller: Caller): Promise<TestResponse>;
}

const commentBy = async ({ t, taskId }: Scene, author: TestUser): Promise<string> => {
  const response = await t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: author.token, body: { text: 'A comment' } });
  expect(response.status).toBe(201);
  return response.body.id as string;
};

const setRole = async ({ t, projectId, cast, memberIdOf }: Scene, user: TestUser, role: 'VIEWER' | 'EDITOR') => {
  const response = await t.request('PATCH', `/api/v1/projects/${projectId}/members/${await memberIdOf(user)}/role`, { token: cast.owner.token, body: { role } });
  expect(response.status).toBe(200);
};

const HTTP: Record<Action, HttpProof> = {
  'project.read': {
    allowed: 200,
    call: ({ t, projectId, cast }, caller) => t.request('GET', `/api/v1/projects/${projectId}`, { token: cast[caller].token }),
  },
  'task.write': {
    allowed: 201,
    call: ({ t, projectId, cast }, caller) => t.request('POST', '/api/v1/tasks', { token: cast[caller].token, body: { title: 'New', projectId } }),
  },
  'comment.create': {
    allowed: 201,
    call: ({ t, taskId, cast }, caller) => t.request('POST', `/api/v1/tasks/${taskId}/comments`, { token: cast[caller].token, body: { text: 'Hello' } }),
  },
  'labels.manage': {
    allowed: 201,
    call: ({ t, projectId, cast }, caller) =>
      t.request('POST', `/api/v1/projects/${projectId}/labels`, { token: cast[caller].token, body: { name: `Label of ${caller}`, color: '#123abc' } }),
  },
  'states.manage': {
    allowed: 201,
    call: ({ t, projectId, cast }, caller) =>
      t.request('POST', `/api/v1/projects/${projectId}/states`, { token: cast[caller].token, body: { name: `State of ${caller}`, category: 'started' } }),
  },
  'fields.manage': {
    allowed: 201,
    call: ({ t, projectId, cast }, caller) =>
      t.request('POST', `/api/v1/projects/${projectId}/fields`, { token: cast[caller].token, body: { name: `Field of ${caller}`, type: 'number' } }),
  },
  'relations.manage': {
    allowed: 201,
    call: async ({ t, projectId, taskId, cast }, caller) => {
      const other = await createTask(t, cast.owner, projectId, { title: `Related by ${caller}` });
      return t.request('POST', `/api/v1/tasks/${taskId}/relations`, { token: cast[caller].token, body: { type: 'relates_to', taskId: other.id } });
    },
  },
  'comment.manageOwn': {
    allowed: 200,
    // A VIEWER's own comment was written while an EDITOR.
    call: async (scene, caller) => {
      if (caller === 'VIEWER') await setRole(scene, scene.cast.VIEWER, 'EDITOR');
      const commentId = await commentBy(scene, scene.cast[caller]);
      if (caller === 'VIEWER') await setRole(scene, scene.cast.VIEWER, 'VIEWER');
      return scene.t.request('PATCH', `/api/v1/tasks/${scene.taskId}/comments/${commentId}`, { token: scene.cast[caller].token, body: { text: 'Edited' } });
    },
  },
  'time.log': {
    allowed: 201,
    call: ({ t, taskId, cast }, caller) => t.request('POST', `/api/v1/tasks/${taskId}/time-entries`, { token: cast[caller].token, body: { minutes: 30 } }),
  },
  'time.manageAny': {
    allowed: 200,
    // Another member's entry: the EDITOR's for everyone but the EDITOR, who gets the ADMIN's.
    call: async ({ t, taskId, cast }, caller) => {
      const author = caller === 'EDITOR' ? cast.ADMIN : cast.EDITOR;
      const entry = await t.request('POST', `/api/v1/tasks/${taskId}/time-entries`, { token: author.token, body: { minutes: 30 } });
      expect(entry.status).toBe(201);
      return t.request('PATCH', `/api/v1/time-entries/${entry.body.id}`, { token: cast[caller].token, body: { minutes: 45 } });
    },
  },
  'comment.deleteAny': {
    allowed: 200,
    call: async (scene, caller) => {
      const author = caller === 'EDITOR' ? scene.cast.ADMIN : scene.cast.EDITOR;
      const commentId = await commentBy(scene, author);
      return scene.t.request('DELETE', `/api/v1/tasks/${scene.taskId}/comments/${commentId}`, { token: scene.cast[caller].token });
    },
  },
  'attachments.upload': {
    allowed: 201,
    call: ({ t, taskId, cast }, caller) => upload(t, cast[caller].token, taskId, `${caller}.txt`, `Notes of ${caller}`),
  },
  'attachments.deleteAny': {
    allowed: 200,
    call: async ({ t, taskId, cast }, caller) => {
      const uploader = caller === 'EDITOR' ? cast.ADMIN : cast.EDITOR;
      const uploaded = await upload(t, uploader.token, taskId, 'theirs.txt', `Uploaded by ${uploader.name}`);
      expect(uploaded.status).toBe(201);
      return t.request('DELETE', `/api/v1/attachments/${uploaded.body.id}`, { token: cast[caller].token });
    },
  },
  'views.share': {
    allowed: 201,
    call: ({ t, projectId, cast }, caller) =>
      t.request('POST', `/api/v1/projects/${projectId}/views`, { token: cast[caller].token, body: { name: `Shared by ${caller}`, layout: 'board', shared: true } }),
  },
  'views.manageShared': {
    allowed: 200,
    // Another member's shared view: the EDITOR's for everyone but the EDITOR, who gets the ADMIN's.
    call: async ({ t, projectId, cast }, caller) => {
      const owner = caller === 'EDITOR' ? cast.ADMIN : cast.EDITOR;
      const view = await t.request('POST', `/api/v1/projects/${projectId}/views`, { token: owner.token, body: { name: `Shared by ${owner.name}`, layout: 'list', shared: true } });
      expect(view.status).toBe(201);
      return t.request('PATCH', `/api/v1/projects/${projectId}/views/${view.body.id}`, { token: cast[caller].token, body: { name: 'Renamed' } });
    },
  },
  'project.update': {
    allowed: 200,
    call: ({ t, projectId, cast }, caller) => t.request('PATCH', `/api/v1/projects/${projectId}`, { token: cast[caller].token, body: { description: 'Edited' } }),
  },
  'members.manage': {
    allowed: 201,
    call: async ({ t, projectId, cast }, caller) => {
      const invitee = await registerUser(t, 'Invitee');
      return t.request('POST', `/api/v1/projects/${projectId}/members/invite`, { token: cast[caller].token, body: { email: invitee.email, role: 'VIEWER' } });
    },
  },
  'members.leave': {
    // The table lets the owner leave too; the members service then refuses it with 409 (OWNER_IMMUTABLE), not 403.
    allowed: (caller) => (caller === 'owner' ? 409 : 200),
    call: async ({ t, projectId, cast, memberIdOf }, caller) =>
      t.request('DELETE', `/api/v1/projects/${projectId}/members/${await memberIdOf(cast[caller])}`, { token: cast[caller].token }),
  },
  'webhooks.manage': {
    allowed: 200,
    call: ({ t, projectId, cast }, caller) => t.request('GET', `/api/v1/projects/${projectId}/webhooks`, { token: cast[caller].token }),
  },
  'project.export': {
    allowed: 200,
    call: ({ t, projectId, cast }, caller) => t.request('GET', `/api/v1/projects/${projectId}/export?format=csv`, { token: cast[caller].token }),
  },
  'project.delete': {
    allowed: 200,
    call: ({ t, projectId, cast }, caller) => t.request('DELETE', `/api/v1/projects/${projectId}`, { token: cast[caller].token }),
  },
  'project.transferOwnership': {
    allowed: 200,
    call: ({ t, projectId, cast }, caller) =>
      t.request('POST', `/api/v1/projects/${projectId}/transfer-ownership`, {
        token: cast[caller].token,
        body: { userId: (caller === 'EDITOR' ? cast.VIEWER : cast.EDITOR).id },
      }),
  },
};

describe('the permission table through HTTP', () => {
  let t: TestApp;
  const cast = {} as Cast;
  // Uploads store files: under a DATA_DIR of the test's own.
  const dataDir = temporaryDataDir();

  beforeAll(async () => {
    t = await startTestApp({ dataDir: dataDir.dir });
    for (const caller of CALLERS) cast[caller] = await registerUser(t, caller);
  });
  afterAll(async () => {
    await t.close();
    dataDir.remove();
  });

  /** A project of the test's own, with the whole cast as members and a task in it. */
  async function scene(): Promise<Scene> {
    const { projectId, memberIds } = await castProject(t, cast, 'Policy');
    const taskId = (await createTask(t, cast.owner, projectId)).id;
    const memberIdOf = async (user: TestUser) => {
      const known = memberIds.get(user.id);
      if (known) return known;
      const members = await t.request('GET', `/api/v1/projects/${projectId}/members`, { token: cast.owner.token });
      return (members.body as { id: string; userId: string }[]).find((member) => member.userId === user.id)!.id;
    };
    return { t, projectId, taskId, cast, memberIdOf };
  }

  for (const action of Object.keys(EXPECTED) as Action[]) {
    for (const caller of CALLERS) {
      const proof = HTTP[action];
      const allowed = EXPECTED[action][caller];
      const status = allowed ? (typeof proof.allowed === 'number' ? proof.allowed : proof.allowed(caller)) : 403;
      it(`${action} for ${caller} → ${status}`, async () => {
        const response = await proof.call(await scene(), caller);
        if (allowed) {
          expect({ status: response.status, body: response.body }).toMatchObject({ status });
        } else {
          expectErrorBody(response, 403, { message: `Your role (${caller}) may not ${describeAction(action)}` });
        }
      });
    }
  }
});
