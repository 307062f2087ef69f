import { sql } from 'drizzle-orm';
import { type AnyPgColumn, bigint, boolean, check, date, doublePrecision, index, integer, jsonb, numeric, pgEnum, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from './timestamps';

const timestamps = {
  createdAt: timestamptz('created_at').notNull().default(sql`now()`),
  updatedAt: timestamptz('updated_at').notNull().default(sql`now()`),
};

export const roleEnum = pgEnum('member_role', ['VIEWER', 'EDITOR', 'ADMIN']);
/** Declared in rank order, so ORDER BY priority sorts by rank. */
export const taskPriorityEnum = pgEnum('task_priority', ['LOW', 'MEDIUM', 'HIGH', 'URGENT']);

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    /** Null for an account made through single sign-on, until its owner sets a password. */
    passwordHash: text('password_hash'),
    /** Bumped to revoke every token issued before it. */
    tokenVersion: integer('token_version').notNull().default(0),
    /** The language chosen for the web app and emails ('de'); null: the browser's, and English emails (migration 0028). */
    locale: text('locale'),
    ...timestamps,
  },
  (table) => [uniqueIndex('users_email_key').on(table.email)],
);

export const projects = pgTable('projects', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  ownerId: uuid('owner_id')
    .notNull()
    .references(() => users.id),
  /** The project's current key ("ENG"), the stem of its tasks' keys; every key it had is in projectKeys too (migration 0011). */
  key: text('key').notNull(),
  /** The number its next task gets: never given back, so a deleted task's number is never reused. */
  nextTaskNumber: integer('next_task_number').notNull().default(1),
  /** The unit of its tasks' estimates (migration 0017). */
  estimateUnit: text('estimate_unit', { enum: ['points', 'hours'] }).notNull().default('points'),
  ...timestamps,
}, (table) => [uniqueIndex('projects_key_key').on(table.key)]);

/** Every key a project has had, its current one included: a key belongs to one project for good, so a former task key still finds its task. */
export const projectKeys = pgTable(
  'project_keys',
  {
    key: text('key').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
  },
  (table) => [index('project_keys_project_idx').on(table.projectId)],
);

export const memberships = pgTable(
  'memberships',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: roleEnum('role').notNull(),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('memberships_project_user_key').on(table.projectId, table.userId),
    // GET /projects pages a user's memberships by project id.
    uniqueIndex('memberships_user_project_key').on(table.userId, table.projectId),
    // GET /projects/{id}/members pages a project's memberships by membership id.
    index('memberships_project_id_idx').on(table.projectId, table.id),
  ],
);

