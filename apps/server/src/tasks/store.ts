import { type Db, memberships, projects, tasks } from '@tasklane/db';
import { TASK_PRIORITIES, type Task, type TaskPriority, type TaskSortField, type TaskStatus } from '@tasklane/schemas';
import { type SQL, and, eq, gt, ilike, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { type CursorCheck, type CursorValue, cursorChecks } from '../lib/paging';
import { preparedFor } from '../lib/prepared';
import { isoTimestamp, rowsOf } from '../lib/sql';
import { callerRoleIn } from '../projects/store';

export type TaskRow = typeof tasks.$inferSelect;

// The role and the owner as scalar subqueries rather than joins (see callerRoleIn: PGlite's planning).
const taskForUserStatement = preparedFor((db) =>
  db
    .select({
      task: tasks,
      role: callerRoleIn(sql.raw('"tasks"."project_id"')),
      ownerId: sql<string>`(select p.owner_id from ${projects} as p where p.id = "tasks"."project_id")`,
    })
    .from(tasks)
    .where(eq(tasks.id, sql.placeholder('taskId')))
    .limit(1)
    .prepare('task_for_user'),
);

/** A task with the caller's membership of its project; undefined when either is missing. */
export async function findTaskForUser(db: Db, taskId: string, userId: string) {
  const [found] = await taskForUserStatement(db).execute({ taskId, userId });
  return found?.role ? { task: found.task, role: found.role, ownerId: found.ownerId } : undefined;
}

export const findTask = async (db: Db, id: string, options: { forUpdate?: boolean } = {}) => {
  const query = db.select().from(tasks).where(eq(tasks.id, id)).limit(1);
  return (await (options.forUpdate ? query.for('update') : query))[0];
};

/** The INSERT of a new task, to be run by recordActivity in the statement that records it. */
export const taskInsert = (db: Db, task: TaskRow) => db.insert(tasks).values(task).returning({ id: tasks.id });

/**
 * The UPDATE of a task that is still at version `expected` (its updatedAt): a compare-and-set, so a
 * write prepared from an earlier read applies only if nothing changed the task since.
 */
export const taskUpdateIfUnchanged = (db: Db, id: string, expected: Date, patch: Partial<TaskRow>) =>
  db.update(tasks).set(patch).where(and(eq(tasks.id, id), eq(tasks.updatedAt, expected))).returning({ id: tasks.id });

export const updateTask = async (db: Db, id: string, patch: Partial<typeof tasks.$inferInsert>) =>
  (await db.update(tasks).set(patch).where(eq(tasks.id, id)).returning())[0];

export const deleteTask = (db: Db, id: string) => db.delete(tasks).where(eq(tasks.id, id));

export interface TaskFilters {
  statuses?: TaskStatus[];
  priorities?: TaskPriority[];
  /** A user id, or null for unassigned tasks. */
  assigneeId?: string | null;
  dueBefore?: Date;
  dueAfter?: Date;
  text?: string;
}

export interface TaskOrder {
  field: TaskSortField;
  descending: boolean;
}

const SORT_COLUMNS = {
  createdAt: tasks.createdAt,
  updatedAt: tasks.updatedAt,
  dueDate: tasks.dueDate,
  priority: tasks.priority,
  title: tasks.title,
} as const;

const SORT_CASTS: Record<TaskSortField, string> = {
  createdAt: 'timestamptz',
  updatedAt: 'timestamptz',
  dueDate: 'timestamptz',
  priority: 'task_priority',
  title: 'text',
};

/** What the first cursor value must be under each sort, so a forged cursor is a 400, not a SQL error. */
export const SORT_CURSOR_CHECKS: Record<TaskSortField, CursorCheck> = {
  createdAt: cursorChecks.timestamp,
  updatedAt: cursorChecks.timestamp,
  dueDate: cursorChecks.nullableTimestamp,
  priority: cursorChecks.oneOf(TASK_PRIORITIES),
  title: cursorChecks.text,
};

/** The cursor of a listed task: its sort value and its id (the tie-breaker). */
export const cursorOf = (task: Task, field: TaskSortField): CursorValue[] => [task[field], task.id];

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (match) => `\\${match}`);

