import { ROLES, type Role } from '@tasklane/schemas';
import { DomainError } from './errors';

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
  /** Editing or deleting one's own comment; authorship is checked by the comments service. */
  'comment.manageOwn': all,
  'comment.deleteAny': admins,
  'project.update': admins,
  'members.manage': admins,
  /** Removing oneself from a project (leaving); the owner cannot leave (the members service answers 409). */
  'members.leave': all,
  'webhooks.manage': admins,
  'project.delete': ownerOnly,
  'project.transferOwnership': ownerOnly,
} as const satisfies Record<string, Allowed>;

export type Action = keyof typeof PERMISSIONS;

export function can(access: ProjectAccess, action: Action): boolean {
  const allowed: Allowed = PERMISSIONS[action];
  return access.isOwner ? allowed.owner : allowed[access.role];
}

/** Who an action of the table allows, for a check made inside a statement (see taskInsert): the member roles, and whether the owner may. */
export function allowedBy(action: Action): { roles: Role[]; owner: boolean } {
  const allowed: Allowed = PERMISSIONS[action];
  return { roles: ROLES.filter((role) => allowed[role]), owner: allowed.owner };
}

const DESCRIPTIONS: Record<Action, string> = {
  'project.read': 'view this project',
  'task.write': 'create, change or delete tasks',
  'comment.create': 'comment on tasks',
  'comment.manageOwn': 'edit or delete own comments',
  'comment.deleteAny': "delete other members' comments",
  'project.update': 'change the project',
  'members.manage': 'manage members',
  'members.leave': 'leave the project',
  'webhooks.manage': 'manage webhooks',
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
