import { arrayLiteral, type Db, isoFromTimestamptz, labels, memberships, projects, tasks, users, uuidsFromArrayText } from '@tasklane/db';
import { TASK_PRIORITIES, type Task, type TaskPriority, type TaskSortField, type TaskStatus } from '@tasklane/schemas';
import { type SQL, and, eq, gt, ilike, isNull, lt, or, sql } from 'drizzle-orm';
import { callerRoleIn } from '../policy/access';
import { type CursorCheck, type CursorValue, cursorChecks } from '../../platform/paging';
import { insertSelect, placeholderIn, placeholdersFor, preparedFor, runStatement, runStatementAs, type StatementPart, valuesFor } from '../../platform/prepared';
import { nextVersionSql } from '../../platform/versions';
import { type ChangeEvent, recordEvent } from '../../events/record';
import { lockedScope } from '../../events/scope';

export type TaskRow = typeof tasks.$inferSelect;

// The role and the owner as scalar subqueries rather than joins (see callerRoleIn: PGlite's planning).
const taskForUserColumns = {
  task: tasks,
  role: callerRoleIn(sql.raw('"tasks"."project_id"')),
  ownerId: sql<string>`(select p.owner_id from ${projects} as p where p.id = "tasks"."project_id")`,
};

const taskForUserStatement = preparedFor((db) =>
  db.select(taskForUserColumns).from(tasks).where(eq(tasks.id, sql.placeholder('taskId'))).limit(1).prepare('task_for_user'),
);

// The same read with the caller's name too: a new comment carries its author's name, and this
// saves the comment a second query for it.
const taskForAuthorStatement = preparedFor((db) =>
  db
    .select({ ...taskForUserColumns, callerName: sql<string | null>`(select u.name from ${users} as u where u.id = ${sql.placeholder('userId')})` })
    .from(tasks)
    .where(eq(tasks.id, sql.placeholder('taskId')))
    .limit(1)
    .prepare('task_for_author'),
);

/** A task with the caller's membership of its project; undefined when either is missing. */
export async function findTaskForUser(db: Db, taskId: string, userId: string) {
  const [found] = await taskForUserStatement(db).execute({ taskId, userId });
  return found?.role ? { task: found.task, role: found.role, ownerId: found.ownerId } : undefined;
}

/** findTaskForUser, with the caller's name. */
export async function findTaskForAuthor(db: Db, taskId: string, userId: string) {
  const [found] = await taskForAuthorStatement(db).execute({ taskId, userId });
  return found?.role ? { task: found.task, role: found.role, ownerId: found.ownerId, callerName: found.callerName ?? '' } : undefined;
}

export const findTask = async (db: Db, id: string, options: { forUpdate?: boolean } = {}) => {
  const query = db.select().from(tasks).where(eq(tasks.id, id)).limit(1);
  return (await (options.forUpdate ? query.for('update') : query))[0];
};

/** Who may write the task: `userId`, if a member of its project whose role `roles` lists (or, owning it, if `owner`). */
export interface WriteGuard {
  userId: string;
  roles: readonly string[];
  owner: boolean;
}

const taskValue = placeholderIn('task_');
const guardValue = placeholderIn('guard_');

/**
 * Whether every id of the array `labelIds` (an SQL expression) names a label of the project
 * `projectId`, each found label locked against deletion (FOR KEY SHARE) to the end of the write:
 * a label's deletion locks it first and takes it off its tasks after, so a write naming a label
 * being deleted waits, finds it gone and writes nothing (and the label service's deletion, once
 * it has the lock, sees every task that named it).
 */
const labelsOfProject = (labelIds: SQL, projectId: SQL) => sql`(cardinality(${labelIds}) = 0 or cardinality(${labelIds}) = (
  select count(*) from (select 1 from ${labels} as l where l.project_id = ${projectId} and l.id = any(${labelIds}) for key share of l) as found))`;

/**
 * Inserts a new task and records its creation (`created`), in one transaction (writeAndRecord). It
 * inserts only if the project still exists (its row locked first: the lock order of
 * platform/locks.ts), `guard` may write to it, the assignee (if any) is a member of it and
 * the labels (if any) are its labels, so a create checks access and writes in one round trip;
 * false means one of those failed, and the caller asks which.
 */
export const insertTask = (db: Db, task: TaskRow, guard: WriteGuard, created: ChangeEvent): Promise<boolean> => writeAndRecord(db, taskInsert(task, guard), created);

