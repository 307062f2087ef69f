import type { TokenNeed } from '../../resources/policy/policy';
import type { AppProcedurePath } from './router';

/**
 * A table with a need for each procedure of the router and no other key. The second half names a
 * key beyond the router's as `never`, so an extra key is refused even where TypeScript's check of
 * excess properties does not look (a spread, a table built elsewhere).
 */
export type ScopesTable<Table> = { readonly [Procedure in AppProcedurePath]: TokenNeed } & {
  readonly [Key in Exclude<keyof Table, AppProcedurePath>]: never;
};

/** The table itself, checked against the router as above. */
export const scopesTable = <const Table extends ScopesTable<Table>>(table: Table): Table => table;

/**
 * The scopes table: what a personal access token needs for each procedure of the router (what a
 * need allows is policy.ts's). Keyed by the router's procedure paths as a type, so a procedure
 * added without a need, or a need left for a procedure renamed or removed, fails to compile (no
 * default by procedure type: each one is decided here). Managing the account and its credentials
 * takes a signed-in session (`session`), so a token can never mint another or widen itself.
 * `public`: the procedure reads no token at all (register, login, password reset, sign-on); the
 * token-scopes test checks these are exactly the routes documented without security.
 *
 * Not in resources/policy because its type needs the router's, and resources/ does not import
 * transport/; not imported by init.ts either, since the router is built from init.ts: the app puts
 * `tokenNeedOf` in every request's context (Context.tokenNeedOf).
 */
export const TOKEN_NEEDS = scopesTable({
  'auth.register': 'public',
  'auth.login': 'public',
  'auth.providers': 'public',
  'auth.requestPasswordReset': 'public',
  'auth.confirmPasswordReset': 'public',
  'auth.oidc.login': 'public',
  'auth.oidc.callback': 'public',
  'auth.oidc.exchange': 'public',

  'auth.me': 'read',
  'auth.updateMe': 'session',
  'auth.logout': 'session',
  'auth.sessions.list': 'session',
  'auth.sessions.revoke': 'session',
  'auth.sessions.revokeOthers': 'session',
  'auth.tokens.create': 'session',
  'auth.tokens.list': 'session',
  'auth.tokens.revoke': 'session',
  'auth.notificationSettings.get': 'read',
  'auth.notificationSettings.update': 'session',
  'auth.calendarFeed.create': 'session',
  'auth.calendarFeed.get': 'read',
  'auth.calendarFeed.delete': 'session',

  'projects.list': 'read',
  'projects.get': 'read',
  'projects.events': 'read',
  'projects.create': 'admin',
  'imports.get': 'read',
  'projects.update': 'admin',
  'projects.delete': 'admin',
  'projects.transferOwnership': 'admin',

  'members.list': 'read',
  'members.get': 'read',
  'members.invite': 'admin',
  'members.changeRole': 'admin',
  'members.remove': 'admin',
  'members.listInvitations': 'admin',
  'members.deleteInvitation': 'admin',
  // Joining a project is the account's own act, as signing up through the link would be.
  'members.acceptInvitation': 'session',

  'tasks.listForProject': 'read',
  'tasks.listMine': 'read',
  'tasks.get': 'read',
  'tasks.create': 'write',
  'tasks.update': 'write',
  'tasks.move': 'write',
  'tasks.delete': 'write',

  'comments.list': 'read',
  'comments.get': 'read',
  'comments.create': 'write',
  'comments.update': 'write',
  'comments.delete': 'write',
  'time.listEntries': 'read',
  'time.createEntry': 'write',
  'time.getEntry': 'read',
  'time.updateEntry': 'write',
  'time.deleteEntry': 'write',
  'time.startTimer': 'write',
  'time.stopTimer': 'write',
  'time.currentTimer': 'read',
  'time.report': 'read',

  'labels.list': 'read',
  'labels.get': 'read',
  'labels.create': 'write',
  'labels.update': 'write',
  'labels.delete': 'write',
  'views.list': 'read',
  'views.get': 'read',
  'views.create': 'write',
  'views.update': 'write',
  'views.delete': 'write',

  'states.list': 'read',
  'states.get': 'read',
  'states.create': 'admin',
  'states.update': 'admin',
  'states.delete': 'admin',
  'fields.list': 'read',
  'fields.get': 'read',
  'fields.create': 'admin',
  'fields.update': 'admin',
  'fields.delete': 'admin',
  'relations.list': 'read',
  'relations.create': 'write',
  'relations.delete': 'write',

  'attachments.list': 'read',
  'attachments.get': 'read',
  'attachments.delete': 'write',

  'activity.listForProject': 'read',
  'activity.listForTask': 'read',

  'webhooks.list': 'read',
  'webhooks.get': 'read',
  'webhooks.deliveries': 'read',
  'webhooks.create': 'admin',
  'webhooks.update': 'admin',
  'webhooks.delete': 'admin',
  'webhooks.test': 'admin',
  'webhooks.rotateSecret': 'admin',

  'notifications.list': 'read',
  'notifications.unreadCount': 'read',
  'notifications.events': 'read',
  'notifications.markRead': 'write',
  'notifications.markAllRead': 'write',

  'watching.get': 'read',
  'watching.subscribe': 'write',
  'watching.unsubscribe': 'write',

  'search.query': 'read',
});

/**
 * The need of a procedure named at run time (tRPC's `path`). The type above covers every procedure
 * of the router, so the fallback only meets a name that is none of them: it refuses every token.
 */
export const tokenNeedOf = (procedure: string): TokenNeed => (TOKEN_NEEDS as Readonly<Record<string, TokenNeed>>)[procedure] ?? 'session';
