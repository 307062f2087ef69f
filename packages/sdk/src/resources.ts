import type { PROCEDURE_KINDS, ProcedureInputs, ProcedureOutputs } from './generated/api';

export type ProcedurePath = keyof typeof PROCEDURE_KINDS;

/**
 * The SDK's one table: each resource method and the server procedure it calls (a list procedure
 * answers the page, `{ items, nextCursor }`, over tRPC). Checked when it compiles: a name that is
 * no procedure of the router is refused by `satisfies`, and a procedure with no method here by the
 * `CoversEveryProcedure` check in src/resources.ts. The procedure names are those of
 * src/generated/api.ts, generated from the server's router; test/resources.test.ts type-checks
 * them against the router's type itself.
 */
export const RESOURCES = {
  auth: {
    register: 'auth.register',
    login: 'auth.login',
    logout: 'auth.logout',
    me: 'auth.me',
    updateMe: 'auth.updateMe',
    providers: 'auth.providers',
    requestPasswordReset: 'auth.requestPasswordReset',
    confirmPasswordReset: 'auth.confirmPasswordReset',
  },
  sessions: { list: 'auth.sessions.list', revoke: 'auth.sessions.revoke', revokeOthers: 'auth.sessions.revokeOthers' },
  tokens: { create: 'auth.tokens.create', list: 'auth.tokens.list', revoke: 'auth.tokens.revoke' },
  sso: { login: 'auth.oidc.login', callback: 'auth.oidc.callback', exchange: 'auth.oidc.exchange' },
  notificationSettings: { get: 'auth.notificationSettings.get', update: 'auth.notificationSettings.update' },
  /** The caller's secret iCalendar address of their dated tasks (`create` shows it once; `create` and `delete` need a login, not a personal access token). */
  calendarFeed: { create: 'auth.calendarFeed.create', get: 'auth.calendarFeed.get', delete: 'auth.calendarFeed.delete' },
  projects: {
    list: 'projects.list',
    get: 'projects.get',
    create: 'projects.create',
    update: 'projects.update',
    delete: 'projects.delete',
    transferOwnership: 'projects.transferOwnership',
  },
  members: { list: 'members.list', get: 'members.get', invite: 'members.invite', setRole: 'members.changeRole', remove: 'members.remove' },
  invitations: { list: 'members.listInvitations', revoke: 'members.deleteInvitation', accept: 'members.acceptInvitation' },
  tasks: {
    list: 'tasks.listForProject',
    listMine: 'tasks.listMine',
    get: 'tasks.get',
    create: 'tasks.create',
    update: 'tasks.update',
    /** Places a task in the board's order: `{ id, status?, afterId?, beforeId? }` (the task above it, the task below it). */
    move: 'tasks.move',
    delete: 'tasks.delete',
  },
  comments: { list: 'comments.list', get: 'comments.get', create: 'comments.create', update: 'comments.update', delete: 'comments.delete' },
  /** A task's attachments (`{ id }`: the task), one (`{ id }`: the attachment), its deletion; `upload`, `download` and `thumbnail` (bytes) are the SDK's own (src/attachments.ts). */
  attachments: { list: 'attachments.list', get: 'attachments.get', delete: 'attachments.delete' },
  labels: { list: 'labels.list', get: 'labels.get', create: 'labels.create', update: 'labels.update', delete: 'labels.delete' },
  views: { list: 'views.list', get: 'views.get', create: 'views.create', update: 'views.update', delete: 'views.delete' },
  relations: { list: 'relations.list', create: 'relations.create', delete: 'relations.delete' },
  states: { list: 'states.list', get: 'states.get', create: 'states.create', update: 'states.update', delete: 'states.delete' },
  fields: { list: 'fields.list', get: 'fields.get', create: 'fields.create', update: 'fields.update', delete: 'fields.delete' },
  activity: { listForProject: 'activity.listForProject', listForTask: 'activity.listForTask' },
  webhooks: {
    list: 'webhooks.list',
    get: 'webhooks.get',
    create: 'webhooks.create',
    update: 'webhooks.update',
    delete: 'webhooks.delete',
    deliveries: 'webhooks.deliveries',
    test: 'webhooks.test',
    rotateSecret: 'webhooks.rotateSecret',
  },
  notifications: {
    list: 'notifications.list',
    unreadCount: 'notifications.unreadCount',
    markRead: 'notifications.markRead',
    markAllRead: 'notifications.markAllRead',
    // Served by the SDK's own Server-Sent Events reader over the REST stream (see events.ts).
    subscribe: 'notifications.events',
  },
  watching: { get: 'watching.get', watch: 'watching.subscribe', unwatch: 'watching.unsubscribe' },
  time: {
    listEntries: 'time.listEntries',
    createEntry: 'time.createEntry',
    getEntry: 'time.getEntry',
    updateEntry: 'time.updateEntry',
    deleteEntry: 'time.deleteEntry',
    /** Starts the caller's timer on a task, stopping one running elsewhere into an entry (`stopped`). */
    startTimer: 'time.startTimer',
    stopTimer: 'time.stopTimer',
    currentTimer: 'time.currentTimer',
    /** A project's report as JSON rows; the CSV form is the REST route's (`Accept: text/csv`). */
    report: 'time.report',
  },
  /** Tasks and comments of the caller's projects matching `q`, best first: a page, so `tl.paginate(tl.search.query, { q })` walks them. */
  search: { query: 'search.query' },
  /** An import's progress and outcome (`{ id }`, only its creator's); `create` and `dryRun` (the upload) are the SDK's own (src/imports.ts). */
  imports: { get: 'imports.get' },
  // Served by the SDK's own Server-Sent Events reader over the REST stream (see events.ts).
  events: { subscribe: 'projects.events' },
} as const satisfies Record<string, Record<string, ProcedurePath>>;