/** Runs `write` and, if it wrote a row, records `event` after it, as the last statement of the same transaction. */
const writeAndRecord = (db: Db, write: StatementPart, event: ChangeEvent): Promise<boolean> =>
  db.transaction(async (tx) => {
    const written = await runStatement(tx, { ...write, key: `${write.key}:written`, build: (handle) => sql`with written as ${write.build(handle)} select 1 from written` });
    if (written.length === 0) return false;
    await recordEvent(tx, event);
    return true;
  });

/** The INSERT of insertTask. */
const taskInsert = (task: TaskRow, guard: WriteGuard): StatementPart => ({
  key: 'task.insert',
  // In parentheses, as drizzle writes its own builders: writeAndRecord embeds it as a WITH query.
  build: () => sql`(
    ${insertSelect(tasks, 'task_')}
    where ${lockedScope(
      { projectId: sql`${taskValue('projectId')}::uuid` },
      sql`exists (
          select 1 from ${memberships} as m join ${projects} as p on p.id = m.project_id
          where m.project_id = ${taskValue('projectId')}::uuid and m.user_id = ${guardValue('userId')}::uuid
            and case when p.owner_id = m.user_id then ${guardValue('owner')}::boolean else m.role = any(${guardValue('roles')}::text::member_role[]) end)
        and (${taskValue('assigneeId')}::uuid is null or exists (
          select 1 from ${memberships} as a where a.project_id = ${taskValue('projectId')}::uuid and a.user_id = ${taskValue('assigneeId')}::uuid))
        and ${labelsOfProject(sql`${taskValue('labelIds')}::uuid[]`, sql`${taskValue('projectId')}::uuid`)}`,
    )}
    returning ${tasks.id})`,
  values: { ...valuesFor(task, 'task_'), ...valuesFor({ userId: guard.userId, owner: guard.owner, roles: `{${guard.roles.join(',')}}` }, 'guard_') },
});

/**
 * Updates a task that is still at version `expected` (its updatedAt), and records the change
 * (`updated`, unless the update changes no field the history tracks) in the same transaction: a
 * compare-and-set, so a write prepared from an earlier read applies only if nothing changed the
 * task since. The project's row is locked first (the lock order of platform/locks.ts), and new
 * labels must still be labels of the task's project (labelsOfProject). False when
 * the task is no longer at that version (or is gone) or a label is gone, and then nothing is written.
 */
export async function updateTaskIfUnchanged(db: Db, id: string, expected: Date, patch: Partial<TaskRow>, updated: ChangeEvent | null): Promise<boolean> {
  const write = taskUpdateIfUnchanged(id, expected, patch);
  return updated ? writeAndRecord(db, write, updated) : (await runStatement(db, write)).length > 0;
}

const taskUpdateIfUnchanged = (id: string, expected: Date, patch: Partial<TaskRow>): StatementPart => {
  const columns = Object.keys(patch) as (keyof TaskRow)[];
  return {
    key: `task.update:${columns.join(',')}`,
    build: (db) =>
      db
        .update(tasks)
        .set(placeholdersFor(columns, 'set_'))
        .where(
          and(
            eq(tasks.id, sql.placeholder('where_taskId')),
            eq(tasks.updatedAt, sql.placeholder('where_expected')),
            lockedScope(
              { projectId: sql`${tasks.projectId}` },
              columns.includes('labelIds') ? labelsOfProject(sql`${sql.placeholder('set_labelIds')}::uuid[]`, sql`${tasks.projectId}`) : undefined,
            ),
          ),
        )
        .returning({ id: tasks.id }),
    values: { ...valuesFor(patch, 'set_'), ...valuesFor({ taskId: id, expected }, 'where_') },
  };
};

export const deleteTask = (db: Db, id: string) => db.delete(tasks).where(eq(tasks.id, id));

/** A deleted label leaves the project's tasks that carried it (a new version each). */
export const removeLabel = (db: Db, projectId: string, labelId: string) =>
  db
    .update(tasks)
    .set({ labelIds: sql`array_remove(${tasks.labelIds}, ${labelId}::uuid)`, updatedAt: nextVersionSql(tasks.updatedAt) })
    .where(and(eq(tasks.projectId, projectId), sql`${tasks.labelIds} @> array[${labelId}::uuid]`))
    .returning();

/** A member who leaves keeps no tasks: theirs in this project become unassigned (a new version each). */
export const unassignTasks = (db: Db, projectId: string, userId: string) =>
  db
    .update(tasks)
    .set({ assigneeId: null, updatedAt: nextVersionSql(tasks.updatedAt) })
    .where(and(eq(tasks.projectId, projectId), eq(tasks.assigneeId, userId)))
    .returning();

