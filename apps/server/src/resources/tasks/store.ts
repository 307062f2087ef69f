import { arrayLiteral, attachments, type Db, labels, memberships, projectKeys, projects, projectStates, stateCategoryIn, taskFieldValues, tasks, users } from '@tasklane/db';
import { type FieldValue, type Role, type StateCategory, TASK_PRIORITIES, type TaskPriority, type TaskSortField } from '@tasklane/schemas';
import type { FieldFilter, FieldSort } from './field-values';
import { type CompletingTasks, completingTaskIds } from './completing';
import { alias, type PgColumn, PgTransaction } from 'drizzle-orm/pg-core';
import { type SQL, and, asc, desc, eq, getTableColumns, gt, ilike, inArray, isNull, lt, max, min, ne, or, sql } from 'drizzle-orm';
import { type CursorCheck, type CursorValue, cursorChecks } from '../../platform/paging';
import { nextVersionSql } from '../../platform/versions';
import { PROJECT_LOCK_CLASS, TASK_TREE_LOCK_CLASS } from '../../platform/locks';
import { currentHandle } from '../../platform/ambient-transaction';
import { aliased, builtOnce, rowDecoder, rowsOf } from '../../platform/sql';

/** A task's columns, as its insert writes them. */
export type TaskColumns = typeof tasks.$inferSelect;
/** A task as every read gives it: its columns and what taskReadExtras computes. */
export type TaskRow = TaskColumns & { projectKey: string; subtaskCount: number; subtasksDone: number; blocked: boolean; attachmentCount: number; timeSpentMinutes: number; fields: Record<string, FieldValue> };

/*
 * Where a new task field goes: its column in packages/db/src/schema.ts (with its migration), its
 * field in TaskSchema (packages/schemas) and in toTask (service.ts); if a write sets it, the
 * create's row and columnsToSet in service.ts too (and TRACKED_TASK_FIELDS if its history should
 * show it). Nothing in this file: every read selects all of the table's columns (taskColumns) and
 * every write takes a TaskRow, so a column of the table is read and written without naming it here.
 */
const taskColumns = getTableColumns(tasks);

/** Whether the task whose project and status are given is closed: in a completed or cancelled state. */
const closedSql = (task: { projectId: SQL; status: SQL }) => stateCategoryIn(task, ['completed', 'cancelled']);

/*
 * What every read computes beside a task's columns, as scalar subqueries like callerRole below
 * (the task's columns inside a nested condition or the template, so drizzle qualifies them): its
 * project's current key; its subtasks counted, all and completed ones, from the small partial
 * index of subtasks (tasks_parent_status_idx), which answers both without reading a row; and
 * whether it is blocked: a task blocking it is still open, an EXISTS on task_relations_incoming_idx,
 * which holds only relations, so for almost every task it finds no entry and costs one index probe.
 * Counted when read rather than kept on the task: no write locks a parent's or a blocked task's row
 * for another's sake, and the figures follow any change of what "completed" means. Its attachments
 * are counted the same way, on attachments_task_idx (task_id first): an upload or a delete never
 * locks the task's row.
 */
const taskReadExtras = {
  projectKey: sql<string>`(select ${projects.key} from ${projects} where ${eq(projects.id, tasks.projectId)})`,
  subtaskCount: sql<number>`(select count(*)::int from ${tasks} as subtask where ${eq(sql`subtask.parent_id`, tasks.id)})`,
  subtasksDone: sql<number>`(select count(*)::int from ${tasks} as subtask where ${and(eq(sql`subtask.parent_id`, tasks.id), stateCategoryIn({ projectId: sql`subtask.project_id`, status: sql`subtask.status` }, ['completed']))})`,
  attachmentCount: sql<number>`(select count(*)::int from ${attachments} where ${eq(attachments.taskId, tasks.id)})`,
  // The minutes logged on the task: an index-only sum over time_entries_task_idx (migration 0017).
  timeSpentMinutes: sql<number>`(select coalesce(sum(entry.minutes), 0)::int from time_entries as entry where entry.task_id = "tasks"."id")`,
  blocked: sql<boolean>`exists (select 1 from task_relations as blocking join tasks as blocker on blocker.id = blocking.task_id where blocking.related_task_id = "tasks"."id" and blocking.type = 'blocks' and not ${closedSql({ projectId: sql.raw('blocker.project_id'), status: sql.raw('blocker.status') })})`,
  // Its custom field values (migration 0015), from the values' primary key: one probe per task.
  fields: sql<Record<string, FieldValue>>`(select coalesce(jsonb_object_agg(value_of.field_id, value_of.value), '{}'::jsonb) from task_field_values as value_of where value_of.task_id = "tasks"."id")`.mapWith(
    (value: unknown) => fieldsOf(value),
  ),
};