export const tasks = pgTable(
  'tasks',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    /** The key of one of the project's states (project_states), checked by the tasks service under the state's lock. */
    status: text('status').notNull(),
    priority: taskPriorityEnum('priority').notNull().default('MEDIUM'),
    dueDate: timestamptz('due_date'),
    /** When work on the task begins (migration 0021), never after `dueDate`: the tasks service checks it (START_AFTER_DUE). */
    startDate: timestamptz('start_date'),
    assigneeId: uuid('assignee_id').references(() => users.id, { onDelete: 'set null' }),
    createdById: uuid('created_by_id')
      .notNull()
      .references(() => users.id),
    completedAt: timestamptz('completed_at'),
    /** Ids of the project's labels on the task, in id order; a deleted label is taken off (labels service). */
    labelIds: uuid('label_ids').array().notNull().default(sql`'{}'::uuid[]`),
    /** The task's comments, counted by a trigger on `comments` (migration 0006) in the writing transaction. */
    commentCount: integer('comment_count').notNull().default(0),
    /** 1, 2, 3 … per project (projects.nextTaskNumber); the task's key is the project's key and this. */
    number: integer('number').notNull(),
    /** The parent of a subtask; its deletion detaches it (tasks service; SET NULL backs that up). */
    parentId: uuid('parent_id').references((): AnyPgColumn => tasks.id, { onDelete: 'set null' }),
    /**
     * The task's place in the board's order: a fractional-indexing key, unique in the project,
     * compared byte by byte (the column is COLLATE "C", migration 0013). Set by the tasks service.
     */
    position: text('position').notNull(),
    /** An RFC 5545 RRULE value (checked and stepped by the tasks service's recurrence.ts), or null: not recurring. */
    recurrence: text('recurrence'),
    /** The task whose completion made this one (its next occurrence); no foreign key: it keeps the id after that task's deletion. */
    recurredFromId: uuid('recurred_from_id'),
    /**
     * The due date the next occurrence would get (migration 0019), set by the tasks service with
     * `recurrence` and `dueDate` (recurrence.ts steps the rule): null for a task that does not recur
     * or whose rule has no further date. A recurring row written before 0019 has null too, and its
     * read steps the rule (toTask) until its next write stores it: SQL cannot step an RRULE.
     */
    nextDueDate: timestamptz('next_due_date'),
    /** A number ≥ 0 in the project's estimateUnit, or null (migration 0017). */
    estimate: numeric('estimate', { mode: 'number' }),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('tasks_project_number_key').on(table.projectId, table.number),
    // A task makes at most one next occurrence (migration 0016).
    uniqueIndex('tasks_recurred_from_key').on(table.recurredFromId).where(sql`${table.recurredFromId} is not null`),
    // Subtask counts on every read and the parentId filter: subtasks only, answered from the index.
    index('tasks_parent_status_idx').on(table.parentId, table.status).where(sql`${table.parentId} is not null`),
    // One index per sort the list offers, each ending in id so keyset paging is stable.
    index('tasks_project_created_idx').on(table.projectId, table.createdAt, table.id),
    index('tasks_project_updated_idx').on(table.projectId, table.updatedAt, table.id),
    index('tasks_project_due_idx').on(table.projectId, table.dueDate, table.id),
    index('tasks_project_priority_idx').on(table.projectId, table.priority, table.id),
    index('tasks_project_title_idx').on(table.projectId, table.title, table.id),
    index('tasks_project_status_idx').on(table.projectId, table.status, table.createdAt, table.id),
    uniqueIndex('tasks_project_position_key').on(table.projectId, table.position),
    index('tasks_project_status_position_idx').on(table.projectId, table.status, table.position, table.id),
    index('tasks_project_assignee_idx').on(table.projectId, table.assigneeId, table.createdAt, table.id),
    /*
     * Search (migration 0020): the GIN index of `search_vector`, a generated tsvector of the title
     * and description. The column is left out of this table on purpose: every task read selects all
     * of its columns (tasks/store.ts), and none but the search (search/store.ts, raw SQL) wants it.
     */
    index('tasks_search_idx').using('gin', sql`search_vector`),
    index('tasks_assignee_idx').on(table.assigneeId, table.createdAt, table.id),
    // The due-reminder job looks for assigned tasks by due date across projects.
    index('tasks_due_reminder_idx').on(table.dueDate).where(sql`${table.assigneeId} is not null`),
    // `q` is a case-insensitive substring search (ILIKE '%…%'): trigram indexes serve it (pg_trgm).
    index('tasks_title_trgm_idx').using('gin', table.title.op('gin_trgm_ops')),
    index('tasks_description_trgm_idx').using('gin', table.description.op('gin_trgm_ops')),
    // The `labelId` filter (label_ids && …) and a label's deletion (label_ids @> …) find tasks by label.
    index('tasks_label_ids_idx').using('gin', table.labelIds),
  ],
);

/** A project's labels; names are unique per project regardless of case. */
export const labels = pgTable(
  'labels',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** `#rrggbb`, lower case. */
    color: text('color').notNull(),
    ...timestamps,
  },
  // Also the order of GET /projects/{id}/labels (by name, regardless of case), so it pages by this index.
  (table) => [uniqueIndex('labels_project_name_key').on(table.projectId, sql`lower(${table.name})`)],
);

/** The categories a workflow state belongs to, in board-group order. */
export const STATE_CATEGORY_VALUES = ['backlog', 'unstarted', 'started', 'completed', 'cancelled'] as const;

/**
 * A project's workflow states (migration 0010): a task's `status` is the `key` of one of them.
 * `position` is the board order, 0 to n-1 without gaps (the states service keeps it so); `key`
 * never changes, so tasks.status needs no foreign key to follow renames.
 */
