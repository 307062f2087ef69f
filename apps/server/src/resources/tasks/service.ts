import type { Db } from '@tasklane/db';
import { type CreateTaskInput, type FieldChange, type ListProjectTasksInput, type MoveTaskInput, type TaskFilterQuery, type RelatedTask, type StateCategory, TASK_KEY_PATTERN, type Task, type TaskSortField, type UpdateTaskInput } from '@tasklane/schemas';
import { isMember, requireProjectAccess } from '../policy/access';
import { isId, newId } from '../../platform/ids';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import type { FieldFilter } from './field-values';
import { nextVersion, requireVersion } from '../../platform/versions';
import { authorize, currentGrant, grantedProjects, type ProjectAccess, requireReach } from '../policy/policy';
import { filesOfDeletedTask } from '../../events/attachment-files';
import { type ChangeEvent, recordEvent } from '../../events/record';
import { changedFields } from '../../events/changes';
import { lockTaskScope, type TaskLock, transactionIn } from '../../events/scope';
import { DomainError, invalidField, notFound } from '../../platform/errors';
import * as store from './store';
import { positionBetween, positionOfNewTask } from './placement';
import { clearUserValues, copyTaskValues, fieldCursorCheck, fieldQueryOf, fieldValueChanges, findFieldsIn, lockFieldsOfTasks, mergeFieldValues, planFieldWrites, tasksWithUserValue, type ValueWrite, writeTaskValues } from './field-values';
import type { CompletingTasks } from './completing';
import { checkRecurrence, nextDueDate, nextRule, storedNextDueDate } from './recurrence';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A task's key, e.g. ENG-42: its project's current key and its number. The one derivation, for a task (toTask) and a related task's summary. */
const taskKey = (projectKey: string, number: number) => `${projectKey}-${number}`;

/** The one mapping of a task's row (every read selects all its columns: store.ts) to what the API shows. */
export const toTask = (row: store.TaskRow): Task => ({
  id: row.id,
  title: row.title,
  description: row.description,
  status: row.status,
  priority: row.priority,
  dueDate: iso(row.dueDate),
  startDate: iso(row.startDate),
  assigneeId: row.assigneeId,
  projectId: row.projectId,
  createdById: row.createdById,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  completedAt: iso(row.completedAt),
  labelIds: row.labelIds,
  commentCount: row.commentCount,
  number: row.number,
  key: taskKey(row.projectKey, row.number),
  parentId: row.parentId,
  subtaskCount: row.subtaskCount,
  subtasksDone: row.subtasksDone,
  blocked: row.blocked,
  attachmentCount: row.attachmentCount,
  position: row.position,
  fields: row.fields,
  recurrence: row.recurrence,
  recurredFromId: row.recurredFromId,
  // Stored with the rule and the due date (columnsToSet); a recurring row written before migration
  // 0019 has none stored yet, and steps its rule here until its next write.
  nextDueDate: iso(row.nextDueDate ?? storedNextDueDate(row.recurrence, row.dueDate)),
  estimate: row.estimate,
  timeSpentMinutes: row.timeSpentMinutes,
});

/** The project key (upper case) and number a task key names, if `text` is one ("eng-42" too). */
export function parseTaskKey(text: string): { stem: string; number: number } | undefined {
  const match = TASK_KEY_PATTERN.exec(text);
  const number = Number(match?.[2]);
  // A number beyond the column's range names no task.
  return match && number <= 2_147_483_647 ? { stem: match[1]!.toUpperCase(), number } : undefined;
}

/** A task's label ids as stored: lower case, in id order (so every read shows them in one order). */
const normalizedLabelIds = (labelIds: readonly string[]): string[] => labelIds.map((id) => id.toLowerCase()).sort();

/** The fields a task update reports with old and new values. */
const TRACKED_TASK_FIELDS = ['title', 'description', 'status', 'priority', 'dueDate', 'startDate', 'assigneeId', 'completedAt', 'labelIds', 'parentId', 'position', 'recurrence', 'estimate'] as const;

export type TaskListQuery = TaskFilterQuery;

/** A change of a task: a PATCH's fields, or a move's status and position (placement.ts). */
type TaskChange = Omit<UpdateTaskInput, 'id'> & { position?: string };

/**
 * The columns an update writes. `completedAt` follows the status: set on entering a state of the
 * `completed` category (kept when moving between two of them), cleared on leaving one; `category`
 * is that of the state the patch sets (undefined when it sets none).
 */