/** The jsonb of a task's `fields`, which one driver gives as text. */
function fieldsOf(value: unknown): Record<string, FieldValue> {
  return (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, FieldValue>;
}

/** What a bulk update returns: rows as every read gives them (toTask maps them). */
const taskRowReturning = { ...taskColumns, ...taskReadExtras };

/**
 * The one read of tasks: every column and taskReadExtras (toTask maps a row to what the API
 * shows), plus `extra` columns computed for the caller. A task row is read so by the task's get,
 * the lists and the writes (FOR NO KEY UPDATE), and by the comments' task lookup through the tasks service.
 */
const selectTasks = <Extra extends Record<string, SQL>>(db: Db, extra: Extra) => db.select({ ...taskRowReturning, ...extra }).from(tasks);

/*
 * The caller's role in the task's project (null: not a member), the project's owner and the
 * caller's name, as scalar subqueries rather than joins (see callerRoleIn in policy/access.ts:
 * PGlite plans every statement, and a join cost it more to plan than to run). The task's column is
 * inside a nested condition (`eq`) because drizzle writes a one-table select's top-level columns
 * unqualified, and a bare "project_id" inside the subquery would be the membership's own.
 */
const callerRole = sql<Role | null>`(select ${memberships.role} from ${memberships} where ${and(eq(memberships.projectId, tasks.projectId), eq(memberships.userId, sql.placeholder('userId')))})`;
const projectOwner = sql<string>`(select ${projects.ownerId} from ${projects} where ${eq(projects.id, tasks.projectId)})`;
const callerName = sql<string | null>`(select ${users.name} from ${users} where ${eq(users.id, sql.placeholder('userId'))})`;

type RowLock = 'update' | 'no key update';

const callerExtras = (withName: boolean) => ({
  role: callerRole,
  ownerId: projectOwner,
  // A constant column when not asked for, so the row has one shape.
  callerName: withName ? callerName : sql<string | null>`null`,
});

/** The task with the caller's role (findTaskForUser), from `selection` (drizzle's plain one, or aliased for builtOnce). */
const taskForUserQuery = (db: Db, selection: ReturnType<typeof callerExtras> & typeof taskRowReturning, lock: RowLock | undefined) => {
  const query = db.select(selection).from(tasks).where(eq(tasks.id, sql.placeholder('taskId'))).limit(1);
  return lock ? query.for(lock, { of: tasks }) : query;
};

const taskForUser = (db: Db, lock: RowLock | undefined, withName: boolean) =>
  taskForUserQuery(db, { ...taskRowReturning, ...callerExtras(withName) }, lock).prepare('task_for_user');

/**
 * findTaskForUser's statement for transactions: a statement drizzle prepares belongs to the handle
 * it was built on, and a transaction's is new each time, so every write built this select of 40-odd
 * expressions afresh (a tenth of a task write's server CPU). Built once (builtOnce), it runs in any
 * transaction, its rows decoded by the decoder built with it. Not on the pool: there drizzle's
 * statement is prepared once anyway, and `db.execute`'s per-run build of the text and the driver's
 * rows as objects cost a task's GET 15 % more server CPU than drizzle's run and decoding of it
 * (docs/performance.md, "Writes that change something").
 */
const taskForUserInTransactions = (db: Db, lock: RowLock | undefined, withName: boolean) => {
  const selection = aliased({ ...taskRowReturning, ...callerExtras(withName) });
  const run = builtOnce(taskForUserQuery(db, selection, lock));
  const decode = rowDecoder<TaskForCaller>(selection, { fields: fieldsOf });
  return async (tx: Db, values: { taskId: string; userId: string }) => (await run(tx, values)).map(decode);
};
const inTransactions = new Map<string, ReturnType<typeof taskForUserInTransactions>>();

/** The most statements kept per handle: list shapes are bounded by the query's options, this only guards that. */
const MAX_PREPARED = 500;
const preparedStatements = new WeakMap<Db, Map<string, unknown>>();

/**
 * The statement `key` names, built by `build` and prepared (drizzle's public prepare(), its values
 * given as placeholders) once per database handle: the pool, or an open transaction, found by
 * currentHandle, as a service's `db` may stand for either. Building a select of a task's columns
 * afresh cost a task's GET about a third more server CPU than the statement it replaced, which
 * was built once, and a page a quarter more. A transaction's handle is new each time, so inside
 * one a statement is built once per write, and forgotten with the transaction (but for the one
 * every task write runs: taskForUserInTransactions).
 */
function preparedOn<Statement>(db: Db, key: string, build: (handle: Db) => Statement): Statement {
  const handle = currentHandle(db);
  let statements = preparedStatements.get(handle);
  if (!statements) preparedStatements.set(handle, (statements = new Map()));
  let statement = statements.get(key) as Statement | undefined;
  if (!statement) {
    statement = build(handle);
    if (statements.size < MAX_PREPARED) statements.set(key, statement);
  }
  return statement;
}

export type TaskForCaller = TaskRow & { role: Role; ownerId: string; callerName: string | null };

/**
 * A task with the caller's role in its project and the project's owner (and, `withName`, the
 * caller's name, which a new comment carries); undefined when the task is missing or the caller is
 * not a member. `lock` locks its row in the caller's transaction: FOR NO KEY UPDATE for an update
 * (what its UPDATE takes anyway; a comment's insertion, which only needs the row to stay, is not
 * held up), FOR UPDATE for a deletion (taken at once rather than upgraded from the weaker lock,
 * which would wait in a cycle with a comment's insertion holding the row FOR KEY SHARE).
 */
export async function findTaskForUser(
  db: Db,
  taskId: string,
  userId: string,
  options: { lock?: RowLock; withName?: boolean } = {},
): Promise<TaskForCaller | undefined> {
  const { lock, withName = false } = options;
  const key = `task:${lock ?? ''}:${withName}`;
  const handle = currentHandle(db);
  const inTransaction: boolean = handle instanceof PgTransaction;
  let rows: TaskForCaller[];
  if (inTransaction) {
    let statement = inTransactions.get(key);
    if (!statement) inTransactions.set(key, (statement = taskForUserInTransactions(handle, lock, withName)));
    rows = await statement(handle, { taskId, userId });
  } else {
    rows = (await preparedOn(db, key, (pool) => taskForUser(pool, lock, withName)).execute({ taskId, userId })) as TaskForCaller[];
  }
  const [row] = rows;
  return row?.role ? row : undefined;
}

/**
 * Of `taskIds` (well-formed ids), the tasks `userId` is a member of the project of (and, `within`
 * given, in those projects only), as little of each as a list of relations shows: the parts of its
 * key as every read gives them (the service joins them, as for a whole task).
 */
export const visibleTaskSummaries = (db: Db, taskIds: readonly string[], userId: string, within: readonly string[] | undefined) =>
  db
    .select({ id: tasks.id, projectKey: taskReadExtras.projectKey, number: tasks.number, title: tasks.title, status: tasks.status, projectId: tasks.projectId })
    .from(tasks)
    .where(
      and(
        sql`${tasks.id} = any(${arrayLiteral(taskIds)}::uuid[])`,
        sql`${tasks.projectId} in (select ${memberships.projectId} from ${memberships} where ${eq(memberships.userId, userId)})`,
        within ? sql`${tasks.projectId} = any(${arrayLiteral(within)}::uuid[])` : undefined,
      ),
    );

/**
 * How many of `labelIds` (well-formed ids, each once) are labels of the project, each found label
 * locked against deletion (FOR KEY SHARE) to the end of the caller's transaction: a label's
 * deletion locks its row first and takes it off its tasks after, so a write naming a label being
 * deleted waits, then finds it gone (a 400), and the deletion, once it has the lock, sees every
 * task that named it. Taken before the task's row, the lock order of platform/locks.ts.
 */
export const lockProjectLabels = (db: Db, projectId: string, labelIds: readonly string[]): Promise<number> =>
  db
    .select({ id: labels.id })
    .from(labels)
    .where(and(eq(labels.projectId, projectId), sql`${labels.id} = any(${arrayLiteral(labelIds)}::uuid[])`))
    .for('key share')
    .execute()
    .then((rows) => rows.length);

/**
 * The state of the project a task write sets, locked FOR KEY SHARE to the end of the caller's
 * transaction (its deletion waits, then moves or refuses the task: states/store.ts), with its
 * category; `key` undefined: the project's first `unstarted` state in board order, a new task's
 * default. Undefined when the project has no such state. Taken before the task's row (the lock
 * order of platform/locks.ts).
 */
export const lockState = async (db: Db, projectId: string, key: string | undefined): Promise<{ key: string; category: StateCategory } | undefined> =>
  (
    await db
      .select({ key: projectStates.key, category: projectStates.category })
      .from(projectStates)
      .where(and(eq(projectStates.projectId, projectId), key === undefined ? eq(projectStates.category, 'unstarted') : eq(projectStates.key, key)))
      .orderBy(asc(projectStates.position))
      .limit(1)
      .for('key share')
      .execute()
  )[0];

/**
 * The labels the tasks carry now, each locked FOR KEY SHARE to the end of the caller's transaction
 * (as lockProjectLabels), taken before the tasks' rows: what a completion copies to a task's next
 * occurrence (service.ts) cannot be deleted before that occurrence commits.
 */
export const lockLabelsOfTasks = (db: Db, which: CompletingTasks): Promise<string[]> =>
  db
    .select({ id: labels.id })
    .from(labels)
    .where(sql`${labels.id} = any(select unnest(${tasks.labelIds}) from ${tasks} where ${tasks.id} in (${completingTaskIds(which)}))`)
    .for('key share', { of: labels })
    .execute()
    .then((rows) => rows.map((row) => row.id));

/**
 * The tasks' parents, locked FOR KEY SHARE (as lockParent) before the tasks' rows: the next
 * occurrence a completion makes is a subtask of it too, and the parent's deletion (which locks it
 * FOR UPDATE, then its subtasks' rows) waits rather than crossing the completion's locks.
 */
export const lockParentsOfTasks = (db: Db, which: CompletingTasks) =>
  db.execute(
    sql`select ${tasks.id} from ${tasks} where ${tasks.id} in (select parent_id from ${tasks} as child where child.id in (${completingTaskIds(which)})) order by ${tasks.id} for key share`,
  );

/** Whether the task already made its next occurrence (served by tasks_recurred_from_key). */
export const hasOccurrence = (db: Db, taskId: string): Promise<boolean> =>
  db
    .select({ id: tasks.id })
    .from(tasks)
    .where(eq(tasks.recurredFromId, taskId))
    .limit(1)
    .execute()
    .then((rows) => rows.length > 0);

/**
 * A task's next occurrence: inserted unless the task already has one (the unique index
 * tasks_recurred_from_key, ON CONFLICT DO NOTHING), so no retry, reopening or other instance makes
 * a second; whether it was inserted.
 */
export const insertOccurrence = (db: Db, row: TaskColumns): Promise<boolean> =>
  db
    .insert(tasks)
    .values(row)
    .onConflictDoNothing()
    .returning({ id: tasks.id })
    .execute()
    .then((rows) => rows.length > 0);

/** The project's tasks in state `key`, each row locked FOR NO KEY UPDATE (to be moved to another state), in id order. */
export const lockTasksInState = (db: Db, projectId: string, key: string): Promise<TaskRow[]> =>
  selectTasks(db, {}).where(and(eq(tasks.projectId, projectId), eq(tasks.status, key))).orderBy(asc(tasks.id)).for('no key update').execute();

/**
 * Takes the project's advisory lock (PROJECT_LOCK_CLASS, which the write's recordEvent takes
 * anyway, last) now, so the positions read after it in the transaction stay as read until commit:
 * every write that chooses a position (a task's creation, a move) holds it from its read of the
 * neighbours to its commit. Taken after every row lock of the write (the lock order of
 * platform/locks.ts). Send it before the reads, in its own statement: a statement's snapshot is
 * taken when it starts, so a read in the same statement would not see what the lock waited for.
 */
export const lockPositions = (db: Db, projectId: string) => db.execute(sql`select pg_advisory_xact_lock(${PROJECT_LOCK_CLASS}, hashtext(${projectId}::uuid::text))`);

/** The position, status and project of each of `taskIds` (well-formed ids) found. */
export const findPlaces = (db: Db, taskIds: string[]) =>
  db.select({ id: tasks.id, projectId: tasks.projectId, status: tasks.status, position: tasks.position }).from(tasks).where(inArray(tasks.id, taskIds)).execute();

/**
 * The project's position next to `position` on `side` (the smallest one after it, the largest one
 * before it; with `position` null, the first or last of the project), leaving out `exceptId` (the
 * task being moved); null when there is none. Served by tasks_project_position_key.
 */
export async function adjacentPosition(db: Db, projectId: string, side: 'after' | 'before', position: string | null, exceptId: string | null): Promise<string | null> {
  const [row] = await db
    .select({ position: side === 'after' ? min(tasks.position) : max(tasks.position) })
    .from(tasks)
    .where(
      and(
        eq(tasks.projectId, projectId),
        position === null ? undefined : side === 'after' ? gt(tasks.position, position) : lt(tasks.position, position),
        exceptId === null ? undefined : ne(tasks.id, exceptId),
      ),
    )
    .execute();
  return row?.position ?? null;
}

/*
 * The writes below return the driver's promise from `.execute()`, so calling one sends its
 * statement at once: a caller may issue the change's history entry right after without awaiting
 * in between, and postgres.js pipelines the two in their order (one round trip, not two, while the
 * task's row is locked).
 */

export const insertTask = (db: Db, row: TaskColumns) => db.insert(tasks).values(row).execute();

/**
 * The number of a new task in the project and the project's key, taken from the project's counter
 * in the creating transaction: its row stays locked to the commit (FOR NO KEY UPDATE, which the
 * project's other writes, holding it FOR KEY SHARE, do not wait for), so concurrent creations take
 * distinct consecutive numbers, and a number is never given back, even when its task is deleted.
 */
export const takeTaskNumber = async (db: Db, projectId: string): Promise<{ number: number; projectKey: string }> =>
  (
    await db
      .update(projects)
      .set({ nextTaskNumber: sql`${projects.nextTaskNumber} + 1` })
      .where(eq(projects.id, projectId))
      .returning({ number: sql<number>`${projects.nextTaskNumber} - 1`, projectKey: projects.key })
  )[0]!;

/** The id of the task a key names (`stem` in upper case: the project's key, current or former), if any. */
export const findTaskIdByKey = async (db: Db, stem: string, number: number): Promise<string | undefined> =>
  (
    await db
      .select({ id: tasks.id })
      .from(tasks)
      .innerJoin(projectKeys, eq(projectKeys.projectId, tasks.projectId))
      .where(and(eq(projectKeys.key, stem), eq(tasks.number, number)))
      .limit(1)
  )[0]?.id;

/**
 * Whether `parentId` is a task of the project, its row locked FOR KEY SHARE to the end of the
 * caller's transaction, so it cannot be deleted before the write that names it commits (its
 * deletion would then detach a subtask it never saw). Taken before the written task's row: a
 * parent's row comes before its subtasks' (platform/locks.ts).
 */
export const lockParent = (db: Db, projectId: string, parentId: string): Promise<boolean> =>
  db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.id, parentId), eq(tasks.projectId, projectId)))
    .for('key share')
    .execute()
    .then((rows) => rows.length > 0);