export interface TaskFilters {
  statuses?: TaskStatus[];
  priorities?: TaskPriority[];
  /** A user id, or null for unassigned tasks. */
  assigneeId?: string | null;
  dueBefore?: Date;
  dueAfter?: Date;
  text?: string;
  /** Tasks carrying any of these labels. */
  labelIds?: string[];
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

/** What a list statement's text depends on; the values it is run with are separate (see runStatement). */
interface ListShape {
  scope: 'project' | 'member' | 'member-within';
  statuses: boolean;
  priorities: boolean;
  assignee: 'any' | 'none' | 'one';
  dueBefore: boolean;
  dueAfter: boolean;
  text: boolean;
  labels: boolean;
  field: TaskSortField;
  descending: boolean;
  cursor: 'none' | 'null' | 'value';
}

const value = placeholderIn('list_');

function filterConditions(shape: ListShape): (SQL | undefined)[] {
  return [
    shape.statuses ? sql`${tasks.status} = any(${value('statuses')}::text::task_status[])` : undefined,
    shape.priorities ? sql`${tasks.priority} = any(${value('priorities')}::text::task_priority[])` : undefined,
    shape.assignee === 'none' ? isNull(tasks.assigneeId) : shape.assignee === 'one' ? eq(tasks.assigneeId, value('assigneeId')) : undefined,
    shape.dueBefore ? lt(tasks.dueDate, value('dueBefore')) : undefined,
    shape.dueAfter ? gt(tasks.dueDate, value('dueAfter')) : undefined,
    shape.text ? or(ilike(tasks.title, value('pattern')), ilike(tasks.description, value('pattern'))) : undefined,
    shape.labels ? sql`${tasks.labelIds} && ${value('labelIds')}::uuid[]` : undefined,
  ];
}

/**
 * Rows strictly after the cursor in (field, id) order. NULL due dates sort last ascending and
 * first descending, as PostgreSQL orders them, so the (project_id, due_date, id) index serves both.
 */
function afterCursor(shape: ListShape): SQL | undefined {
  if (shape.cursor === 'none') return undefined;
  const column = SORT_COLUMNS[shape.field];
  const cast = sql.raw(SORT_CASTS[shape.field]);
  const compare = sql.raw(shape.descending ? '<' : '>');
  const rowAfter = sql`(${column}, ${tasks.id}) ${compare} (${value('cursorValue')}::${cast}, ${value('cursorId')}::uuid)`;
  if (shape.field !== 'dueDate') return rowAfter;
  const idAfter = sql`${tasks.id} ${compare} ${value('cursorId')}::uuid`;
  if (shape.cursor === 'null') {
    return shape.descending ? or(and(isNull(column), idAfter), sql`${column} is not null`) : and(isNull(column), idAfter);
  }
  return shape.descending ? rowAfter : or(rowAfter, isNull(column));
}

/**
 * A list's columns, in the order taskFromValues reads them: a page's rows go out as they come, with
 * no per-field mapping through drizzle and Date objects; only the timestamps' text is rewritten
 * (isoFromTimestamptz). Formatting them in SQL instead (to_char) made PostgreSQL's part of a page a
 * third more costly. A page of one project does not read its project id 50 times: it is the scope's
 * (`projectId` null), and PostgreSQL's uuid output was 5 % of its part of the page.
 */
const taskFields = (projectId: SQL) => sql`${tasks.id}, ${tasks.title}, ${tasks.description}, ${tasks.status}, ${tasks.priority},
  ${tasks.dueDate}, ${tasks.assigneeId}, ${projectId}, ${tasks.createdById}, ${tasks.createdAt}, ${tasks.updatedAt},
  ${tasks.completedAt}, ${tasks.labelIds}, ${tasks.commentCount}`;

/** A task from its row's values (taskFields), as one object literal (see runStatementAs). */
const taskFromValues = (values: unknown[], projectId: string | null): Task => {
  const dueDate = values[5] as string | null;
  const completedAt = values[11] as string | null;
  return {
    id: values[0] as string,
    title: values[1] as string,
    description: values[2] as string,
    status: values[3] as TaskStatus,
    priority: values[4] as TaskPriority,
    dueDate: dueDate === null ? null : isoFromTimestamptz(dueDate),
    assigneeId: values[6] as string | null,
    projectId: projectId ?? (values[7] as string),
    createdById: values[8] as string,
    createdAt: isoFromTimestamptz(values[9] as string),
    updatedAt: isoFromTimestamptz(values[10] as string),
    completedAt: completedAt === null ? null : isoFromTimestamptz(completedAt),
    labelIds: uuidsFromArrayText(values[12] as string | string[]),
    commentCount: values[13] as number,
  };
};

const viewValue = placeholderIn('view_');

/**
 * A task as the API shows it, if `userId` is a member of its project: one statement, its row read
 * as a page's rows are (taskFromValues), not through drizzle's Date mapping and back to text.
 */
export async function findTaskViewForUser(db: Db, taskId: string, userId: string): Promise<Task | undefined> {
  const statement: StatementPart = {
    key: 'task.view',
    build: () => sql`select ${taskFields(sql`${tasks.projectId}`)},
        exists (select 1 from ${memberships} as m where m.project_id = ${tasks.projectId} and m.user_id = ${viewValue('userId')})
      from ${tasks} where ${tasks.id} = ${viewValue('taskId')} limit 1`,
    values: valuesFor({ taskId, userId }, 'view_'),
  };
  const [found] = await runStatementAs(db, statement, (row) => (row[14] === true ? taskFromValues(row, null) : undefined));
  return found;
}

/**
 * One page of tasks in (field, id) order after the cursor. `projectId` scope lists that project's
 * tasks only if `memberId` is a member of it — checked in the same statement, so a page costs one
 * round trip; no rows then means "not a member" or "nothing to list", which the caller tells apart.
 * `projectIdsOfMember` lists across every project of that member.
 */
export function listTasks(
  db: Db,
  scope: { projectId: string; memberId: string } | { projectIdsOfMember: string; within?: readonly string[] | undefined },
  filters: TaskFilters,
  order: TaskOrder,
  cursor: CursorValue[] | undefined,
  limit: number,
): Promise<Task[]> {
  const statuses = filters.statuses ?? [];
  const priorities = filters.priorities ?? [];
  const shape: ListShape = {
    scope: 'projectId' in scope ? 'project' : scope.within ? 'member-within' : 'member',
    statuses: statuses.length > 0,
    priorities: priorities.length > 0,
    assignee: filters.assigneeId === undefined ? 'any' : filters.assigneeId === null ? 'none' : 'one',
    dueBefore: filters.dueBefore !== undefined,
    dueAfter: filters.dueAfter !== undefined,
    text: filters.text !== undefined,
    labels: (filters.labelIds ?? []).length > 0,
    field: order.field,
    descending: order.descending,
    cursor: !cursor ? 'none' : cursor[0] === null ? 'null' : 'value',
  };
  const values = valuesFor(
    {
      ...('projectId' in scope
        ? { projectId: scope.projectId, memberId: scope.memberId }
        : { memberId: scope.projectIdsOfMember, within: scope.within ? `{${scope.within.join(',')}}` : undefined }),
      // One placeholder for any number of values, as an array literal (the values are enum names,
      // checked by the input schema), so a filter of one status and of five share one statement.
      statuses: `{${statuses.join(',')}}`,
      priorities: `{${priorities.join(',')}}`,
      assigneeId: filters.assigneeId ?? undefined,
      dueBefore: filters.dueBefore,
      dueAfter: filters.dueAfter,
      pattern: filters.text === undefined ? undefined : `%${escapeLike(filters.text)}%`,
      labelIds: arrayLiteral(filters.labelIds ?? []),
      cursorValue: cursor?.[0],
      cursorId: cursor?.[1],
      limit,
    },
    'list_',
  );
  const statement = { key: `tasks.list:${Object.values(shape).join(',')}`, build: () => listStatement(shape), values };
  // As PostgreSQL writes a uuid: the path may name the project in capitals.
  const projectId = 'projectId' in scope ? scope.projectId.toLowerCase() : null;
  return runStatementAs(db, statement, (row) => taskFromValues(row, projectId));
}

function listStatement(shape: ListShape): SQL {
  const direction = sql.raw(shape.descending ? 'desc' : 'asc');
  const inScope =
    shape.scope === 'project'
      ? and(
          eq(tasks.projectId, value('projectId')),
          sql`exists (select 1 from ${memberships} where ${memberships.projectId} = ${value('projectId')} and ${memberships.userId} = ${value('memberId')})`,
        )
      : and(
          sql`${tasks.projectId} in (select ${memberships.projectId} from ${memberships} where ${memberships.userId} = ${value('memberId')})`,
          // A personal access token limited to some projects lists across those only.
          shape.scope === 'member-within' ? sql`${tasks.projectId} = any(${value('within')}::uuid[])` : undefined,
        );
  return sql`
    select ${taskFields(shape.scope === 'project' ? sql`null` : sql`${tasks.projectId}`)} from ${tasks}
    where ${and(inScope, ...filterConditions(shape), afterCursor(shape))}
    order by ${SORT_COLUMNS[shape.field]} ${direction}, ${tasks.id} ${direction}
    limit ${value('limit')}`;
}
