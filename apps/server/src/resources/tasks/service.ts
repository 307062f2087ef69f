import type { Db } from '@tasklane/db';
import type { CreateTaskInput, FieldChange, ListProjectTasksInput, MoveTaskInput, Task, TaskSortField, UpdateTaskInput } from '@tasklane/schemas';
import { isMember, requireProjectAccess } from '../policy/access';
import { isId, newId } from '../../platform/ids';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { nextVersion, requireVersion } from '../../platform/versions';
import { authorize, currentGrant, grantedProjects, type ProjectAccess, requireReach } from '../policy/policy';
import { recordEvent } from '../../events/record';
import { changedFields } from '../../events/changes';
import { transactionIn } from '../../events/scope';
import { DomainError, invalidField, notFound } from '../../platform/errors';
import * as store from './store';
import { positionBetween, positionOfNewTask } from './placement';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The one mapping of a task's row (every read selects all its columns: store.ts) to what the API shows. */
export const toTask = (row: store.TaskRow): Task => ({
  id: row.id,
  title: row.title,
  description: row.description,
  status: row.status,
  priority: row.priority,
  dueDate: iso(row.dueDate),
  assigneeId: row.assigneeId,
  projectId: row.projectId,
  createdById: row.createdById,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  completedAt: iso(row.completedAt),
  labelIds: row.labelIds,
  commentCount: row.commentCount,
  position: row.position,
});

/** A task's label ids as stored: lower case, in id order (so every read shows them in one order). */
const normalizedLabelIds = (labelIds: readonly string[]): string[] => labelIds.map((id) => id.toLowerCase()).sort();

/** The fields a task update reports with old and new values. */
const TRACKED_TASK_FIELDS = ['title', 'description', 'status', 'priority', 'dueDate', 'assigneeId', 'completedAt', 'labelIds', 'position'] as const;

export type TaskListQuery = Omit<ListProjectTasksInput, 'projectId'>;

/** A change of a task: a PATCH's fields, or a move's status and position (placement.ts). */
type TaskChange = Omit<UpdateTaskInput, 'id'> & { position?: string };