/**
 * Held to the end of the caller's transaction: moves under another parent in the project, one at a
 * time, so each one's ancestor check (wouldCycle) sees the others' committed parents.
 */
export const lockTaskTree = (db: Db, projectId: string) =>
  db.execute(sql`select pg_advisory_xact_lock(${TASK_TREE_LOCK_CLASS}, hashtext(${projectId}::uuid::text))`);

/** Whether `taskId` is `parentId` or one of its ancestors: making it `parentId`'s subtask would close a cycle. */
export async function wouldCycle(db: Db, taskId: string, parentId: string): Promise<boolean> {
  const [row] = rowsOf<{ cycle: boolean }>(
    await db.execute(sql`
      with recursive ancestors(id, parent_id) as (
        select ${tasks.id}, ${tasks.parentId} from ${tasks} where ${tasks.id} = ${parentId}::uuid
        union
        select up.id, up.parent_id from ${tasks} as up join ancestors on up.id = ancestors.parent_id
      )
      select exists (select 1 from ancestors where id = ${taskId}::uuid) as cycle`),
  );
  return row?.cycle === true;
}

/** A deleted task's subtasks become top-level (a new version each), their rows locked after the parent's. */
export const detachSubtasks = (db: Db, parentId: string) =>
  db
    .update(tasks)
    .set({ parentId: null, updatedAt: nextVersionSql(tasks.updatedAt) })
    .where(eq(tasks.parentId, parentId))
    .returning(taskRowReturning);