function columnsToSet(patch: TaskChange, before: store.TaskRow, category: StateCategory | undefined, now: Date): Partial<store.TaskRow> {
  const moving = patch.status !== undefined && patch.status !== before.status;
  const entering = moving && category === 'completed' && before.completedAt === null;
  const leaving = moving && category !== 'completed';
  return {
    ...(patch.title !== undefined ? { title: patch.title } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
    ...(patch.status !== undefined ? { status: patch.status } : {}),
    ...(patch.priority !== undefined ? { priority: patch.priority } : {}),
    ...(patch.dueDate !== undefined ? { dueDate: patch.dueDate === null ? null : new Date(patch.dueDate) } : {}),
    ...(patch.startDate !== undefined ? { startDate: patch.startDate === null ? null : new Date(patch.startDate) } : {}),
    // Lower case, as the database returns ids: the current assignee in upper case is no change.
    ...(patch.assigneeId !== undefined ? { assigneeId: patch.assigneeId?.toLowerCase() ?? null } : {}),
    ...(patch.labelIds !== undefined ? { labelIds: normalizedLabelIds(patch.labelIds) } : {}),
    ...(patch.parentId !== undefined ? { parentId: patch.parentId?.toLowerCase() ?? null } : {}),
    ...(patch.position !== undefined ? { position: patch.position } : {}),
    ...(patch.recurrence !== undefined ? { recurrence: patch.recurrence } : {}),
    ...(patch.estimate !== undefined ? { estimate: patch.estimate } : {}),
    ...(entering ? { completedAt: now } : leaving ? { completedAt: null } : {}),
    ...nextDueDateColumn(patch, before),
    updatedAt: nextVersion(before.updatedAt, now),
  };
}

/**
 * The stored next due date (migration 0019) when a change sets the rule or the due date, or when
 * the row has none stored yet (a recurring row written before 0019); a change of neither writes none.
 */
function nextDueDateColumn(patch: TaskChange, before: store.TaskRow): Pick<store.TaskRow, 'nextDueDate'> | Record<string, never> {
  const legacy = before.nextDueDate === null && before.recurrence !== null;
  if (patch.recurrence === undefined && patch.dueDate === undefined && !legacy) return {};
  const rule = patch.recurrence !== undefined ? patch.recurrence : before.recurrence;
  const due = patch.dueDate !== undefined ? (patch.dueDate === null ? null : new Date(patch.dueDate)) : before.dueDate;
  return { nextDueDate: storedNextDueDate(rule, due) };
}

/** What an update of `before` writes, the task it leaves, and the tracked fields it changes (null: none). */
function planUpdate(patch: TaskChange, before: store.TaskRow, category: StateCategory | undefined, fieldWrites: readonly ValueWrite[] = []) {
  const { fields: _fields, ...columnsPatch } = patch;
  const set = columnsToSet(columnsPatch, before, category, new Date());
  const after = toTask({ ...before, ...set, fields: mergeFieldValues(before.fields, fieldWrites) });
  const fieldChange = fieldValueChanges(before.fields, after.fields);
  const changes = changedFields(toTask(before), after, TRACKED_TASK_FIELDS);
  return { set, after, changes: fieldChange ? { ...changes, fields: fieldChange } : changes };
}

/** The 400 for a status that is no state of the task's project. */
const unknownStatus = (status: string) =>
  invalidField(['status'], `The project has no state with the key "${status}" (GET /projects/{id}/states lists them)`, 'UNKNOWN_STATE');

/** The task and the caller's access to its project; 404 for non-members, as for unknown ids. */
function accessOf(userId: string, found: store.TaskForCaller | undefined): { task: store.TaskForCaller; access: ProjectAccess } {
  if (!found) throw notFound('Task');
  requireReach(found.projectId, 'Task');
  return { task: found, access: { projectId: found.projectId, role: found.role, isOwner: found.ownerId === userId } };
}

/**
 * The checks that a write's assignee is a member of the project, its labels are the project's
 * (each found label locked FOR KEY SHARE: store.lockProjectLabels) and its parent is a task of the
 * project (locked FOR KEY SHARE: store.lockParent), in `tx`, which holds the project's lock, so no
 * membership, label or parent can go before the write commits. Their refusal is returned, not
 * thrown: the caller throws it only after its own access check, which comes first (404, then 403,
 * then 400), and the reads go to the database together with the caller's, sent before it (so the
 * parent's row is locked before the written task's: platform/locks.ts). An unknown parent and one
 * of another project are the same 400, which tells nothing about other projects.
 */
async function inProjectRefusal(
  tx: Db,
  projectId: string,
  { assigneeId, labelIds = [], parentId }: Pick<UpdateTaskInput, 'assigneeId' | 'labelIds' | 'parentId'>,
): Promise<DomainError | undefined> {
  const [labelsFound, assigneeFound, parentFound] = await Promise.all([
    labelIds.length > 0 && labelIds.every(isId) ? store.lockProjectLabels(tx, projectId, labelIds) : 0,
    assigneeId !== null && assigneeId !== undefined && isId(assigneeId) ? isMember(tx, projectId, assigneeId) : false,
    typeof parentId === 'string' && isId(parentId) ? store.lockParent(tx, projectId, parentId) : false,
  ]);
  if (typeof parentId === 'string' && !parentFound) return invalidField(['parentId'], "parentId must name a task of the task's project", 'PARENT_NOT_IN_PROJECT');
  if (assigneeId !== null && assigneeId !== undefined && !assigneeFound) {
    return new DomainError('BAD_REQUEST', 'The assignee must be a member of the project', 'ASSIGNEE_NOT_MEMBER');
  }
  if (labelsFound !== labelIds.length) return invalidField(['labelIds'], "Each id must name a label of the task's project", 'LABEL_NOT_IN_PROJECT');
  return undefined;
}

/**
 * The 400 for a task that would start after it is due, judged on the task as the write leaves it:
 * a PATCH of only its due date, earlier than its stored start, is refused as one of its start is.
 * Equal dates are a one-day (one-instant) task, allowed.
 */
function checkStartBeforeDue(task: Pick<Task, 'startDate' | 'dueDate'>): void {
  if (task.startDate !== null && task.dueDate !== null && Date.parse(task.startDate) > Date.parse(task.dueDate)) {
    throw invalidField(['startDate'], 'startDate must not be after dueDate', 'START_AFTER_DUE');
  }
}

/** The 400 for a recurring task without a due date (the rule is stepped from it). */
const recurrenceNeedsDueDate = () => invalidField(['recurrence'], 'A recurring task needs a dueDate: its rule is stepped from it', 'RECURRENCE_NEEDS_DUE_DATE');

/**
 * What a status change locks before the rows of the tasks it changes (platform/locks.ts), in case
 * it completes recurring tasks and makes their next occurrences: the project's first unstarted
 * state (the occurrences'; given when the caller holds the project's states already), the labels
 * the tasks carry, their parents and the custom fields they have values of (which an occurrence
 * copies), FOR KEY SHARE. Sent in the pipeline before the rows' locks.
 */
const lockForOccurrences = (tx: Db, projectId: string, which: CompletingTasks, unstarted?: { key: string }) =>
  Promise.all([
    unstarted ?? store.lockState(tx, projectId, undefined),
    store.lockLabelsOfTasks(tx, which),
    lockFieldsOfTasks(tx, which),
    store.lockParentsOfTasks(tx, which),
  ]).then(([unstarted, labelIds, fieldIds]) => ({ unstarted, labelIds, fieldIds }));

type OccurrenceLocks = Awaited<ReturnType<typeof lockForOccurrences>>;

/**
 * The start of every change of a task, a PATCH's or a move's, in its transaction `tx` (which holds
 * the project's lock): the state the patch sets, its labels and parent (inProjectRefusal) and the
 * task's row FOR NO KEY UPDATE, called in this order, so sent in it (one round trip) and locked in
 * it (platform/locks.ts); then the checks in their order: 404 for non-members, 403, the patch's
 * 400s (custom field values among them). The task as locked (its version is the caller's to check, after any check of its own),
 * the category of the state the patch sets (undefined when it sets none), the field values it writes
 * and, for a status change, the locks a next occurrence needs (lockForOccurrences).
 */
async function lockForChange(tx: Db, userId: string, projectId: string, taskId: string, patch: TaskChange) {
  const [state, refusal, fieldPlan, locks, found] = await Promise.all([
    patch.status === undefined ? undefined : store.lockState(tx, projectId, patch.status),
    inProjectRefusal(tx, projectId, patch),
    patch.fields ? planFieldWrites(tx, projectId, patch.fields) : { writes: [] },
    patch.status === undefined ? undefined : lockForOccurrences(tx, projectId, { taskId }),
    store.findTaskForUser(tx, taskId, userId, { lock: 'no key update' }),
  ]);
  const { task, access } = accessOf(userId, found);
  authorize(access, 'task.write');
  if (refusal) throw refusal;
  if ('refusal' in fieldPlan) throw fieldPlan.refusal;
  if (patch.status !== undefined && !state) throw unknownStatus(patch.status);
  // An occurrence copies what the completed task holds after this change: the labels and fields the
  // patch itself sets are locked by their checks above (inProjectRefusal, planFieldWrites), so they join.
  const occurrenceLocks = locks && {
    ...locks,
    labelIds: [...new Set([...locks.labelIds, ...(patch.labelIds ?? []).map((id) => id.toLowerCase())])],
    fieldIds: [...new Set([...locks.fieldIds, ...fieldPlan.writes.filter((write) => write.value !== null).map((write) => write.fieldId)])],
  };
  return { task, category: state?.category, fieldWrites: fieldPlan.writes, locks: occurrenceLocks };
}

/**
 * The end of every change of a task, a PATCH's or a move's, in its transaction `tx` (with the
 * task's row locked): the update planned from `before` (the version checked), written, and
 * recorded as `task.updated` with the fields it changes. An update that changes no tracked field
 * is still a new version, with nothing to record. A change that completes a recurring task also
 * makes its next occurrence (makeOccurrence), in the same transaction.
 */
async function applyChange(
  tx: Db,
  userId: string,
  before: store.TaskRow,
  patch: TaskChange,
  category: StateCategory | undefined,
  { fieldWrites = [], locks }: { fieldWrites?: readonly ValueWrite[]; locks?: OccurrenceLocks } = {},
): Promise<Task> {
  const { set, after, changes } = planUpdate(patch, before, category, fieldWrites);
  if (after.recurrence !== null && after.dueDate === null) throw recurrenceNeedsDueDate();
  checkStartBeforeDue(after);
  if (fieldWrites.length > 0 || completesRecurring(before, set, after, locks)) {
    const { events } = await writeChange(tx, userId, before, { set, after, changes }, { fieldWrites, locks });
    for (const event of events) await recordEvent(tx, event);
    return after;
  }
  // The update and its record sent together: one round trip while the row is locked.
  await Promise.all([
    store.updateTask(tx, before.id, set),
    changes && recordEvent(tx, { projectId: before.projectId, taskId: before.id, actorId: userId, type: 'task.updated', resource: after, changes }),
  ]);
  return after;
}

/** Whether a change (`set`, leaving `after`) completes a recurring task, with the locks (`locks`) to make its next occurrence. */
const completesRecurring = (before: store.TaskRow, set: Partial<store.TaskRow>, after: Task, locks: OccurrenceLocks | undefined): locks is OccurrenceLocks =>
  before.completedAt === null && set.completedAt instanceof Date && locks !== undefined && after.recurrence !== null && after.dueDate !== null;

/**
 * A planned change (planUpdate) written, in `tx` with the task's row locked: the row and its
 * values first, then any next occurrence (makeOccurrence), in the same transaction. Returns the
 * events to record: the caller records them last, after every lock of its write (recordEvent
 * takes the project's lock last: platform/locks.ts), so a change of many tasks (moveTasksToState)
 * makes every occurrence before its first record.
 */
async function writeChange(
  tx: Db,
  userId: string,
  before: store.TaskRow,
  { set, after, changes }: ReturnType<typeof planUpdate>,
  { fieldWrites = [], locks }: { fieldWrites?: readonly ValueWrite[]; locks?: OccurrenceLocks },
): Promise<{ events: ChangeEvent[] }> {
  if (fieldWrites.length > 0) await writeTaskValues(tx, before.id, [...fieldWrites]);
  // The occurrence before the completed row's update: its number takes the project's row (step 2b of
  // platform/locks.ts) and its insert the project's lock (step 5), as a create does; the update's
  // count trigger takes that lock too, and taken first it would wait on a create holding the row.
  const occurrence = completesRecurring(before, set, after, locks) ? await makeOccurrence(tx, userId, { ...before, ...set }, locks) : undefined;
  await store.updateTask(tx, before.id, set);
  const events: ChangeEvent[] = [];
  if (changes) events.push({ projectId: before.projectId, taskId: before.id, actorId: userId, type: 'task.updated', resource: after, changes });
  if (occurrence) events.push({ projectId: before.projectId, taskId: occurrence.id, actorId: userId, type: 'task.created', resource: occurrence });
  return { events };
}

/**
 * The next occurrence of `done`, a recurring task its change just completed (its row locked by
 * the change, and the project's first unstarted state and its labels before it: lockForOccurrences),
 * inserted in the change's transaction; undefined when it makes none: its rule has no further date
 * (COUNT or UNTIL reached), or it made one before (reopened and completed again, or another
 * instance's or a retry's completion: the check, under the row's lock, and behind it the unique
 * index on recurred_from_id). A new task as a create makes it (same title, description, priority, estimate,
 * assignee, labels, parent and custom field values: copyTaskValues; number and position taken as a create takes them, after the row's lock:
 * the project's counter row and position lock are taken by no write that then waits for a task's
 * row), carrying the rule with COUNT one less and naming the task it came from.
 *
 * One write, one event: this write is the completion, and it makes two changes, so it records two
 * events, each a change of its own as the API shows changes: the completed task's `task.updated`
 * and the new task's `task.created` (as POST /tasks records it, so webhooks, live streams and
 * history see a created task like any other), both recorded last, after every lock.
 */
async function makeOccurrence(tx: Db, userId: string, done: store.TaskRow, locks: OccurrenceLocks): Promise<Task | undefined> {
  const due = nextDueDate(done.recurrence!, done.dueDate!);
  if (!due || !locks.unstarted || (await store.hasOccurrence(tx, done.id))) return undefined;
  const { number, projectKey } = await store.takeTaskNumber(tx, done.projectId);
  const position = await positionOfNewTask(tx, done.projectId);
  const now = new Date();
  const columns: store.TaskColumns = {
    id: newId(),
    projectId: done.projectId,
    title: done.title,
    description: done.description,
    status: locks.unstarted.key,
    priority: done.priority,
    dueDate: due,
    // The same span before its due date as the completed task had (a start is never after its due date).
    startDate: done.startDate && new Date(due.getTime() - (done.dueDate!.getTime() - done.startDate.getTime())),
    assigneeId: done.assigneeId,
    createdById: userId,
    completedAt: null,
    // Those still there: each locked before the task's row (lockForOccurrences).
    labelIds: done.labelIds.filter((id) => locks.labelIds.includes(id)),
    commentCount: 0,
    parentId: done.parentId,
    number,
    position,
    createdAt: now,
    updatedAt: now,
    recurrence: nextRule(done.recurrence!),
    recurredFromId: done.id,
    nextDueDate: storedNextDueDate(nextRule(done.recurrence!), due),
    estimate: done.estimate,
  };
  if (!(await store.insertOccurrence(tx, columns))) return undefined;
  const fields = await copyTaskValues(tx, done.id, columns.id, locks.fieldIds);
  return toTask({ ...columns, projectKey, subtaskCount: 0, subtasksDone: 0, blocked: false, attachmentCount: 0, timeSpentMinutes: 0, fields });
}

export function createTasksService(db: Db) {
  /**
   * A write's transaction on a task (its update, move or deletion, a write of its comments or
   * relations), whose first statement finds the task's project and locks it, then (`lockTask`) the
   * task's row, FOR KEY SHARE or FOR NO KEY UPDATE (events/scope.ts TaskLock): lockTaskScope, the lock order of platform/locks.ts. 404 for a
   * malformed or unknown id, a task or project gone, or a project the request's token does not
   * reach; the caller's access is checked in `body`, which is given the project's id.
   */
  async function inTaskTransaction<T>(taskId: string, options: { lockTask: false | TaskLock }, body: (tx: Db, projectId: string) => Promise<T>): Promise<T> {
    if (!isId(taskId)) throw notFound('Task');
    return db.transaction(async (tx) => {
      const projectId = await lockTaskScope(tx, taskId, options);
      if (!projectId) throw notFound('Task');
      requireReach(projectId, 'Task');
      return body(tx, projectId);
    });
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

  function parseQuery(userId: string, query: TaskListQuery, fieldFilters: FieldFilter[]) {
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
      statusCategories: list(query.statusCategory),
      priorities: list(query.priority),
      assigneeId,
      dueBefore: query.dueBefore ? new Date(query.dueBefore) : undefined,
      dueAfter: query.dueAfter ? new Date(query.dueAfter) : undefined,
      startBefore: query.startBefore ? new Date(query.startBefore) : undefined,
      startAfter: query.startAfter ? new Date(query.startAfter) : undefined,
      text: query.q?.trim() || undefined,
      labelIds: query.labelId ? normalizedLabelIds([...new Set(query.labelId.map((id) => id.toLowerCase()))]) : undefined,
      parentId: query.parentId === 'none' ? null : query.parentId?.toLowerCase(),
      key: query.q ? parseTaskKey(query.q.trim()) : undefined,
      fields: fieldFilters,
    };
    return { filters, order: { field, descending }, limit: pageSize(query.limit) };
  }

  /**
   * A page of the scope's tasks. The query's custom fields are found among `fieldScope`'s (a
   * project's, or the member's projects'): an unknown one is a 400 naming its key.
   */
  async function listWhere(userId: string, scope: store.TaskScope, query: TaskListQuery, fieldScope: { projectId: string } | { memberId: string }): Promise<Page<Task>> {
    const fieldQuery = await fieldQueryOf(query, (ids) => findFieldsIn(db, fieldScope, ids));
    const { filters, order, limit } = parseQuery(userId, query, fieldQuery.filters);
    const sort = fieldQuery.sort;
    if (sort) {
      const cursor = decodeCursor(query.cursor, [fieldCursorCheck(sort.column), cursorChecks.id]);
      const rows = await store.listTasksByField(db, scope, filters, sort, cursor, limit + 1);
      return toPage(rows, limit, toTask, (row) => [row.sortValue, row.id]);
    }
    const cursor = decodeCursor(query.cursor, [store.SORT_CURSOR_CHECKS[order.field], cursorChecks.id]);
    const rows = await store.listTasks(db, scope, filters, order, cursor, limit + 1);
    // A joined sort's value (a state's place, an assignee's name) is the row's sortValue; the others are the task's own.
    const { field } = order;
    const cursorOf = store.isJoinedSort(field) ? (row: store.SortedRow) => [row.sortValue, row.id] : (row: store.SortedRow) => store.cursorOf(toTask(row), field);
    return toPage(rows, limit, toTask, cursorOf);
  }

  return {
    async listForProject(userId: string, { projectId, ...query }: ListProjectTasksInput): Promise<Page<Task>> {
      if (!isId(projectId)) throw notFound('Project');
      requireReach(projectId);
      let page: Page<Task>;
      try {
        page = await listWhere(userId, { projectId, memberId: userId }, query, { projectId: projectId.toLowerCase() });
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
      return listWhere(userId, { projectIdsOfMember: userId, within: grantedProjects(currentGrant()) }, query, { memberId: userId });
    },

    /** By id, or by key ("ENG-42", any case, with the project's current or a former key). */
    async get(userId: string, idOrKey: string): Promise<Task> {
      const key = isId(idOrKey) ? undefined : parseTaskKey(idOrKey);
      const taskId = key ? await store.findTaskIdByKey(db, key.stem, key.number) : idOrKey;
      if (!taskId) throw notFound('Task');
      return (await loadTask(userId, taskId)).task;
    },

    /**
     * One transaction: the project's row locked (transactionIn), the caller's access and the
     * assignee and labels checked under that lock, the task inserted and its creation recorded.
     */
    async create(userId: string, input: CreateTaskInput): Promise<Task> {
      requireReach(input.projectId);
      if (!isId(input.projectId)) throw notFound('Project');
      const recurrence = typeof input.recurrence === 'string' ? checkRecurrence(input.recurrence) : null;
      const now = new Date();
      // As the database will return them: a uuid in upper case names the same project or user.
      const projectId = input.projectId.toLowerCase();
      return transactionIn(db, { projectId }, 'Project', async (tx) => {
        // The state first (the lock order of platform/locks.ts): the one named, or the project's first unstarted one.
        const [state, refusal, fieldPlan, access] = await Promise.all([
          store.lockState(tx, projectId, input.status),
          inProjectRefusal(tx, projectId, input),
          input.fields ? planFieldWrites(tx, projectId, input.fields) : { writes: [] },
          requireProjectAccess(tx, projectId, userId),
        ]);
        authorize(access, 'task.write');
        if (refusal) throw refusal;
        if ('refusal' in fieldPlan) throw fieldPlan.refusal;
        if (!state) throw input.status === undefined ? new Error(`Project ${projectId} has no unstarted state`) : unknownStatus(input.status);
        if (recurrence && !input.dueDate) throw recurrenceNeedsDueDate();
        checkStartBeforeDue({ startDate: input.startDate ?? null, dueDate: input.dueDate ?? null });
        const { number, projectKey } = await store.takeTaskNumber(tx, projectId);
        // A new task goes to the end of its column (as Plane places a new issue), after the checks' locks.
        const position = await positionOfNewTask(tx, projectId);
        const columns: store.TaskColumns = {
          id: newId(),
          projectId,
          title: input.title,
          description: input.description ?? '',
          status: state.key,
          priority: input.priority ?? 'MEDIUM',
          dueDate: input.dueDate ? new Date(input.dueDate) : null,
          startDate: input.startDate ? new Date(input.startDate) : null,
          assigneeId: input.assigneeId?.toLowerCase() ?? null,
          createdById: userId,
          completedAt: state.category === 'completed' ? now : null,
          labelIds: normalizedLabelIds(input.labelIds ?? []),
          commentCount: 0,
          parentId: input.parentId?.toLowerCase() ?? null,
          number,
          position,
          estimate: input.estimate ?? null,
          createdAt: now,
          updatedAt: now,
          recurrence,
          recurredFromId: null,
          nextDueDate: storedNextDueDate(recurrence, input.dueDate ? new Date(input.dueDate) : null),
        };
        // A new task has no subtasks and no relations yet.
        const task = toTask({ ...columns, projectKey, subtaskCount: 0, subtasksDone: 0, blocked: false, attachmentCount: 0, timeSpentMinutes: 0, fields: mergeFieldValues({}, fieldPlan.writes) });
        if (fieldPlan.writes.length > 0) {
          // The values after the task's row, before the record (the project's lock comes last).
          await store.insertTask(tx, columns);
          await writeTaskValues(tx, columns.id, fieldPlan.writes);
          await recordEvent(tx, { projectId, taskId: columns.id, actorId: userId, type: 'task.created', resource: task });
          return task;
        }
        // The insert and its record sent together (store.ts): one round trip. A value PostgreSQL
        // refuses fails the insert, and the request is the caller's 400 (transport/trpc/init.ts).
        await Promise.all([
          store.insertTask(tx, columns),
          recordEvent(tx, { projectId, taskId: columns.id, actorId: userId, type: 'task.created', resource: task }),
        ]);
        return task;
      });
    },

    /**
     * One transaction, in the lock order of platform/locks.ts: the project's row (inTaskTransaction),
     * the labels the patch names, the task's row; then the checks, once, under those locks (access,
     * assignee and labels, If-Match against the version locked), the update and its record. No
     * other write of the task can come between the read and the write, so none is lost and the
     * history's old values are those replaced. The row stays locked until commit, so the
     * statements after the lock are few and sent together: the update and its record in one
     * round trip, then COMMIT.
     */
    async update(userId: string, { id, ...input }: UpdateTaskInput, versions?: Date[]): Promise<Task> {
      // The rule as stored (checkRecurrence): a malformed one is the request's 400, as the schema's are.
      const patch = typeof input.recurrence === 'string' ? { ...input, recurrence: checkRecurrence(input.recurrence) } : input;
      const newParent = typeof patch.parentId === 'string' && isId(patch.parentId) ? patch.parentId : undefined;
      return inTaskTransaction(id, { lockTask: false }, async (tx, projectId) => {
        // A move under a parent waits for any other in the project, so its cycle check below is sound.
        if (newParent) await store.lockTaskTree(tx, projectId);
        const { task, category, fieldWrites, locks } = await lockForChange(tx, userId, projectId, id, patch);
        if (newParent && newParent.toLowerCase() !== task.parentId && (await store.wouldCycle(tx, task.id, newParent))) {
          throw invalidField(['parentId'], 'A task cannot be a subtask of itself or of its own subtasks', 'PARENT_CYCLE');
        }
        // A status change keeps the task's position: it lands in its new column by its key.
        return applyChange(tx, userId, requireVersion(task, versions, 'Task'), patch, category, { fieldWrites, locks });
      });
    },

    /**
     * Places the task in its column (or in `status`, a status change as by PATCH) between
     * `afterId` and `beforeId` (placement.ts): one transaction, the project's row, the state it
     * enters, the task's row, the checks as for an update, If-Match, then the project's position
     * lock, the neighbours read under it, and the change written and recorded as an update's. Only
     * this task's key changes.
     */
    async move(userId: string, { id, status, afterId, beforeId }: MoveTaskInput, versions?: Date[]): Promise<Task> {
      return inTaskTransaction(id, { lockTask: false }, async (tx, projectId) => {
        const patch: TaskChange = status === undefined ? {} : { status };
        const { task, category, locks } = await lockForChange(tx, userId, projectId, id, patch);
        const before = requireVersion(task, versions, 'Task');
        const position = await positionBetween(tx, projectId, before.id, status ?? before.status, { afterId, beforeId });
        return applyChange(tx, userId, before, { ...patch, position }, category, { locks });
      });
    },

    /**
     * One transaction: the project's row, then the task's FOR UPDATE, If-Match checked, its
     * subtasks detached (each a `task.updated` of parentId to null: nothing is deleted that the
     * caller did not name), the deletion recorded.
     */
    async remove(userId: string, taskId: string, versions?: Date[]): Promise<{ message: string }> {
      await inTaskTransaction(taskId, { lockTask: false }, async (tx, projectId) => {
        const { task, access } = accessOf(userId, await store.findTaskForUser(tx, taskId, userId, { lock: 'update' }));
        authorize(access, 'task.write');
        requireVersion(task, versions, 'Task');
        const detached = await store.detachSubtasks(tx, task.id);
        // Its files, for their removal after the commit, under the files lock (events/attachment-files.ts).
        const attachmentSha256s = await filesOfDeletedTask(tx, projectId, task.id);
        // Deleted before the records: recordEvent's project lock is the last one a write takes.
        await store.deleteTask(tx, taskId);
        await recordUpdates(tx, projectId, userId, detached, () => ({ parentId: { old: task.id, new: null } }));
        const resource = { ...toTask({ ...task, subtaskCount: 0, subtasksDone: 0, attachmentCount: 0 }), attachmentSha256s };
        await recordEvent(tx, { projectId, taskId: task.id, actorId: userId, type: 'task.deleted', resource });
      });
      return { message: 'Task deleted' };
    },

    /**
     * Of `taskIds`, the tasks the caller can see (a member of their project, which the request's
     * token reaches), in brief: those of a list of relations.
     */
    async visibleSummaries(userId: string, taskIds: readonly string[]): Promise<Map<string, RelatedTask>> {
      const ids = taskIds.filter(isId);
      if (ids.length === 0) return new Map();
      const rows = await store.visibleTaskSummaries(db, ids, userId, grantedProjects(currentGrant()));
      return new Map(rows.map((row) => [row.id, { id: row.id, key: taskKey(row.projectKey, row.number), title: row.title, status: row.status, projectId: row.projectId }]));
    },

    inTaskTransaction,
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

/**
 * For the members service, in its transaction (which holds the project's row FOR UPDATE, so no task
 * write is between): a member who leaves is named by no user field either, as by no assignee, so
 * the project's user field values naming them are cleared, each task's change a new version and a
 * `task.updated` of its `fields`, recorded as `actorId`'s.
 */
export async function clearUserFieldValuesOf(tx: Db, projectId: string, memberUserId: string, actorId: string): Promise<void> {
  const taskIds = await tasksWithUserValue(tx, projectId, memberUserId);
  await changeFieldValuesOf(tx, projectId, taskIds, actorId, () => clearUserValues(tx, projectId, memberUserId));
}

/**
 * For the states service, in its transaction, which holds the project's states (so no task can
 * enter the deleted one meanwhile): the project's tasks in state `fromKey` move to `to`, each an
 * update as PATCH makes it (completedAt follows the category) recorded as `actorId`'s. Moved into a
 * completed state, a recurring task makes its next occurrence as a PATCH completing it does, in
 * `unstarted` (the project's first unstarted state, another than `fromKey`): its locks are taken
 * for all the tasks before their rows (lockForOccurrences), and every record comes after every
 * occurrence (writeChange).
 */
export async function moveTasksToState(
  tx: Db,
  projectId: string,
  fromKey: string,
  to: { key: string; category: StateCategory },
  actorId: string,
  unstarted: { key: string },
): Promise<void> {
  const locks = to.category === 'completed' ? await lockForOccurrences(tx, projectId, { projectId, status: fromKey }, unstarted) : undefined;
  const events: ChangeEvent[] = [];
  for (const before of await store.lockTasksInState(tx, projectId, fromKey)) {
    events.push(...(await writeChange(tx, actorId, before, planUpdate({ status: to.key }, before, to.category), { locks })).events);
  }
  for (const event of events) await recordEvent(tx, event);
}

/** Each task a bulk update changed, recorded as `actorId`'s `task.updated` with the changes `changesOf` tells. */
async function recordUpdates(tx: Db, projectId: string, actorId: string, rows: store.TaskRow[], changesOf: (task: Task) => Record<string, FieldChange>) {
  for (const row of rows) {
    const task = toTask(row);
    await recordEvent(tx, { projectId, taskId: task.id, actorId, type: 'task.updated', resource: task, changes: changesOf(task) });
  }
}

/**
 * For the fields service, in its transaction (which holds the field's row FOR UPDATE): `change`
 * rewrites or removes the field's values of the tasks `taskIds` (locked FOR NO KEY UPDATE by the
 * caller), and each task whose values it changed gets a new version and a recorded `task.updated`
 * of its `fields`, as `actorId`'s.
 */
export async function changeFieldValuesOf(tx: Db, projectId: string, taskIds: readonly string[], actorId: string, change: () => Promise<unknown>): Promise<void> {
  if (taskIds.length === 0) {
    await change();
    return;
  }
  const before = await store.findTasks(tx, taskIds);
  await change();
  const after = await store.touchTasks(tx, taskIds);
  for (const row of after) {
    const old = before.find((task) => task.id === row.id);
    const fields = old && fieldValueChanges(old.fields, row.fields);
    if (fields) await recordEvent(tx, { projectId, taskId: row.id, actorId, type: 'task.updated', resource: toTask(row), changes: { fields } });
  }
}
