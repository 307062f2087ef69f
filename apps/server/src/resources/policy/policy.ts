import { AsyncLocalStorage } from 'node:async_hooks';
import { type Role, TOKEN_SCOPES, type TokenScope } from '@tasklane/schemas';
import { DomainError, notFound } from '../../platform/errors';

/** What a caller is to a project: their member role, and whether they own it. */
export interface ProjectAccess {
  projectId: string;
  role: Role;
  isOwner: boolean;
}

type Allowed = Record<Role | 'owner', boolean>;
const all: Allowed = { VIEWER: true, EDITOR: true, ADMIN: true, owner: true };
const editors: Allowed = { VIEWER: false, EDITOR: true, ADMIN: true, owner: true };
const admins: Allowed = { VIEWER: false, EDITOR: false, ADMIN: true, owner: true };
const ownerOnly: Allowed = { VIEWER: false, EDITOR: false, ADMIN: false, owner: true };

/**
 * The permission table of the service, the one place that decides who may do what.
 * Non-members never reach it: they get 404 before any action is considered.
 */
export const PERMISSIONS = {
  'project.read': all,
  'task.write': editors,
  'comment.create': editors,
  /** Creating, renaming, recolouring and deleting the project's labels (every member reads them). */
  'labels.manage': editors,
  /** Relating a task to another (blocks, relates to, duplicates) and removing its relations (every member reads them). */
  'relations.manage': editors,
  /** Editing or deleting one's own comment; authorship is checked by the comments service. */
  /** Adding, renaming, recolouring, reordering and deleting the project's workflow states (every member reads them). */
  'states.manage': admins,
  /** Adding, renaming, reordering and deleting the project's custom fields and their options (every member reads them; editors set values through task writes). */
  'fields.manage': admins,
  'comment.manageOwn': all,
  /** Logging time on a task (entries, the timer); the author edits and deletes their own entries while they may log time. */
  'time.log': editors,
  /** Editing or deleting another member's time entry. */
  'time.manageAny': admins,
  'comment.deleteAny': admins,
  /** Attaching a file to a task, and deleting one's own attachments (every member reads and downloads them). */
  'attachments.upload': editors,
  /** Deleting another member's attachment. */
  'attachments.deleteAny': admins,
  /** Making a saved view shared with the project, and editing or deleting one's own shared views (every member makes personal views, which only they see). */
  'views.share': editors,
  /** Editing or deleting another member's shared view. */
  'views.manageShared': admins,
  'project.update': admins,
  'members.manage': admins,
  /** Removing oneself from a project (leaving); the owner cannot leave (the members service answers 409). */
  'members.leave': all,
  'webhooks.manage': admins,
  /** Downloading the whole project (JSON, or its tasks as CSV): every member's email and every task, comment and time entry at once. */
  'project.export': admins,
  'project.delete': ownerOnly,
  'project.transferOwnership': ownerOnly,
} as const satisfies Record<string, Allowed>;

export type Action = keyof typeof PERMISSIONS;

export function can(access: ProjectAccess, action: Action): boolean {
  const allowed: Allowed = PERMISSIONS[action];
  return access.isOwner ? allowed.owner : allowed[access.role];
}

const DESCRIPTIONS: Record<Action, string> = {
  'project.read': 'view this project',
  'task.write': 'create, change or delete tasks',
  'comment.create': 'comment on tasks',
  'labels.manage': 'manage labels',
  'states.manage': 'manage workflow states',
  'fields.manage': 'manage custom fields',
  'relations.manage': 'relate tasks or remove their relations',
  'comment.manageOwn': 'edit or delete own comments',
  'time.log': 'log time on tasks',
  'time.manageAny': "change or delete other members' time entries",
  'comment.deleteAny': "delete other members' comments",
  'attachments.upload': 'attach files to tasks',
  'attachments.deleteAny': "delete other members' attachments",
  'views.share': 'share saved views with the project',
  'views.manageShared': "change or delete other members' shared views",
  'project.update': 'change the project',
  'members.manage': 'manage members',
  'members.leave': 'leave the project',
  'webhooks.manage': 'manage webhooks',
  'project.export': 'export the project',
  'project.delete': 'delete the project (owner only)',
  'project.transferOwnership': 'transfer ownership (owner only)',
};