export const updateTask = (db: Db, taskId: string, set: Partial<TaskRow>) => db.update(tasks).set(set).where(eq(tasks.id, taskId)).execute();

export const deleteTask = (db: Db, taskId: string) => db.delete(tasks).where(eq(tasks.id, taskId)).execute();

/** A deleted label leaves the project's tasks that carried it (a new version each). */
export const removeLabel = (db: Db, projectId: string, labelId: string) =>
  db
    .update(tasks)
    .set({ labelIds: sql`array_remove(${tasks.labelIds}, ${labelId}::uuid)`, updatedAt: nextVersionSql(tasks.updatedAt) })
    .where(and(eq(tasks.projectId, projectId), sql`${tasks.labelIds} @> array[${labelId}::uuid]`))
    .returning(taskRowReturning);

/** A member who leaves keeps no tasks: theirs in this project become unassigned (a new version each). */
export const unassignTasks = (db: Db, projectId: string, userId: string) =>
  db
    .update(tasks)
    .set({ assigneeId: null, updatedAt: nextVersionSql(tasks.updatedAt) })
    .where(and(eq(tasks.projectId, projectId), eq(tasks.assigneeId, userId)))
    .returning(taskRowReturning);

export interface TaskFilters {
  /** State keys. */
  statuses?: string[];
  /** Tasks in a state of any of these categories. */
  statusCategories?: StateCategory[];
  priorities?: TaskPriority[];
  /** A user id, or null for unassigned tasks. */
  assigneeId?: string | null;
  dueBefore?: Date;
  dueAfter?: Date;
  /** Tasks starting strictly before / after: one without a start date matches neither. */
  startBefore?: Date;
  startAfter?: Date;
  text?: string;
  /** Tasks carrying any of these labels. */
  labelIds?: string[];
  /** Subtasks of this task, or null for top-level tasks. */
  parentId?: string | null;
  /** A task key in `text` (the stem upper case): that task matches too. */
  key?: { stem: string; number: number };
  /** Custom field filters (fields/values.ts), all of which a task matches. */
  fields?: FieldFilter[];
}