export type Resources = typeof RESOURCES;

/** The procedures some resource method calls. */
type Covered = { [R in keyof Resources]: Resources[R][keyof Resources[R]] }[keyof Resources];
/** `true` when every procedure has a method; otherwise a type naming those that have none. */
type Coverage = [Exclude<ProcedurePath, Covered>] extends [never] ? true : { proceduresWithoutMethod: Exclude<ProcedurePath, Covered> };
type MustBeTrue<Check extends true> = Check;
/** Compiles only while RESOURCES covers every procedure of the router (the error names the others). */
export type CoversEveryProcedure = MustBeTrue<Coverage>;

/** Creates: each call sends an `Idempotency-Key`, so a retried create is applied once. */
export const IDEMPOTENT_CREATES: ReadonlySet<ProcedurePath> = new Set<ProcedurePath>(['projects.create', 'members.invite', 'tasks.create', 'comments.create']);

/** Calls that return a token the client then keeps (unless its token comes from a provider). */
export const TOKEN_ISSUERS: ReadonlySet<ProcedurePath> = new Set<ProcedurePath>(['auth.register', 'auth.login', 'auth.oidc.exchange']);

/** What a resource method takes: the procedure's input, with dates as ISO strings or `Date`. */
export type Input<P extends ProcedurePath> = P extends keyof ProcedureInputs ? ProcedureInputs[P] : void;
/** What a resource method resolves with. */
export type Output<P extends ProcedurePath> = P extends keyof ProcedureOutputs ? ProcedureOutputs[P] : never;

/** Per-call options; every field optional. */
export interface CallOptions {
  /**
   * The version you read (its `ETag`, or the resource itself: its `updatedAt` gives the tag). The
   * update or delete applies only if the resource is still that version; otherwise it rejects with
   * `TasklaneError` `PRECONDITION_FAILED`, `reason: 'STALE_VERSION'`, and nothing changes.
   */
  ifMatch?: string | { updatedAt: string };
  /** For creates: your own key (1–255 visible ASCII characters); a random UUID by default. */
  idempotencyKey?: string;
  /** Aborts the call. */
  signal?: AbortSignal;
}

/** A method taking no input, or only optional fields, may be called without one. */
export type Method<P extends ProcedurePath> = [Input<P>] extends [void]
  ? (input?: undefined, options?: CallOptions) => Promise<Output<P>>
  : Record<string, never> extends Input<P>
    ? (input?: Input<P>, options?: CallOptions) => Promise<Output<P>>
    : (input: Input<P>, options?: CallOptions) => Promise<Output<P>>;

/** A resource's methods; `subscribe` (a live stream) is the SDK's own reader, typed where the client is. */
export type ResourceMethods<R extends Record<string, ProcedurePath>> = { readonly [M in keyof R as M extends 'subscribe' ? never : M]: Method<R[M]> };