export function describeAction(action: Action): string {
  return DESCRIPTIONS[action];
}

/** Throws 403 naming the caller's role and what it may not do. */
export function authorize(access: ProjectAccess, action: Action): void {
  if (!can(access, action)) {
    throw new DomainError('FORBIDDEN', `Your role (${access.isOwner ? 'owner' : access.role}) may not ${describeAction(action)}`);
  }
}

/**
 * Editing a comment is for its author only; deleting one is for its author or anyone who may
 * delete any comment (ADMIN, owner).
 */
export function authorizeCommentChange(access: ProjectAccess, change: 'edit' | 'delete', isAuthor: boolean): void {
  if (isAuthor) return authorize(access, 'comment.manageOwn');
  if (change === 'delete') return authorize(access, 'comment.deleteAny');
  throw new DomainError('FORBIDDEN', 'Only the author may edit a comment', 'NOT_AUTHOR');
}

/**
 * What the credential of a request allows, on top of what its user may do (the table above, which
 * still decides): a signed-in session allows everything its user may; a personal access token
 * only what its scopes cover, and only in its projects (null: all of its owner's projects).
 */
export type Grant = { kind: 'session' } | { kind: 'token'; scopes: readonly TokenScope[]; projectIds: readonly string[] | null };

export const SESSION_GRANT: Grant = { kind: 'session' };

/**
 * What a procedure needs of a personal access token: a scope; `session` (no token may call it); or
 * `public` (the procedure reads no token, so there is nothing to grant). Which procedure needs what
 * is the scopes table, keyed by the router's procedures: transport/trpc/token-scopes.ts.
 */
export type TokenNeed = TokenScope | 'session' | 'public';

/** Procedures that act beyond any one project: a token limited to some projects may not call them. */
const BEYOND_PROJECTS = new Set(['projects.create', 'imports.create', 'imports.get']);

/** A scope covers itself and the scopes before it (admin ⊃ write ⊃ read). */
const covers = (scope: TokenScope, need: TokenScope) => TOKEN_SCOPES.indexOf(scope) >= TOKEN_SCOPES.indexOf(need);

/** The 403 for a call of `procedure`, which needs `need`, that the grant does not cover, or undefined when it does (always, for a session). */
export function callRefusal(grant: Grant, procedure: string, need: TokenNeed): DomainError | undefined {
  if (grant.kind === 'session' || need === 'public') return undefined;
  if (need === 'session') return new DomainError('FORBIDDEN', 'A personal access token cannot do this: sign in with a password or single sign-on', 'SESSION_REQUIRED');
  if (!grant.scopes.some((scope) => covers(scope, need))) {
    return new DomainError('FORBIDDEN', `This personal access token lacks the ${need} scope`, 'INSUFFICIENT_SCOPE');
  }
  if (grant.projectIds !== null && BEYOND_PROJECTS.has(procedure)) {
    return new DomainError('FORBIDDEN', 'This personal access token is limited to certain projects', 'TOKEN_LIMITED_TO_PROJECTS');
  }
  return undefined;
}

/** Whether the grant reaches a project; one it does not reach is answered as for a non-member (404). */
export const grantReaches = (grant: Grant, projectId: string): boolean =>
  grant.kind === 'session' || grant.projectIds === null || grant.projectIds.includes(projectId.toLowerCase());

/** The projects a grant is limited to, for lists across projects; undefined when it is not limited. */
export const grantedProjects = (grant: Grant): readonly string[] | undefined =>
  grant.kind === 'token' && grant.projectIds !== null ? grant.projectIds : undefined;

const requestGrant = new AsyncLocalStorage<Grant>();

/**
 * Runs a request's work under its credential's grant, which the project checks below read (the
 * procedures pass only the user's id down to the services). Work outside a request (the CLI, the
 * background senders) acts for the service itself and is not limited.
 */
export const runWithGrant = <T>(grant: Grant, work: () => T): T => requestGrant.run(grant, work);

export const currentGrant = (): Grant => requestGrant.getStore() ?? SESSION_GRANT;

/** Throws the non-member's 404 when the current request's token does not reach the project. */
export function requireReach(projectId: string, what = 'Project'): void {
  if (!grantReaches(currentGrant(), projectId)) throw notFound(what);
}
