import type { Db } from '@tasklane/db';
import type {
  CreateTaskInput,
  FieldChange,
  ListProjectTasksInput,
  Task,
  TaskSortField,
  UpdateTaskInput,
} from '@tasklane/schemas';
import { checkedWhileThere, countProjectLabels, isMember, requireProjectAccess } from '../policy/access';
import { isUnstorableValue } from '../../platform/db-errors';
import { isId, newId } from '../../platform/ids';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { nextVersion, requireVersion } from '../../platform/versions';
import { allowedBy, authorize, currentGrant, grantedProjects, type ProjectAccess, requireReach } from '../policy/policy';
import { type ChangeEvent, recordEvent } from '../../events/record';
import { changedFields } from '../../events/changes';
import { transactionIn } from '../../events/scope';
import { DomainError, invalidField, notFound } from '../../platform/errors';
import * as store from './store';

/** Who the permission table lets write tasks, for the check a create makes inside its INSERT. */
const TASK_WRITERS = allowedBy('task.write');

const iso = (date: Date | null) => (date ? date.toISOString() : null);

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
});

/** A task's label ids as stored: lower case, in id order (so every read shows them in one order). */
const normalizedLabelIds = (labelIds: readonly string[]): string[] => labelIds.map((id) => id.toLowerCase()).sort();

/** The fields a task update reports with old and new values. */
const TRACKED_TASK_FIELDS = ['title', 'description', 'status', 'priority', 'dueDate', 'assigneeId', 'completedAt', 'labelIds'] as const;

export type TaskListQuery = Omit<ListProjectTasksInput, 'projectId'>;

/** The columns an update writes; `completedAt` follows the status into and out of DONE. */
function columnsToSet(patch: Omit<UpdateTaskInput, 'id'>, before: store.TaskRow, now: Date): Partial<store.TaskRow> {
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
    ...(enteringDone ? { completedAt: now } : leavingDone ? { completedAt: null } : {}),
    updatedAt: nextVersion(before.updatedAt, now),
  };
}

/** What an update of `before` writes, the task it leaves, and the tracked fields it changes (null: none). */
function planUpdate(patch: Omit<UpdateTaskInput, 'id'>, before: store.TaskRow) {
  const set = columnsToSet(patch, before, new Date());
  const after = toTask({ ...before, ...set });
  return { set, after, changes: changedFields(toTask(before), after, TRACKED_TASK_FIELDS) };
}

