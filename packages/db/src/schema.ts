import { index, integer, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
};

export const roleEnum = pgEnum('member_role', ['VIEWER', 'EDITOR', 'ADMIN']);
export const taskStatusEnum = pgEnum('task_status', ['TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELLED']);
/** Declared in rank order, so ORDER BY priority sorts by rank. */
export const taskPriorityEnum = pgEnum('task_priority', ['LOW', 'MEDIUM', 'HIGH', 'URGENT']);

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** Bumped to revoke every token issued before it. */
    tokenVersion: integer('token_version').notNull().default(0),
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
  ...timestamps,
});

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
    status: taskStatusEnum('status').notNull().default('TODO'),
    priority: taskPriorityEnum('priority').notNull().default('MEDIUM'),
    dueDate: timestamp('due_date', { withTimezone: true, mode: 'date', precision: 3 }),
    assigneeId: uuid('assignee_id').references(() => users.id, { onDelete: 'set null' }),
    createdById: uuid('created_by_id')
      .notNull()
      .references(() => users.id),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date', precision: 3 }),
    ...timestamps,
  },
  (table) => [
    // One index per sort the list offers, each ending in id so keyset paging is stable.
    index('tasks_project_created_idx').on(table.projectId, table.createdAt, table.id),
    index('tasks_project_updated_idx').on(table.projectId, table.updatedAt, table.id),
    index('tasks_project_due_idx').on(table.projectId, table.dueDate, table.id),
    index('tasks_project_priority_idx').on(table.projectId, table.priority, table.id),
    index('tasks_project_title_idx').on(table.projectId, table.title, table.id),
    index('tasks_project_status_idx').on(table.projectId, table.status, table.createdAt, table.id),
    index('tasks_project_assignee_idx').on(table.projectId, table.assigneeId, table.createdAt, table.id),
    index('tasks_assignee_idx').on(table.assigneeId, table.createdAt, table.id),
  ],
);

export const comments = pgTable(
  'comments',
  {
    id: uuid('id').primaryKey(),
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    authorId: uuid('author_id')
      .notNull()
      .references(() => users.id),
    text: text('text').notNull(),
    ...timestamps,
  },
  (table) => [index('comments_task_idx').on(table.taskId, table.createdAt, table.id)],
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