export interface TaskOrder {
  field: TaskSortField;
  descending: boolean;
}

/*
 * The sorts by what other rows say of a task (no column of its own holds it): its state's place in
 * its project's workflow (the board's column order; null for a status no state has, listed last)
 * and its assignee's name regardless of case (null: unassigned, listed last). Each is read by a
 * left join of that row, its value selected as `sortValue` for the page's cursor.
 */
const sortState = alias(projectStates, 'sort_state');
const sortAssignee = alias(users, 'sort_assignee');
const JOINED_SORTS = {
  status: { value: sql<number | null>`${sortState.position}`, join: { table: sortState, on: and(eq(sortState.projectId, tasks.projectId), eq(sortState.key, tasks.status)) } },
  assignee: { value: sql<string | null>`lower(${sortAssignee.name})`, join: { table: sortAssignee, on: eq(sortAssignee.id, tasks.assigneeId) } },
};
type JoinedSort = keyof typeof JOINED_SORTS;
export const isJoinedSort = (field: TaskSortField): field is JoinedSort => Object.hasOwn(JOINED_SORTS, field);

const SORT_COLUMNS: Record<TaskSortField, SQL | PgColumn> = {
  createdAt: tasks.createdAt,
  updatedAt: tasks.updatedAt,
  dueDate: tasks.dueDate,
  priority: tasks.priority,
  title: tasks.title,
  position: tasks.position,
  status: JOINED_SORTS.status.value,
  assignee: JOINED_SORTS.assignee.value,
};

/** The sorts whose value may be null: those tasks sort last ascending and first descending, as PostgreSQL orders NULLs. */
const NULLABLE_SORTS: ReadonlySet<TaskSortField> = new Set(['dueDate', 'status', 'assignee']);

/** The SQL type of each sort's cursor value, which reaches the statement as text. */
const SORT_CASTS: Record<TaskSortField, SQL> = {
  createdAt: sql.raw('timestamptz'),
  updatedAt: sql.raw('timestamptz'),
  dueDate: sql.raw('timestamptz'),
  priority: sql.raw('task_priority'),
  title: sql.raw('text'),
  // Compared as the column is (byte order), whatever the parameter's collation.
  position: sql.raw('text collate "C"'),
  status: sql.raw('integer'),
  assignee: sql.raw('text'),
};

/** What the first cursor value must be under each sort, so a forged cursor is a 400, not a SQL error. */
export const SORT_CURSOR_CHECKS: Record<TaskSortField, CursorCheck> = {
  createdAt: cursorChecks.timestamp,
  updatedAt: cursorChecks.timestamp,
  dueDate: cursorChecks.nullableTimestamp,
  priority: cursorChecks.oneOf(TASK_PRIORITIES),
  title: cursorChecks.text,
  position: cursorChecks.text,
  status: (value) => value === null || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0),
  assignee: (value) => value === null || cursorChecks.text(value),
};