export const projectStates = pgTable(
  'project_states',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    name: text('name').notNull(),
    category: text('category', { enum: STATE_CATEGORY_VALUES }).notNull(),
    /** `#rrggbb`, lower case. */
    color: text('color').notNull(),
    position: integer('position').notNull(),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('project_states_project_key_key').on(table.projectId, table.key),
    check('project_states_category_check', sql`${table.category} in ('backlog', 'unstarted', 'started', 'completed', 'cancelled')`),
  ],
);

/** The types of a project's custom fields (migration 0015). */
export const FIELD_TYPE_VALUES = ['text', 'number', 'date', 'select', 'multi_select', 'user', 'checkbox', 'url'] as const;

/**
 * A project's custom fields (migration 0015), in `position` order (0 to n-1 without gaps, kept so
 * by the fields service). `options` is the ordered `[{ id, name, color }]` of a select or
 * multi_select field, `[]` for the others.
 */
export const projectFields = pgTable(
  'project_fields',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type', { enum: FIELD_TYPE_VALUES }).notNull(),
    options: jsonb('options').$type<{ id: string; name: string; color: string }[]>().notNull().default(sql`'[]'::jsonb`),
    position: integer('position').notNull(),
    ...timestamps,
  },
  (table) => [uniqueIndex('project_fields_project_name_key').on(table.projectId, sql`lower(${table.name})`)],
);

/**
 * A task's value of a custom field, one row per (task, field) that has one (migration 0015).
 * `value` is what the API shows; `sort_text` or `sort_number` (one of them, by the field's type)
 * is what filters compare and sorts order by, each indexed with the field first and the task last,
 * so a page sorted by a field walks its index from the cursor and a field's filter probes the
 * primary key per task: the cost of a page does not grow with the project.
 */
export const taskFieldValues = pgTable(
  'task_field_values',
  {
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    fieldId: uuid('field_id')
      .notNull()
      .references(() => projectFields.id, { onDelete: 'cascade' }),
    value: jsonb('value').notNull(),
    sortText: text('sort_text'),
    sortNumber: doublePrecision('sort_number'),
  },
  (table) => [
    primaryKey({ columns: [table.taskId, table.fieldId] }),
    index('task_field_values_text_idx').on(table.fieldId, table.sortText, table.taskId),
    index('task_field_values_number_idx').on(table.fieldId, table.sortNumber, table.taskId),
  ],
);

/**
 * Tasks per status of each project, kept by triggers on `tasks` (migration 0004) in the writing
 * transaction, so GET /projects/{id} reads five numbers instead of counting the project's tasks.
 */
export const projectTaskCounts = pgTable(
  'project_task_counts',
  {
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** A state's key (tasks.status). */
    status: text('status').notNull(),
    count: integer('count').notNull(),
    /** The sum of their estimates (migration 0018), kept by the same trigger. */
    estimate: numeric('estimate', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.status] })],
);

/**
 * The bytes of each project's stored files, each distinct sha256 once, kept by statement triggers
 * on `attachments` (migration 0018) under the project's files lock; no row until its first file.
 */
export const projectStorage = pgTable('project_storage', {
  projectId: uuid('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  bytes: bigint('bytes', { mode: 'number' }).notNull(),
});

export const comments = pgTable(
  'comments',
  {
    id: uuid('id').primaryKey(),
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    /** The task's project (a task never changes project): a search reaches the reader's comments through their projects (migration 0027). */
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    authorId: uuid('author_id')
      .notNull()
      .references(() => users.id),
    text: text('text').notNull(),
    /** The users the comment mentions (members of the project when written). */
    mentionIds: uuid('mention_ids').array().notNull().default(sql`'{}'::uuid[]`),
    ...timestamps,
  },
  (table) => [
    index('comments_task_idx').on(table.taskId, table.createdAt, table.id),
    index('comments_project_idx').on(table.projectId),
    // Search (migration 0020): see tasks_search_idx.
    index('comments_search_idx').using('gin', sql`search_vector`),
  ],
);

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    status: integer('status').notNull(),
    body: text('body').notNull(),
    createdAt: timestamps.createdAt,
  },
  (table) => [uniqueIndex('idempotency_keys_user_key').on(table.userId, table.key)],
);


/**
 * Every change of a project, written in the change's own transaction. The id is the event id of the
 * live stream, so it increases (per project in commit order: writers hold a per-project advisory
 * lock). No foreign key to projects: a project's deletion leaves its `project.deleted` entry behind
 * for the streams and webhooks still to hear of it; the project's earlier history is deleted with it.
 */