export function createTasksService(db: Db) {
  /** The task and the caller's access to its project; 404 for non-members, as for unknown ids. */
  async function loadTask(userId: string, taskId: string): Promise<{ task: store.TaskRow; access: ProjectAccess }> {
    return accessOf(userId, isId(taskId) ? await store.findTaskForUser(db, taskId, userId) : undefined);
  }

  /** loadTask, with the caller's name (for what they author on the task). */
  async function loadTaskForAuthor(userId: string, taskId: string) {
    const found = isId(taskId) ? await store.findTaskForAuthor(db, taskId, userId) : undefined;
    return { ...accessOf(userId, found), authorName: found?.callerName ?? '' };
  }

  function accessOf(userId: string, found: { task: store.TaskRow; role: ProjectAccess['role']; ownerId: string } | undefined) {
    if (!found) throw notFound('Task');
    requireReach(found.task.projectId, 'Task');
    return {
      task: found.task,
      access: { projectId: found.task.projectId, role: found.role, isOwner: found.ownerId === userId },
    };
  }

  /** The assignee and labels a write gives a task must be the project's member and labels. */
  async function requireInProject(projectId: string, { assigneeId, labelIds }: Pick<UpdateTaskInput, 'assigneeId' | 'labelIds'>): Promise<void> {
    await requireAssignable(projectId, assigneeId);
    await requireProjectLabels(projectId, labelIds);
  }

  async function requireAssignable(projectId: string, assigneeId: string | null | undefined): Promise<void> {
    if (assigneeId === null || assigneeId === undefined) return;
    if (!isId(assigneeId) || !(await isMember(db, projectId, assigneeId))) {
      throw new DomainError('BAD_REQUEST', 'The assignee must be a member of the project', 'ASSIGNEE_NOT_MEMBER');
    }
  }

  /** Labels given to a task must be labels of its project: else a 400 naming `labelIds`. */
  async function requireProjectLabels(projectId: string, labelIds: readonly string[] | undefined): Promise<void> {
    if (!labelIds || labelIds.length === 0) return;
    if (!labelIds.every(isId) || (await countProjectLabels(db, projectId, labelIds)) !== labelIds.length) {
      throw invalidField(['labelIds'], "Each id must name a label of the task's project", 'LABEL_NOT_IN_PROJECT');
    }
  }

  function parseQuery(userId: string, query: TaskListQuery) {
    const sort = query.sort ?? 'createdAt';
    const descending = sort.startsWith('-');
    const field = (descending ? sort.slice(1) : sort) as TaskSortField;
    // Each value once, in one order: the same filter always makes the same statement (see listTasks).
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

  async function listWhere(userId: string, scope: Parameters<typeof store.listTasks>[1], query: TaskListQuery): Promise<Page<Task>> {
    const { filters, order, cursor, limit } = parseQuery(userId, query);
    const rows = await store.listTasks(db, scope, filters, order, cursor, limit + 1);
    return toPage(rows, limit, (task) => task, (task) => store.cursorOf(task, order.field));
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
      const task = isId(taskId) ? await store.findTaskViewForUser(db, taskId, userId) : undefined;
      if (!task) throw notFound('Task');
      requireReach(task.projectId, 'Task');
      return task;
    },

    async create(userId: string, input: CreateTaskInput): Promise<Task> {
      requireReach(input.projectId);
      const status = input.status ?? 'TODO';
      const now = new Date();
      // Every column is set here, so the new task is known before it is written: the access check,
      // the row and its history entry then go to the database in one transaction.
      const row: store.TaskRow = {
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
      const task = toTask(row);
      const created: ChangeEvent = {
        projectId: task.projectId,
        taskId: task.id,
        actorId: userId,
        type: 'task.created',
        resource: task,
      };
      const write = () => store.insertTask(db, row, { userId, ...TASK_WRITERS }, created);
      const wellFormed =
        isId(input.projectId) && (input.assigneeId === null || input.assigneeId === undefined || isId(input.assigneeId)) && row.labelIds.every(isId);
      let unstorable: unknown;
      try {
        if (wellFormed && (await write())) return task;
      } catch (error) {
        // A value the database refuses (one the input schemas let through) is the caller's 400, but only after
        // the checks: a non-member still gets 404 and a viewer 403, as if they had come first.
        if (!isUnstorableValue(error)) throw error;
        unstorable = error;
      }
      // Not written, or ids no statement can take: the checks, in their order, say why (404 for a
      // non-member, 403 for a role that may not write, 400 for an assignee who is not a member or
      // a label not of the project).
      const stillThere = () => requireProjectAccess(db, input.projectId, userId);
      authorize(await stillThere(), 'task.write');
      await checkedWhileThere(() => requireInProject(input.projectId, input), stillThere);
      if (unstorable) throw unstorable;
      // They pass now: the caller's role or the assignee's membership changed since the first try.
      if (await write()) return task;
      throw new DomainError('CONFLICT', 'The project changed while the task was being created; try again', 'CONCURRENT_CHANGE');
    },

    /**
     * A compare-and-set: the update and its history entry go in one transaction, applied only if the
     * task is still the version just read, the one checked against If-Match (`versions`) and whose
     * values the history entry reports as old. If another write came in between, the task is read
     * again and the same statement tried against the version it left, so no update is lost and the
     * check is always of the version replaced. A retry happens only after another write succeeded,
     * and the statement takes its locks in the order every writer does, so none can deadlock.
     */
    async update(userId: string, { id, ...patch }: UpdateTaskInput, versions?: Date[]): Promise<Task> {
      for (;;) {
        const { task, access } = await loadTask(userId, id);
        authorize(access, 'task.write');
        await checkedWhileThere(() => requireInProject(task.projectId, patch), () => loadTask(userId, id));
        const { set, after, changes } = planUpdate(patch, requireVersion(task, versions, 'Task'));
        const updated = changes && {
          projectId: after.projectId,
          taskId: task.id,
          actorId: userId,
          type: 'task.updated' as const,
          resource: after,
          changes,
        };
        if (await store.updateTaskIfUnchanged(db, id, task.updatedAt, set, updated)) return after;
      }
    },

    async remove(userId: string, taskId: string, versions?: Date[]): Promise<{ message: string }> {
      const { access } = await loadTask(userId, taskId);
      authorize(access, 'task.write');
      await transactionIn(db, { projectId: access.projectId }, 'Task', async (tx) => {
        const task = requireVersion(await store.findTask(tx, taskId, { forUpdate: true }), versions, 'Task');
        // Deleted first: the event is the transaction's last statement (events/record.ts).
        await store.deleteTask(tx, taskId);
        await recordEvent(tx, { projectId: task.projectId, taskId, actorId: userId, type: 'task.deleted', resource: toTask(task) });
      });
      return { message: 'Task deleted' };
    },

    loadTask,
    loadTaskForAuthor,
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