/** The cursor of a listed task (as the API shows it): its sort value and its id (the tie-breaker). */
export const cursorOf = <Field extends Exclude<TaskSortField, JoinedSort>>(task: { id: string } & Record<Field, string | null>, field: Field): CursorValue[] => [task[field], task.id];

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (match) => `\\${match}`);

/** A list statement's value, a placeholder filled when it runs (see listTasks). */
const value = (name: keyof ListValues) => sql.placeholder(name);

interface ListValues {
  projectId: string;
  memberId: string;
  within: string;
  statuses: string;
  priorities: string;
  assigneeId: string;
  dueBefore: string;
  dueAfter: string;
  startBefore: string;
  startAfter: string;
  pattern: string;
  labelIds: string;
  parentId: string;
  keyStem: string;
  keyNumber: number;
  cursorValue: string | number;
  cursorId: string;
  limit: number;
}

// Many values as one parameter (an array literal; the values are enum names or ids the service
// checked), so a filter of one status and one of five share one statement.
function filterConditions(filters: TaskFilters): (SQL | undefined)[] {
  const { statuses = [], statusCategories = [], priorities = [], labelIds = [], assigneeId, parentId } = filters;
  const keyMatch = filters.key
    ? and(eq(tasks.number, value('keyNumber')), sql`${tasks.projectId} in (select ${projectKeys.projectId} from ${projectKeys} where ${eq(projectKeys.key, value('keyStem'))})`)
    : undefined;
  return [
    statuses.length > 0 ? sql`${tasks.status} = any(${value('statuses')}::text[])` : undefined,
    statusCategories.length > 0 ? stateCategoryIn(tasks, statusCategories) : undefined,
    priorities.length > 0 ? sql`${tasks.priority} = any(${value('priorities')}::text::task_priority[])` : undefined,
    assigneeId === null ? isNull(tasks.assigneeId) : assigneeId !== undefined ? eq(tasks.assigneeId, value('assigneeId')) : undefined,
    filters.dueBefore ? lt(tasks.dueDate, value('dueBefore')) : undefined,
    filters.dueAfter ? gt(tasks.dueDate, value('dueAfter')) : undefined,
    filters.startBefore ? lt(tasks.startDate, value('startBefore')) : undefined,
    filters.startAfter ? gt(tasks.startDate, value('startAfter')) : undefined,
    filters.text === undefined ? undefined : or(ilike(tasks.title, value('pattern')), ilike(tasks.description, value('pattern')), keyMatch),
    labelIds.length > 0 ? sql`${tasks.labelIds} && ${value('labelIds')}::uuid[]` : undefined,
    parentId === null ? isNull(tasks.parentId) : parentId !== undefined ? eq(tasks.parentId, value('parentId')) : undefined,
    ...fieldConditions(filters.fields ?? []),
  ];
}

/**
 * A task has a value of each filtered field that all of the field's filters match: one EXISTS per
 * field on the values' primary key (a task has one value of a field). One per field, not per
 * filter, so the planner sees a range (`.gte` and `.lte`) as one condition on the field's index
 * and knows how few tasks it matches: a page of a rare value is then driven from that index (its
 * matches, joined to tasks), a page of a common one walks the project's tasks in the page's order
 * and probes; either reads rows in proportion to the page, not the project. Its values are
 * parameters of the statement (such a list is built each time, not kept prepared: listTasks).
 */
function fieldConditions(filters: readonly FieldFilter[]): SQL[] {
  // (Map.groupBy is not in Node 20.)
  const fieldIds = [...new Set(filters.map((filter) => filter.fieldId))];
  return fieldIds.map((fieldId) => {
    const matches = filters.filter((filter) => filter.fieldId === fieldId).map((filter) => {
      const column = sql.raw(filter.column === 'number' ? 'filtered.sort_number' : 'filtered.sort_text');
      const cast = sql.raw(filter.column === 'number' ? 'double precision' : 'text');
      const [first] = filter.values;
      return {
        eq: sql`${column} = ${first}::${cast}`,
        gte: sql`${column} >= ${first}::${cast}`,
        lte: sql`${column} <= ${first}::${cast}`,
        any: sql`${column} = any(${arrayLiteral(filter.values)}::text[])`,
        overlaps: sql`filtered.value ?| ${arrayLiteral(filter.values)}::text[]`,
      }[filter.op];
    });
    return sql`exists (select 1 from ${taskFieldValues} as filtered where filtered.task_id = "tasks"."id" and filtered.field_id = ${fieldId}::uuid and ${and(...matches)})`;
  });
}

/**
 * Rows strictly after the cursor in (field, id) order. NULLs (no due date, no assignee, a status of
 * no state) sort last ascending and first descending, as PostgreSQL orders them, so the
 * (project_id, due_date, id) index serves both.
 */