export const activity = pgTable(
  'activity',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    projectId: uuid('project_id').notNull(),
    /** The task a task or comment event concerns; null for project and member events. */
    taskId: uuid('task_id'),
    /** A relation event's other task, when in the same project: its history lists the event too. */
    relatedTaskId: uuid('related_task_id'),
    actorId: uuid('actor_id').notNull(),
    type: text('type').notNull(),
    /** The resource as it is after the change (before it, for deletions). */
    resource: jsonb('resource').notNull(),
    /** For updates: each changed field with its old and new value. */
    changes: jsonb('changes'),
    createdAt: timestamps.createdAt,
    /**
     * When the event dispatcher (apps/server/src/events/dispatcher.ts) did the work derived from it
     * (notifications, webhook deliveries), in the transaction that wrote that work; null until then.
     */
    dispatchedAt: timestamptz('dispatched_at'),
  },
  (table) => [
    index('activity_project_idx').on(table.projectId, table.id),
    index('activity_task_idx').on(table.taskId, table.id),
    index('activity_related_task_idx').on(table.relatedTaskId, table.id).where(sql`${table.relatedTaskId} is not null`),
    index('activity_undispatched_idx').on(table.id).where(sql`${table.dispatchedAt} is null`),
  ],
);

export const TASK_RELATION_TYPES = ['blocks', 'relates_to', 'duplicates'] as const;

/**
 * A relation from `taskId` (the source: it blocks, relates to or duplicates) to `relatedTaskId`
 * (the target), possibly in another project; deleted with either task (migration 0012).
 */
export const taskRelations = pgTable(
  'task_relations',
  {
    id: uuid('id').primaryKey(),
    type: text('type', { enum: TASK_RELATION_TYPES }).notNull(),
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    relatedTaskId: uuid('related_task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamps.createdAt,
  },
  (table) => [
    check('task_relations_type_check', sql`${table.type} in ('blocks', 'relates_to', 'duplicates')`),
    check('task_relations_not_self', sql`${table.taskId} <> ${table.relatedTaskId}`),
    // The same relation twice is impossible; `relates_to` is symmetric: one per unordered pair.
    uniqueIndex('task_relations_outgoing_key').on(table.taskId, table.type, table.relatedTaskId),
    index('task_relations_incoming_idx').on(table.relatedTaskId, table.type),
    uniqueIndex('task_relations_relates_to_key')
      .on(sql`least(${table.taskId}, ${table.relatedTaskId})`, sql`greatest(${table.taskId}, ${table.relatedTaskId})`)
      .where(sql`${table.type} = 'relates_to'`),
  ],
);

export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').primaryKey(),
    /** Null once the project is deleted: the webhook lives on until its last deliveries are sent. */
    projectId: uuid('project_id').references(() => projects.id, { onDelete: 'set null' }),
    /**
     * The deleted project it belonged to: set with projectId's null by the project's deletion, so the
     * events of that project dispatched after it (project.deleted among them) still reach it.
     */
    formerProjectId: uuid('former_project_id'),
    url: text('url').notNull(),
    /** Event types to deliver; empty means every type. */
    events: text('events').array().notNull().default(sql`'{}'::text[]`),
    active: boolean('active').notNull().default(true),
    secret: text('secret').notNull(),
    /** Why the service disabled it (after failing deliveries); cleared when re-enabled. */
    disabledReason: text('disabled_reason'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    createdById: uuid('created_by_id').notNull(),
    ...timestamps,
  },
  (table) => [index('webhooks_project_idx').on(table.projectId, table.id)],
);

export const deliveryStateEnum = pgEnum('delivery_state', ['PENDING', 'DELIVERED', 'FAILED']);