function filterConditions(filters: TaskFilters): (SQL | undefined)[] {
  return [
    filters.statuses?.length ? inArray(tasks.status, filters.statuses) : undefined,
    filters.priorities?.length ? inArray(tasks.priority, filters.priorities) : undefined,
    filters.assigneeId === null
      ? isNull(tasks.assigneeId)
      : filters.assigneeId !== undefined
        ? eq(tasks.assigneeId, filters.assigneeId)
        : undefined,
    filters.dueBefore ? lt(tasks.dueDate, filters.dueBefore) : undefined,
    filters.dueAfter ? gt(tasks.dueDate, filters.dueAfter) : undefined,
    filters.text
      ? or(ilike(tasks.title, `%${escapeLike(filters.text)}%`), ilike(tasks.description, `%${escapeLike(filters.text)}%`))
      : undefined,
  ];
}

/**
 * Rows strictly after the cursor in (field, id) order. NULL due dates sort last ascending and
 * first descending, as PostgreSQL orders them, so the (project_id, due_date, id) index serves both.
 */
function afterCursor(order: TaskOrder, cursor: CursorValue[] | undefined): SQL | undefined {
  if (!cursor) return undefined;
  const [value, id] = cursor;
  const column = SORT_COLUMNS[order.field];
  const cast = sql.raw(SORT_CASTS[order.field]);
  const compare = order.descending ? '<' : '>';
  const rowAfter = sql`(${column}, ${tasks.id}) ${sql.raw(compare)} (${value}::${cast}, ${id}::uuid)`;
  if (order.field !== 'dueDate') return rowAfter;
  const idAfter = sql`${tasks.id} ${sql.raw(compare)} ${id}::uuid`;
  if (value === null) {
    return order.descending ? or(and(isNull(column), idAfter), sql`${column} is not null`) : and(isNull(column), idAfter);
  }
  return order.descending ? rowAfter : or(rowAfter, isNull(column));
}

/**
 * A list's columns, already in the API's shape (camelCase keys, timestamps as ISO text): a page's
 * rows go out as they come, with no per-field mapping through drizzle and Date objects.
 */
const TASK_FIELDS = sql`${tasks.id} as "id", ${tasks.title} as "title", ${tasks.description} as "description",
  ${tasks.status} as "status", ${tasks.priority} as "priority", ${isoTimestamp(tasks.dueDate)} as "dueDate",
  ${tasks.assigneeId} as "assigneeId", ${tasks.projectId} as "projectId", ${tasks.createdById} as "createdById",
  ${isoTimestamp(tasks.createdAt)} as "createdAt", ${isoTimestamp(tasks.updatedAt)} as "updatedAt",
  ${isoTimestamp(tasks.completedAt)} as "completedAt"`;

/**
 * One page of tasks in (field, id) order after the cursor. `projectId` scope lists that project's
 * tasks only if `memberId` is a member of it — checked in the same statement, so a page costs one
 * round trip; no rows then means "not a member" or "nothing to list", which the caller tells apart.
 * `projectIdsOfMember` lists across every project of that member.
 */
export async function listTasks(
  db: Db,
  scope: { projectId: string; memberId: string } | { projectIdsOfMember: string },
  filters: TaskFilters,
  order: TaskOrder,
  cursor: CursorValue[] | undefined,
  limit: number,
): Promise<Task[]> {
  const direction = sql.raw(order.descending ? 'desc' : 'asc');
  const inScope =
    'projectId' in scope
      ? and(
          eq(tasks.projectId, scope.projectId),
          sql`exists (select 1 from ${memberships} where ${memberships.projectId} = ${scope.projectId} and ${memberships.userId} = ${scope.memberId})`,
        )
      : sql`${tasks.projectId} in (select ${memberships.projectId} from ${memberships} where ${memberships.userId} = ${scope.projectIdsOfMember})`;
  const result = await db.execute(sql`
    select ${TASK_FIELDS} from ${tasks}
    where ${and(inScope, ...filterConditions(filters), afterCursor(order, cursor))}
    order by ${SORT_COLUMNS[order.field]} ${direction}, ${tasks.id} ${direction}
    limit ${limit}`);
  return rowsOf<Task>(result);
}