function afterCursor(order: TaskOrder, cursor: CursorValue[] | undefined): SQL | undefined {
  if (!cursor) return undefined;
  const column = SORT_COLUMNS[order.field];
  const compare = sql.raw(order.descending ? '<' : '>');
  const idAfter = sql`${tasks.id} ${compare} ${value('cursorId')}::uuid`;
  if (cursor[0] === null) {
    // Only a nullable sort's value is ever null (SORT_CURSOR_CHECKS); the rows after a null one
    // are the other nulls after its id, and, descending, every task with a value.
    return order.descending ? or(and(isNull(column), idAfter), sql`${column} is not null`) : and(isNull(column), idAfter);
  }
  const rowAfter = sql`(${column}, ${tasks.id}) ${compare} (${value('cursorValue')}::${SORT_CASTS[order.field]}, ${value('cursorId')}::uuid)`;
  return NULLABLE_SORTS.has(order.field) && !order.descending ? or(rowAfter, isNull(column)) : rowAfter;
}

/** Which tasks a list reads: one project's, if `memberId` is a member of it, or those of every project of a member. */
export type TaskScope = { projectId: string; memberId: string } | { projectIdsOfMember: string; within?: readonly string[] | undefined };

function inScope(scope: TaskScope): SQL | undefined {
  if ('projectId' in scope) {
    // The membership is checked in the same statement, so a page costs one round trip; no rows
    // then means "not a member" or "nothing to list", which the service tells apart.
    return and(
      eq(tasks.projectId, value('projectId')),
      sql`exists (select 1 from ${memberships} where ${and(eq(memberships.projectId, value('projectId')), eq(memberships.userId, value('memberId')))})`,
    );
  }
  return and(
    sql`${tasks.projectId} in (select ${memberships.projectId} from ${memberships} where ${eq(memberships.userId, value('memberId'))})`,
    // A personal access token limited to some projects lists across those only.
    scope.within ? sql`${tasks.projectId} = any(${value('within')}::uuid[])` : undefined,
  );
}

/**
 * Page sizes written into a list's statement rather than passed to it: the API's default (100) and
 * the sizes the web app and the bench ask for (10, 20, 50, 500), each with the one row more that
 * tells whether a next page follows. With `LIMIT $n`, PostgreSQL prices the statement's generic
 * plan as keeping a tenth of the project's rows, and once a project averages more than about ten
 * times the page's rows it plans every page afresh: for a page of 50, 0.9 ms of planning for 0.5 ms
 * of work (docs/performance.md, "Why a page cost PostgreSQL more than it should"). Any other size
 * stays a parameter, so a client walking `limit` through 1–500 prepares at most six statements of
 * a shape on a connection.
 */
const LITERAL_LIMITS = new Set([11, 21, 51, 101, 501]);

/**
 * A list's LIMIT: written in for the sizes above, else its placeholder. drizzle's `.limit()` writes
 * any object it is given as SQL (its dialect's ` limit ${limit}`); that its type admits only a number
 * or a placeholder is an open upstream bug (drizzle-orm#5261), hence the cast.
 */
const pageLimit = (limit: number) => (LITERAL_LIMITS.has(limit) ? (sql.raw(String(limit)) as unknown as number) : value('limit'));

/**
 * One page of tasks in (field, id) order strictly after the cursor: keyset paging, each sort
 * served by an index ending in id. The statement depends only on which filters are given, the
 * sort and the kind of cursor (its key below); their values fill its placeholders, so each shape
 * is built and prepared once (preparedOn).
 */
export function listTasks(db: Db, scope: TaskScope, filters: TaskFilters, order: TaskOrder, cursor: CursorValue[] | undefined, limit: number): Promise<SortedRow[]> {
  const { statuses = [], statusCategories = [], priorities = [], labelIds = [], assigneeId } = filters;
  const key = [
    'list',
    'projectId' in scope ? 'project' : scope.within ? 'within' : 'member',
    statuses.length > 0,
    // The categories are part of the statement (stateCategoryIn), each set of them a shape of its own.
    statusCategories.join('|'),
    priorities.length > 0,
    assigneeId === null ? 'none' : assigneeId === undefined ? 'any' : 'one',
    filters.dueBefore !== undefined,
    filters.dueAfter !== undefined,
    filters.startBefore !== undefined,
    filters.startAfter !== undefined,
    filters.text !== undefined,
    filters.key !== undefined,
    labelIds.length > 0,
    filters.parentId === null ? 'top' : filters.parentId === undefined ? 'any' : 'of',
    order.field,
    order.descending ? 'desc' : 'asc',
    !cursor ? 'first' : cursor[0] === null ? 'null' : 'value',
    LITERAL_LIMITS.has(limit) ? limit : 'limit',
  ].join(':');
  const build = (handle: Db) => {
    const direction = order.descending ? desc : asc;
    const joined = isJoinedSort(order.field) ? JOINED_SORTS[order.field] : undefined;
    const select = selectTasks(handle, { sortValue: joined ? joined.value : sql<null>`null` });
    return (joined ? select.leftJoin(joined.join.table, joined.join.on) : select)
      .where(and(inScope(scope), ...filterConditions(filters), afterCursor(order, cursor)))
      .orderBy(direction(SORT_COLUMNS[order.field]), direction(tasks.id))
      .limit(pageLimit(limit))
      .prepare('tasks_list');
  };
  // Field filters are parameters of the statement, not placeholders: such a list is built each time.
  const statement = filters.fields?.length ? build(currentHandle(db)) : preparedOn(db, key, build);
  return statement.execute(listValues(scope, filters, cursor, limit));
}