/** The webhook outbox: one row per (webhook, event), written in the change's transaction. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    /** Null for a test delivery (POST …/webhooks/{id}/test), which no event caused. */
    eventId: bigint('event_id', { mode: 'number' }),
    eventType: text('event_type').notNull(),
    /** Deliveries with the same key (the task, else the project) are sent one at a time, in order. */
    orderingKey: uuid('ordering_key').notNull(),
    /** The exact body sent on every attempt. */
    payload: text('payload').notNull(),
    state: deliveryStateEnum('state').notNull().default('PENDING'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().default(sql`now()`),
    /** Set while one instance is sending it, so no other instance sends it too. */
    leasedUntil: timestamptz('leased_until'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    deliveredAt: timestamptz('delivered_at'),
    ...timestamps,
  },
  (table) => [
    index('webhook_deliveries_due_idx').on(table.nextAttemptAt).where(sql`${table.state} = 'PENDING'`),
    index('webhook_deliveries_queue_idx')
      .on(table.webhookId, table.orderingKey, table.id)
      .where(sql`${table.state} = 'PENDING'`),
    index('webhook_deliveries_log_idx').on(table.webhookId, table.id),
    // One delivery per webhook and event, however often the event is dispatched.
    uniqueIndex('webhook_deliveries_event_key').on(table.webhookId, table.eventId),
  ],
);

/** Tokens revoked by POST /auth/logout, kept until they would have expired anyway. */
export const revokedTokens = pgTable(
  'revoked_tokens',
  {
    jti: text('jti').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (table) => [index('revoked_tokens_expires_idx').on(table.expiresAt)],
);

/**
 * A signed-in session: one row per login token (its `jti` is the row's id). The token holds only
 * while its row exists, so deleting the row signs that session out on every instance (migration
 * 0005's trigger announces it like a logout).
 */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** How the session began: `password` or `oidc` (single sign-on). */
    method: text('method').notNull(),
    userAgent: text('user_agent'),
    /** The client's address as the server saw it (behind a proxy, per TRUST_PROXY). */
    ip: text('ip'),
    createdAt: timestamps.createdAt,
    lastUsedAt: timestamptz('last_used_at').notNull().default(sql`now()`),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (table) => [index('sessions_user_idx').on(table.userId, table.id)],
);

/**
 * Personal access tokens for scripts: only a SHA-256 digest of the secret is kept. Revoking one
 * deletes its row, announced to every instance (migration 0005's trigger).
 */
export const personalAccessTokens = pgTable(
  'personal_access_tokens',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Hex SHA-256 of the whole token (`tl_pat_…`). */
    tokenHash: text('token_hash').notNull(),
    scopes: text('scopes').array().notNull(),
    /** The projects the token may reach; null for every project of its owner. */
    projectIds: uuid('project_ids').array(),
    expiresAt: timestamptz('expires_at'),
    lastUsedAt: timestamptz('last_used_at'),
    createdAt: timestamps.createdAt,
  },
  (table) => [
    uniqueIndex('personal_access_tokens_hash_key').on(table.tokenHash),
    index('personal_access_tokens_user_idx').on(table.userId, table.id),
  ],
);

/**
 * A user's calendar feed (issue 37): the SHA-256 of the secret token in its address. One per user
 * (the user id is the key), so making a new address replaces the old one.
 */
export const calendarFeeds = pgTable(
  'calendar_feeds',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Hex SHA-256 of the token in the feed's address. */
    tokenDigest: text('token_digest').notNull(),
    createdAt: timestamps.createdAt,
  },
  (table) => [uniqueIndex('calendar_feeds_token_digest_key').on(table.tokenDigest)],
);

/**
 * Single-use codes (a password reset link, the hand-over of a single sign-on to the web app). The
 * code a user holds is this id with an HMAC of it under the server's secret, so the database never
 * holds a usable code; using one deletes its row.
 */
export const oneTimeCodes = pgTable(
  'one_time_codes',
  {
    id: uuid('id').primaryKey(),
    purpose: text('purpose').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamptz('expires_at').notNull(),
    createdAt: timestamps.createdAt,
  },
  (table) => [index('one_time_codes_expires_idx').on(table.expiresAt)],
);

/** An account of an OpenID provider (issuer and subject) linked to a user. */
export const userIdentities = pgTable(
  'user_identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamps.createdAt,
  },
  (table) => [primaryKey({ columns: [table.issuer, table.subject] }), index('user_identities_user_idx').on(table.userId)],
);

export const mailStateEnum = pgEnum('mail_state', ['PENDING', 'FAILED']);