/** The columns an update writes; `completedAt` follows the status into and out of DONE. */
function columnsToSet(patch: TaskChange, before: store.TaskRow, now: Date): Partial<store.TaskRow> {
  const enteringDone = patch.status === 'DONE' && before.status !== 'DONE';
  const leavingDone = patch.status !== undefined && patch.status !== 'DONE';
  return {
    ...(patch.title !== undefined ? { title: patch.title } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
    ...(patch.status !== undefined ? { status: patch.status } : {}),
    ...(patch.priority !== undefined ? { priority: patch.priority } : {}),
    ...(patch.dueDate !== undefined ? { dueDate: patch.dueDate === null ? null : new Date(patch.dueDate) } : {}),
    // Lower case, as the database returns ids: the current assignee in upper case is no change.
    ...(patch.assigneeId !== undefined ? { assigneeId: patch.assigneeId?.toLowerCase() ?? null } : {}),
    ...(patch.labelIds !== undefined ? { labelIds: normalizedLabelIds(patch.labelIds) } : {}),
    ...(patch.position !== undefined ? { position: patch.position } : {}),
    ...(enteringDone ? { completedAt: now } : leavingDone ? { completedAt: null } : {}),
    updatedAt: nextVersion(before.updatedAt, now),
  };
}

/** What an update of `before` writes, the task it leaves, and the tracked fields it changes (null: none). */
function planUpdate(patch: TaskChange, before: store.TaskRow) {
  const set = columnsToSet(patch, before, new Date());
  const after = toTask({ ...before, ...set });
  return { set, after, changes: changedFields(toTask(before), after, TRACKED_TASK_FIELDS) };
}

/** The task and the caller's access to its project; 404 for non-members, as for unknown ids. */
function accessOf(userId: string, found: store.TaskForCaller | undefined): { task: store.TaskForCaller; access: ProjectAccess } {
  if (!found) throw notFound('Task');
  requireReach(found.projectId, 'Task');
  return { task: found, access: { projectId: found.projectId, role: found.role, isOwner: found.ownerId === userId } };
}

/**
 * The checks that a write's assignee is a member of the project and its labels are the project's
 * (each found label locked FOR KEY SHARE: store.lockProjectLabels), in `tx`, which holds the
 * project's lock, so no membership or label can go before the write commits. Their refusal is
 * returned, not thrown: the caller throws it only after its own access check, which comes first
 * (404, then 403, then 400), and the reads go to the database together with the caller's.
 */
async function inProjectRefusal(tx: Db, projectId: string, { assigneeId, labelIds = [] }: Pick<UpdateTaskInput, 'assigneeId' | 'labelIds'>): Promise<DomainError | undefined> {
  const [labelsFound, assigneeFound] = await Promise.all([
    labelIds.length > 0 && labelIds.every(isId) ? store.lockProjectLabels(tx, projectId, labelIds) : 0,
    assigneeId !== null && assigneeId !== undefined && isId(assigneeId) ? isMember(tx, projectId, assigneeId) : false,
  ]);
  if (assigneeId !== null && assigneeId !== undefined && !assigneeFound) {
    return new DomainError('BAD_REQUEST', 'The assignee must be a member of the project', 'ASSIGNEE_NOT_MEMBER');
  }
  if (labelsFound !== labelIds.length) return invalidField(['labelIds'], "Each id must name a label of the task's project", 'LABEL_NOT_IN_PROJECT');
  return undefined;
}

/**
 * The end of every change of a task, a PATCH's or a move's, in its transaction `tx` (with the
 * task's row locked): the update planned from `before` (the version checked), written, and
 * recorded as `task.updated` with the fields it changes. An update that changes no tracked field
 * is still a new version, with nothing to record.
 */
async function applyChange(tx: Db, userId: string, before: store.TaskRow, patch: TaskChange): Promise<Task> {
  const { set, after, changes } = planUpdate(patch, before);
  // The update and its record sent together: one round trip while the row is locked.
  await Promise.all([
    store.updateTask(tx, before.id, set),
    changes && recordEvent(tx, { projectId: before.projectId, taskId: before.id, actorId: userId, type: 'task.updated', resource: after, changes }),
  ]);
  return after;
}

export function createTasksService(db: Db) {
  /**
   * The project of a task, for a write's transaction to lock first (platform/locks.ts):
   * 404 for a malformed or unknown id, or a project the request's token does not reach.
   */
  async function projectOfTask(taskId: string): Promise<string> {
    const projectId = isId(taskId) ? await store.findProjectOfTask(db, taskId) : undefined;
    if (!projectId) throw notFound('Task');
    requireReach(projectId, 'Task');
    return projectId;
  }

  /**
   * The task and the caller's access to its project, read in `tx` (a write's transaction, which
   * holds the project's lock) or on the pool (a read); 404 for non-members, as for unknown ids.
   * `withName` also reads the caller's name (for what they author on the task).
   */
  async function loadTask(userId: string, taskId: string, options: { tx?: Db; withName?: boolean } = {}) {
    const found = isId(taskId) ? await store.findTaskForUser(options.tx ?? db, taskId, userId, options) : undefined;
    const { task, access } = accessOf(userId, found);
    return { task: toTask(task), access, callerName: task.callerName ?? '' };
  }

  function parseQuery(userId: string, query: TaskListQuery) {
    const sort = query.sort ?? 'createdAt';
    const descending = sort.startsWith('-');
    const field = (descending ? sort.slice(1) : sort) as TaskSortField;
    // Each value once, in one order: the same filter always makes the same statement.
    const list = <T extends string>(values: T[] | undefined) => (values ? [...new Set(values)].sort() : undefined);
    const assignee = query.assigneeId;
    let assigneeId: string | null | undefined;
    if (assignee === 'me') assigneeId = userId;
    else if (assignee === 'none') assigneeId = null;
    else assigneeId = assignee;
    const filters: store.TaskFilters = {
      statuses: list(query.status),
      priorities: list(query.priority),
      assigneeId,
      dueBefore: query.dueBefore ? new Date(query.dueBefore) : undefined,
      dueAfter: query.dueAfter ? new Date(query.dueAfter) : undefined,
      text: query.q?.trim() || undefined,
      labelIds: query.labelId ? normalizedLabelIds([...new Set(query.labelId.map((id) => id.toLowerCase()))]) : undefined,
    };
    return { filters, order: { field, descending }, cursor: decodeCursor(query.cursor, [store.SORT_CURSOR_CHECKS[field], cursorChecks.id]), limit: pageSize(query.limit) };
  }

  async function listWhere(userId: string, scope: store.TaskScope, query: TaskListQuery): Promise<Page<Task>> {
    const { filters, order, cursor, limit } = parseQuery(userId, query);
    const rows = await store.listTasks(db, scope, filters, order, cursor, limit + 1);
    return toPage(rows, limit, toTask, (row) => store.cursorOf(toTask(row), order.field));
  }

  return {
    async listForProject(userId: string, { projectId, ...query }: ListProjectTasksInput): Promise<Page<Task>> {
      if (!isId(projectId)) throw notFound('Project');
      requireReach(projectId);
      let page: Page<Task>;
      try {
        page = await listWhere(userId, { projectId, memberId: userId }, query);
      } catch (error) {
        // A bad query (cursor, assignee) on a project the caller cannot see is its 404, as it was
        // when the access check came first.
        if (error instanceof DomainError) await requireProjectAccess(db, projectId, userId);
        throw error;
      }
      // The page query returns rows only to a member; an empty page may be a non-member's 404.
      if (page.items.length === 0) await requireProjectAccess(db, projectId, userId);
      return page;
    },

    /** The caller's view across all their projects ("my work"). */
    listAcrossProjects(userId: string, query: TaskListQuery): Promise<Page<Task>> {
      return listWhere(userId, { projectIdsOfMember: userId, within: grantedProjects(currentGrant()) }, query);
    },

    async get(userId: string, taskId: string): Promise<Task> {
      return (await loadTask(userId, taskId)).task;
    },

    /**
     * One transaction: the project's row locked (transactionIn), the caller's access and the
     * assignee and labels checked under that lock, the task inserted and its creation recorded.
     */
    async create(userId: string, input: CreateTaskInput): Promise<Task> {
      requireReach(input.projectId);
      if (!isId(input.projectId)) throw notFound('Project');
      const status = input.status ?? 'TODO';
      const now = new Date();
      const row: Omit<store.TaskRow, 'position'> = {
        id: newId(),
        // As the database will return them: a uuid in upper case names the same project or user.
        projectId: input.projectId.toLowerCase(),
        title: input.title,
        description: input.description ?? '',
        status,
        priority: input.priority ?? 'MEDIUM',
        dueDate: input.dueDate ? new Date(input.dueDate) : null,
        assigneeId: input.assigneeId?.toLowerCase() ?? null,
        createdById: userId,
        completedAt: status === 'DONE' ? now : null,
        labelIds: normalizedLabelIds(input.labelIds ?? []),
        commentCount: 0,
        createdAt: now,
        updatedAt: now,
      };
      return transactionIn(db, { projectId: row.projectId }, 'Project', async (tx) => {
        const [refusal, access] = await Promise.all([inProjectRefusal(tx, row.projectId, input), requireProjectAccess(tx, row.projectId, userId)]);
        authorize(access, 'task.write');
        if (refusal) throw refusal;
        // A new task goes to the end of its column (as Plane places a new issue), after the checks' locks.
        const placed = { ...row, position: await positionOfNewTask(tx, row.projectId) };
        const task = toTask(placed);
        // The insert and its record sent together (store.ts): one round trip. A value PostgreSQL
        // refuses fails the insert, and the request is the caller's 400 (transport/trpc/init.ts).
        await Promise.all([
          store.insertTask(tx, placed),
          recordEvent(tx, { projectId: row.projectId, taskId: row.id, actorId: userId, type: 'task.created', resource: task }),
        ]);
        return task;
      });
    },

    /**
     * One transaction, in the lock order of platform/locks.ts: the project's row (transactionIn),
     * the labels the patch names, the task's row; then the checks, once, under those locks (access,
     * assignee and labels, If-Match against the version locked), the update and its record. No
     * other write of the task can come between the read and the write, so none is lost and the
     * history's old values are those replaced. The row stays locked until commit, so the
     * statements after the lock are few and sent together: the update and its record in one
     * round trip, then COMMIT.
     */
    async update(userId: string, { id, ...patch }: UpdateTaskInput, versions?: Date[]): Promise<Task> {
      const projectId = await projectOfTask(id);
      return transactionIn(db, { projectId }, 'Task', async (tx) => {
        // Called in this order, so sent in it (one round trip): the labels' locks before the task's row.
        const [refusal, found] = await Promise.all([inProjectRefusal(tx, projectId, patch), store.findTaskForUser(tx, id, userId, { lock: 'no key update' })]);
        const { task, access } = accessOf(userId, found);
        authorize(access, 'task.write');
        if (refusal) throw refusal;
        // A status change keeps the task's position: it lands in its new column by its key.
        return applyChange(tx, userId, requireVersion(task, versions, 'Task'), patch);
      });
    },

    /**
     * Places the task in its column (or in `status`, a status change as by PATCH) between
     * `afterId` and `beforeId` (placement.ts): one transaction, the project's row, the task's row,
     * the checks as for an update, If-Match, then the project's position lock, the neighbours read
     * under it, and the change written and recorded as an update's. Only this task's key changes.
     */
    async move(userId: string, { id, status, afterId, beforeId }: MoveTaskInput, versions?: Date[]): Promise<Task> {
      const projectId = await projectOfTask(id);
      return transactionIn(db, { projectId }, 'Task', async (tx) => {
        const patch: TaskChange = status === undefined ? {} : { status };
        const [refusal, found] = await Promise.all([inProjectRefusal(tx, projectId, patch), store.findTaskForUser(tx, id, userId, { lock: 'no key update' })]);
        const { task, access } = accessOf(userId, found);
        authorize(access, 'task.write');
        if (refusal) throw refusal;
        const before = requireVersion(task, versions, 'Task');
        const position = await positionBetween(tx, projectId, before.id, status ?? before.status, { afterId, beforeId });
        return applyChange(tx, userId, before, { ...patch, position });
      });
    },

    /** One transaction: the project's row, then the task's FOR UPDATE, If-Match checked, the deletion recorded. */
    async remove(userId: string, taskId: string, versions?: Date[]): Promise<{ message: string }> {
      const projectId = await projectOfTask(taskId);
      await transactionIn(db, { projectId }, 'Task', async (tx) => {
        const { task, access } = accessOf(userId, await store.findTaskForUser(tx, taskId, userId, { lock: 'update' }));
        authorize(access, 'task.write');
        requireVersion(task, versions, 'Task');
        // Deleted before the record: recordEvent's project lock is the last one a write takes.
        await store.deleteTask(tx, taskId);
        await recordEvent(tx, { projectId, taskId: task.id, actorId: userId, type: 'task.deleted', resource: toTask(task) });
      });
      return { message: 'Task deleted' };
    },

    projectOfTask,
    loadTask,
  };
}

export type TasksService = ReturnType<typeof createTasksService>;

/**
 * For the labels service, in its transaction: a deleted label is taken off the project's tasks
 * that carried it, each change recorded as `actorId`'s.
 */
export async function removeLabelFromTasks(tx: Db, projectId: string, labelId: string, actorId: string): Promise<void> {
  await recordUpdates(tx, projectId, actorId, await store.removeLabel(tx, projectId, labelId), (task) => ({
    labelIds: { old: normalizedLabelIds([...task.labelIds, labelId]), new: task.labelIds },
  }));
}

/**
 * For the members service, in its transaction: a member who leaves keeps no tasks, so theirs in the
 * project become unassigned, each change recorded as `actorId`'s.
 */
export async function unassignTasksOf(tx: Db, projectId: string, memberUserId: string, actorId: string): Promise<void> {
  await recordUpdates(tx, projectId, actorId, await store.unassignTasks(tx, projectId, memberUserId), () => ({
    assigneeId: { old: memberUserId, new: null },
  }));
}

/** Each task a bulk update changed, recorded as `actorId`'s `task.updated` with the changes `changesOf` tells. */
async function recordUpdates(tx: Db, projectId: string, actorId: string, rows: store.TaskRow[], changesOf: (task: Task) => Record<string, FieldChange>) {
  for (const row of rows) {
    const task = toTask(row);
    await recordEvent(tx, { projectId, taskId: task.id, actorId, type: 'task.updated', resource: task, changes: changesOf(task) });
  }
}