/** The placeholders' values of a list statement. */
function listValues(scope: TaskScope, filters: TaskFilters, cursor: CursorValue[] | undefined, limit: number): Partial<ListValues> {
  const { statuses = [], priorities = [], labelIds = [], assigneeId } = filters;
  return {
    ...('projectId' in scope ? { projectId: scope.projectId, memberId: scope.memberId } : { memberId: scope.projectIdsOfMember }),
    ...('within' in scope && scope.within ? { within: arrayLiteral(scope.within) } : {}),
    statuses: arrayLiteral(statuses),
    priorities: arrayLiteral(priorities),
    ...(assigneeId ? { assigneeId } : {}),
    // As text, which both drivers pass for the statement to read as timestamptz.
    ...(filters.dueBefore ? { dueBefore: filters.dueBefore.toISOString() } : {}),
    ...(filters.dueAfter ? { dueAfter: filters.dueAfter.toISOString() } : {}),
    ...(filters.startBefore ? { startBefore: filters.startBefore.toISOString() } : {}),
    ...(filters.startAfter ? { startAfter: filters.startAfter.toISOString() } : {}),
    ...(filters.text === undefined ? {} : { pattern: `%${escapeLike(filters.text)}%` }),
    labelIds: arrayLiteral(labelIds),
    ...(filters.parentId ? { parentId: filters.parentId } : {}),
    ...(filters.key ? { keyStem: filters.key.stem, keyNumber: filters.key.number } : {}),
    ...(cursor ? { cursorValue: cursor[0] ?? undefined, cursorId: cursor[1] as string } : {}),
    limit,
  };
}

/** A task row of a page sorted by a joined sort or a field, with its sort value (null: none, or a sort by the task's own column). */
export type SortedRow = TaskRow & { sortValue: string | number | null };

/**
 * One page of tasks sorted by a custom field's value, then id, those without a value last (in id
 * order), strictly after the cursor (its sort value, null among those without one, and id). The
 * tasks with a value come from the field's index (field, sort value, task) walked from the cursor;
 * the others, once those run out, in id order with no value of the field: neither part reads more
 * rows as the project grows.
 */
export async function listTasksByField(db: Db, scope: TaskScope, filters: TaskFilters, sort: FieldSort, cursor: CursorValue[] | undefined, limit: number): Promise<SortedRow[]> {
  const handle = currentHandle(db);
  const direction = sort.descending ? desc : asc;
  const compare = sql.raw(sort.descending ? '<' : '>');
  const column = sort.column === 'number' ? taskFieldValues.sortNumber : taskFieldValues.sortText;
  const cast = sql.raw(sort.column === 'number' ? 'double precision' : 'text');
  const values = listValues(scope, filters, undefined, limit);
  const rows: SortedRow[] = [];
  if (!cursor || cursor[0] !== null) {
    const after = cursor ? sql`(${column}, ${taskFieldValues.taskId}) ${compare} (${cursor[0]}::${cast}, ${cursor[1]}::uuid)` : undefined;
    const valued = await selectTasks(handle, { sortValue: sql<string | number | null>`${column}` })
      .innerJoin(taskFieldValues, and(eq(taskFieldValues.taskId, tasks.id), eq(taskFieldValues.fieldId, sort.fieldId)))
      .where(and(inScope(scope), ...filterConditions(filters), after))
      .orderBy(direction(column), direction(taskFieldValues.taskId))
      .limit(value('limit'))
      .prepare('tasks_list_by_field')
      .execute(values);
    rows.push(...(valued as SortedRow[]));
  }
  if (rows.length < limit) {
    const after = cursor?.[0] === null ? sql`${tasks.id} ${compare} ${cursor[1]}::uuid` : undefined;
    const without = sql`not exists (select 1 from ${taskFieldValues} as valued where valued.task_id = "tasks"."id" and valued.field_id = ${sort.fieldId}::uuid)`;
    const rest = await selectTasks(handle, { sortValue: sql<null>`null` })
      .where(and(inScope(scope), ...filterConditions(filters), without, after))
      .orderBy(direction(tasks.id))
      .limit(value('limit'))
      .prepare('tasks_list_without_field')
      .execute({ ...values, limit: limit - rows.length });
    rows.push(...(rest as SortedRow[]));
  }
  return rows.map((row) => ({ ...row, sortValue: row.sortValue === null || sort.column === 'text' ? row.sortValue : Number(row.sortValue) }));
}

/** The tasks `taskIds` as every read gives them, in id order. */
export const findTasks = (db: Db, taskIds: readonly string[]): Promise<TaskRow[]> =>
  selectTasks(db, {}).where(sql`${tasks.id} = any(${arrayLiteral(taskIds)}::uuid[])`).orderBy(asc(tasks.id)).execute();

/** A new version of each of `taskIds` (their field values changed by the fields service), returned as every read gives them, in id order. */
export const touchTasks = async (db: Db, taskIds: readonly string[]): Promise<TaskRow[]> =>
  (
    await db
      .update(tasks)
      .set({ updatedAt: nextVersionSql(tasks.updatedAt) })
      .where(sql`${tasks.id} = any(${arrayLiteral(taskIds)}::uuid[])`)
      .returning(taskRowReturning)
  ).sort((a, b) => (a.id < b.id ? -1 : 1));