/**
 * The email outbox: a message is written in the transaction of the change that causes it and sent
 * afterwards by a background sender (apps/server/src/platform/mail). `kind` names the template that renders
 * `data` at sending time; a sent message's row is deleted.
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    kind: text('kind').notNull(),
    recipient: text('recipient').notNull(),
    data: jsonb('data').notNull(),
    state: mailStateEnum('state').notNull().default('PENDING'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().default(sql`now()`),
    /** Set while one instance is sending it, so no other instance sends it too. */
    leasedUntil: timestamptz('leased_until'),
    lastError: text('last_error'),
    ...timestamps,
  },
  (table) => [index('mail_outbox_due_idx').on(table.nextAttemptAt).where(sql`${table.state} = 'PENDING'`)],
);

/**
 * Who watches a task: its creator, its assignee, everyone who commented on it or was mentioned in
 * it are added automatically, in the transaction of that change; `subscribed` false is an explicit
 * opt-out (DELETE /tasks/{id}/subscription), which later comments leave alone and only a mention,
 * an assignment or PUT /tasks/{id}/subscription undo.
 */
export const taskWatchers = pgTable(
  'task_watchers',
  {
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    subscribed: boolean('subscribed').notNull().default(true),
    ...timestamps,
  },
  (table) => [primaryKey({ columns: [table.taskId, table.userId] }), index('task_watchers_user_idx').on(table.userId)],
);

/**
 * A user's in-app notifications, written in the transaction of the change that causes them
 * (apps/server/src/resources/notifications). `seq` orders one user's notifications in commit order (writers
 * hold a per-recipient advisory lock): the live stream's event id and the lists' cursor. Reads show
 * only those of projects the recipient is still a member of.
 */
export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** `task.assigned`, `comment.mentioned`, `comment.created`, `task.status_changed`, `task.due_soon` or `member.added`. */
    kind: text('kind').notNull(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    taskId: uuid('task_id').references(() => tasks.id, { onDelete: 'cascade' }),
    commentId: uuid('comment_id').references(() => comments.id, { onDelete: 'set null' }),
    /** Who caused it; null for reminders, which the service sends itself. */
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamps.createdAt,
    readAt: timestamptz('read_at'),
  },
  (table) => [
    uniqueIndex('notifications_user_seq_key').on(table.userId, table.seq),
    index('notifications_unread_idx').on(table.userId, table.seq).where(sql`${table.readAt} is null`),
  ],
);

/** Due reminders sent, one per task and due date: the scheduler never reminds of the same due date twice. */
export const dueReminders = pgTable(
  'due_reminders',
  {
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    dueDate: timestamptz('due_date').notNull(),
    createdAt: timestamps.createdAt,
  },
  (table) => [primaryKey({ columns: [table.taskId, table.dueDate] })],
);

export const notificationEmailEnum = pgEnum('notification_email', ['off', 'instant', 'daily']);

/**
 * A user's choice of notification email (apps/server/src/resources/notification-email); no row means the
 * default, `instant`. `last_digest_on` is the day whose digest was last queued (or skipped), so a
 * digest goes out once per day however many instances run and however often they restart.
 */
export const notificationSettings = pgTable(
  'notification_settings',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    email: notificationEmailEnum('email').notNull().default('instant'),
    lastDigestOn: date('last_digest_on', { mode: 'string' }),
    ...timestamps,
  },
  (table) => [index('notification_settings_daily_idx').on(table.lastDigestOn).where(sql`${table.email} = 'daily'`)],
);

/**
 * Notifications handled by email: one row each, written in the transaction that queues its email
 * (alone or in a digest), so none is mailed twice.
 */
export const notificationMails = pgTable(
  'notification_mails',
  {
    notificationId: uuid('notification_id')
      .primaryKey()
      .references(() => notifications.id, { onDelete: 'cascade' }),
    /** `instant` or `digest`. */
    via: text('via').notNull(),
    createdAt: timestamps.createdAt,
  },
);

/**
 * A file attached to a task (migration 0014), optionally named by one of its comments. The bytes are
 * not here: they are the blob `<projectId>/<sha256>` of the file store (local or S3), shared by every
 * row of the project with the same sha256 and removed only once no row names it.
 */
export const attachments = pgTable(
  'attachments',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    commentId: uuid('comment_id').references(() => comments.id, { onDelete: 'set null' }),
    /** As given by the uploader, for display: control characters and path separators removed, ≤ 255 bytes. */
    filename: text('filename').notNull(),
    /** Decided from the bytes (file-type), never the client's word. */
    contentType: text('content_type').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    /** Lower-case hex SHA-256 of the bytes: the blob's key within the project. */
    sha256: text('sha256').notNull(),
    uploaderId: uuid('uploader_id').references(() => users.id, { onDelete: 'set null' }),
    /** Whether a preview exists (or can be made): a PNG, JPEG, GIF or WebP of at most 50 megapixels. */
    thumbnail: boolean('thumbnail').notNull(),
    createdAt: timestamps.createdAt,
  },
  (table) => [
    check('attachments_sha256_check', sql`${table.sha256} ~ '^[0-9a-f]{64}$'`),
    check('attachments_size_check', sql`${table.size} >= 0`),
    index('attachments_task_idx').on(table.taskId, table.createdAt, table.id),
    index('attachments_project_sha256_idx').on(table.projectId, table.sha256),
    index('attachments_comment_idx').on(table.commentId).where(sql`${table.commentId} is not null`),
  ],
);
/** Time logged on a task (migration 0017): whole minutes on a UTC date, by hand or by a stopped timer. */
export const timeEntries = pgTable(
  'time_entries',
  {
    id: uuid('id').primaryKey(),
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    minutes: integer('minutes').notNull(),
    date: date('date', { mode: 'string' }).notNull(),
    note: text('note').notNull().default(''),
    ...timestamps,
  },
  (table) => [
    index('time_entries_task_idx').on(table.taskId, table.createdAt, table.id, table.minutes),
    index('time_entries_task_date_idx').on(table.taskId, table.date),
  ],
);

/** A user's running timer: at most one, the user being the key (migration 0017). */
export const timers = pgTable(
  'timers',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    startedAt: timestamptz('started_at').notNull(),
  },
  (table) => [index('timers_task_idx').on(table.taskId)],
);

/**
 * Saved views (GET /projects/{id}/views): a name, a layout and the task list's filters and sort. A
 * personal view is its owner's alone; a shared one every member sees. Gone with its project, or its
 * owner's account.
 */
export const views = pgTable(
  'views',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** board, list, calendar or timeline. */
    layout: text('layout').notNull(),
    /** The task list's filter parameters, as the API took them. */
    filters: jsonb('filters').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    sort: text('sort'),
    shared: boolean('shared').notNull().default(false),
    ...timestamps,
  },
  // The order of GET /projects/{id}/views (by name regardless of case, then id), so it pages by this index.
  (table) => [index('views_project_name_idx').on(table.projectId, sql`lower(${table.name})`, table.id)],
);

/**
 * Invitations of people without an account (issue 39): one per project and email, until it is
 * accepted (its row goes), revoked (likewise) or expires. Only the SHA-256 of the link's token is
 * kept, so a database dump hands out no link.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** Lower case, as the API's emails are. */
    email: text('email').notNull(),
    role: roleEnum('role').notNull(),
    /** Hex SHA-256 of the token in the invitation's link. */
    tokenDigest: text('token_digest').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    ...timestamps,
  },
  (table) => [uniqueIndex('invitations_project_email_key').on(table.projectId, table.email), uniqueIndex('invitations_token_digest_key').on(table.tokenDigest)],
);

/**
 * Imports (migration 0026, issue 38): a file to become a project and its job, which survives a
 * restart and which any instance can run; `locked_until` is the lease of the instance running it.
 * The file waits in the blob store under `imports/<id>` while the import is pending or running.
 */
export const imports = pgTable(
  'imports',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    status: text('status', { enum: ['pending', 'running', 'succeeded', 'failed'] }).notNull(),
    mapping: jsonb('mapping').$type<Record<string, unknown>>(),
    progressDone: integer('progress_done').notNull().default(0),
    progressTotal: integer('progress_total').notNull().default(0),
    counts: jsonb('counts').$type<Record<string, number>>(),
    warnings: jsonb('warnings').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    projectId: uuid('project_id').references(() => projects.id, { onDelete: 'set null' }),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    lockedUntil: timestamptz('locked_until'),
    finishedAt: timestamptz('finished_at'),
    ...timestamps,
  },
  (table) => [
    index('imports_pending_idx').on(table.createdAt).where(sql`${table.status} in ('pending', 'running')`),
    check('imports_status_check', sql`${table.status} in ('pending', 'running', 'succeeded', 'failed')`),
  ],
);
