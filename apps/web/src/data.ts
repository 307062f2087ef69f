import type { Attachment, Field, Invitation, Label, Member, Project, Task, TaskPriority } from '@tasklane/schemas';
import { queryClient } from './hooks';
import { client } from './session';

/** Every item of a paged list; the board shows a whole project, so it reads every page. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** The cache's keys: one place names them, so a live event or an edit updates what every page reads. */
export const keys = {
  projects: ['projects'] as const,
  project: (id: string) => ['project', id] as const,
  tasks: (projectId: string) => ['tasks', projectId] as const,
  task: (id: string) => ['task', id] as const,
  members: (projectId: string) => ['members', projectId] as const,
  invitations: (projectId: string) => ['invitations', projectId] as const,
  labels: (projectId: string) => ['labels', projectId] as const,
  states: (projectId: string) => ['states', projectId] as const,
  notifications: ['notifications'] as const,
  comments: (taskId: string) => ['comments', taskId] as const,
  history: (taskId: string) => ['history', taskId] as const,
  relations: (taskId: string) => ['relations', taskId] as const,
  subtasks: (taskId: string) => ['subtasks', taskId] as const,
  attachments: (taskId: string) => ['attachments', taskId] as const,
  /** A preview as a data: URL (null: none); an attachment's bytes never change. */
  thumbnail: (attachmentId: string) => ['thumbnail', attachmentId] as const,
  myTasks: ['my-tasks'] as const,
};

export interface TaskFilters {
  /** A member's user id, `me`, `none`, or empty for anyone. */
  assigneeId: string;
  priority: TaskPriority | '';
  /** A label id, or empty for any. */
  labelId: string;
  text: string;
}

export const NO_FILTERS: TaskFilters = { assigneeId: '', priority: '', labelId: '', text: '' };

/** How many cards one request of a board column reads (issue 37: boards of any size). */
export const COLUMN_PAGE = 50;

/**
 * Each column's cursor of its next page, by project then state key (null: the column is read to its
 * end). Kept beside the cache's task array, which holds every page read so far, so live events and
 * edits (storeTask) keep working on it unchanged.
 */
const columnCursors = new Map<string, Map<string, string | null>>();

/** Whether a column has more tasks on the server than were read. */
export const columnHasMore = (projectId: string, status: string): boolean => Boolean(columnCursors.get(projectId)?.get(status));

/**
 * The first page of each column of the board, in position order: a board of 10 000 tasks opens with
 * at most COLUMN_PAGE cards per column, never one response of the whole project.
 */
export async function loadTasks(projectId: string): Promise<Task[]> {
  const states = await client.states.list({ id: projectId });
  const pages = await Promise.all(states.map((state) => client.tasks.list({ projectId, status: [state.key], sort: 'position', limit: COLUMN_PAGE })));
  columnCursors.set(projectId, new Map(states.map((state, index) => [state.key, pages[index]!.nextCursor ?? null])));
  return pages.flatMap((page) => page.items);
}

const reading = new Set<string>();

/** Reads a column's next page into the cache's task array (once at a time per column). */
export async function loadMoreTasks(projectId: string, status: string): Promise<void> {
  const cursor = columnCursors.get(projectId)?.get(status);
  const id = `${projectId}/${status}`;
  if (!cursor || reading.has(id)) return;
  reading.add(id);
  try {
    const page = await client.tasks.list({ projectId, status: [status], sort: 'position', limit: COLUMN_PAGE, cursor });
    columnCursors.get(projectId)?.set(status, page.nextCursor ?? null);
    queryClient.setQueryData<Task[]>(keys.tasks(projectId), (list) => {
      const known = new Set((list ?? []).map((task) => task.id));
      return [...(list ?? []), ...page.items.filter((task) => !known.has(task.id))];
    });
  } finally {
    reading.delete(id);
  }
}

/**
 * Up to `count` pages of a paged list, each by the cursor of the one before (at least one page; fewer
 * when the list ends): the items, the cursor of the next page (undefined at the end), pages read.
 */
export async function readPages<T>(count: number, read: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>) {
  const items: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await read(cursor);
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
    pages += 1;
  } while (cursor && pages < count);
  return { items, cursor, pages };
}

/**
 * A board filtered by the server (issue 37): the filtered columns' tasks read so far, and per column
 * the cursor of its next page (null: read to its end) and how many pages were read.
 */
export interface FilteredBoard {
  tasks: Task[];
  cursors: Record<string, string | null>;
  pages: Record<string, number>;
}

/** The board's filters as the task list's query parameters (filterParams in pages/task-list.tsx). */
export type BoardQuery = Record<string, string | string[]>;

/**
 * The cache's key of a board filtered by the server: under the list's server queries, so every task
 * or field event (live.ts) reads it afresh.
 */
export const filteredBoardKey = (projectId: string, statuses: string[], query: BoardQuery) => [...fieldKeys.taskQueries(projectId), 'board', statuses.join(','), JSON.stringify(query)] as const;

const columnPage = (projectId: string, status: string, query: BoardQuery, cursor: string | undefined) =>
  client.tasks.list({ projectId, ...query, status: [status], sort: 'position', limit: COLUMN_PAGE, ...(cursor ? { cursor } : {}) });

/**
 * Each column of a board filtered by the server, as many pages as were read of it before (`pagesRead`,
 * one at first): a read afresh after a task's change keeps the cards scrolled to. Each request holds
 * one page, as the unfiltered board's.
 */
export async function loadFilteredBoard(projectId: string, statuses: string[], query: BoardQuery, pagesRead: Record<string, number> = {}): Promise<FilteredBoard> {
  const columns = await Promise.all(
    statuses.map(async (status) => {
      const { items, cursor, pages } = await readPages(pagesRead[status] ?? 1, (cursor) => columnPage(projectId, status, query, cursor));
      return { status, items, cursor: cursor ?? null, pages };
    }),
  );
  return {
    tasks: columns.flatMap((column) => column.items),
    cursors: Object.fromEntries(columns.map((column) => [column.status, column.cursor])),
    pages: Object.fromEntries(columns.map((column) => [column.status, column.pages])),
  };
}

/** Reads the next page of a filtered column into its cached board (once at a time per column). */
export async function loadMoreFiltered(projectId: string, statuses: string[], status: string, query: BoardQuery): Promise<void> {
  const key = filteredBoardKey(projectId, statuses, query);
  const cursor = queryClient.getQueryData<FilteredBoard>(key)?.cursors[status];
  const id = `${key.join('/')}/${status}`;
  if (!cursor || reading.has(id)) return;
  reading.add(id);
  try {
    const page = await columnPage(projectId, status, query, cursor);
    queryClient.setQueryData<FilteredBoard>(key, (board) => {
      // Read afresh meanwhile (a task changed): that read's pages stand.
      if (!board || board.cursors[status] !== cursor) return board;
      const known = new Set(board.tasks.map((task) => task.id));
      return {
        tasks: [...board.tasks, ...page.items.filter((task) => !known.has(task.id))],
        cursors: { ...board.cursors, [status]: page.nextCursor ?? null },
        pages: { ...board.pages, [status]: (board.pages[status] ?? 1) + 1 },
      };
    });
  } finally {
    reading.delete(id);
  }
}

export function matches(task: Task, filters: TaskFilters, meId: string): boolean {
  const { assigneeId, priority } = filters;
  if (assigneeId === 'me' && task.assigneeId !== meId) return false;
  if (assigneeId === 'none' && task.assigneeId !== null) return false;
  if (assigneeId && assigneeId !== 'me' && assigneeId !== 'none' && task.assigneeId !== assigneeId) return false;
  if (priority && task.priority !== priority) return false;
  if (filters.labelId && !task.labelIds.includes(filters.labelId)) return false;
  // As the server's `q` (tasks store): words of the title or description, or the task's whole key.
  const text = filters.text.trim().toLowerCase();
  return !text || task.title.toLowerCase().includes(text) || task.description.toLowerCase().includes(text) || task.key.toLowerCase() === text;
}

/** A task's subtasks, oldest first. */
export const loadSubtasks = (task: Task): Promise<Task[]> => collect(client.paginate(client.tasks.list, { projectId: task.projectId, parentId: task.id, limit: 500 }));

/**
 * Whether a task is completed (a ticked-off subtask): in a state of the `completed` category, which
 * the server marks by `completedAt`. The web app's one place that says so.
 */
export const isCompleted = (task: Pick<Task, 'completedAt'>): boolean => task.completedAt !== null;

/** The latest read of each parent's subtask counts asked for: an older answer arriving late is dropped. */
const countReads = new Map<string, number>();

/**
 * A parent's subtask counts read afresh from the server (one request per changed subtask, never one
 * per card): the board holds only the pages read so far, so counting the loaded subtasks would miss
 * those not read yet (issue 37). Only the two counts are written, so nothing else the cache holds is
 * undone; a parent the reader cannot see (or gone) stays as it is.
 */
async function refreshSubtaskCounts(parentId: string): Promise<void> {
  const read = (countReads.get(parentId) ?? 0) + 1;
  countReads.set(parentId, read);
  const parent = await client.tasks.get({ id: parentId }).catch(() => undefined);
  if (countReads.get(parentId) !== read) return;
  countReads.delete(parentId);
  if (!parent) return;
  const counts = { subtaskCount: parent.subtaskCount, subtasksDone: parent.subtasksDone };
  queryClient.setQueryData<Task>(keys.task(parentId), (current) => current && { ...current, ...counts });
  queryClient.setQueryData<Task[]>(keys.tasks(parent.projectId), (list) => list?.map((task) => (task.id === parentId ? { ...task, ...counts } : task)));
}

export const loadProjects = (): Promise<Project[]> => collect(client.paginate(client.projects.list, { limit: 500 }));

export const loadLabels = (projectId: string): Promise<Label[]> => collect(client.paginate(client.labels.list, { id: projectId, limit: 500 }));

export const loadMembers = (projectId: string): Promise<Member[]> => collect(client.paginate(client.members.list, { id: projectId, limit: 500 }));

/** A project's pending invitations (ADMIN and owner only). */
export const loadInvitations = (projectId: string): Promise<Invitation[]> => collect(client.paginate(client.invitations.list, { id: projectId, limit: 500 }));

export const loadComments = (taskId: string) => collect(client.paginate(client.comments.list, { id: taskId, limit: 500 }));
/** A task's time entries, newest date first (every page: a task's entries are a person's days, not a project). */
export const loadTimeEntries = (taskId: string) => collect(client.paginate(client.time.listEntries, { id: taskId, limit: 500 }));

/** A task's attachments, oldest first (its comments' files among them). */
export const loadAttachments = (taskId: string): Promise<Attachment[]> => client.attachments.list({ id: taskId });

export const loadRelations = (taskId: string) => client.relations.list({ id: taskId });

/** A history entry as the SDK returns it (its JSON form of the Activity schema). */
export type HistoryEntry = Awaited<ReturnType<typeof client.activity.listForTask>>['items'][number];

export const loadTaskHistory = (taskId: string): Promise<HistoryEntry[]> => collect(client.paginate(client.activity.listForTask, { id: taskId }));

/** Puts a task into the project's cached list (or takes it out), keeping fields the event lacks. */
export function storeTask(task: Task | undefined, removedId?: string) {
  const projectId = task?.projectId;
  // The parents whose subtask lists this changes: the task's, before and after.
  const parents = new Set<string>();
  const id = task?.id ?? removedId;
  if (id) {
    const before = queryClient.getQueryData<Task>(keys.task(id));
    if (before?.parentId) parents.add(before.parentId);
  }
  if (task) {
    if (task.parentId) parents.add(task.parentId);
    queryClient.setQueryData<Task>(keys.task(task.id), (current) => ({ ...current, ...task }));
    queryClient.setQueryData<Task[]>(keys.tasks(task.projectId), (list) => {
      if (!list) return list;
      const index = list.findIndex((item) => item.id === task.id);
      if (index >= 0 && list[index]!.parentId) parents.add(list[index]!.parentId);
      if (index < 0) return [...list, task];
      const next = list.slice();
      next[index] = { ...list[index], ...task };
      return next;
    });
  }
  if (removedId) {
    for (const [key] of queryClient.getQueriesData<Task[]>({ queryKey: ['tasks'] })) {
      queryClient.setQueryData<Task[]>(key, (list) => {
        const removed = list?.find((item) => item.id === removedId);
        if (removed?.parentId) parents.add(removed.parentId);
        return list?.filter((item) => item.id !== removedId);
      });
    }
    // Its own subtasks are detached (their events follow): their lists of it go.
    queryClient.removeQueries({ queryKey: keys.subtasks(removedId) });
    queryClient.removeQueries({ queryKey: keys.task(removedId) });
  }
  if (id) storeCalendarTask(task, id);
  for (const parentId of parents) {
    void queryClient.invalidateQueries({ queryKey: keys.subtasks(parentId) });
    void refreshSubtaskCounts(parentId);
  }
  if (projectId || removedId) void queryClient.invalidateQueries({ queryKey: keys.myTasks, refetchType: 'none' });
}

/** Custom fields (issue 36): the cache's keys of a project's fields, and of the list's server queries. */
export const fieldKeys = {
  fields: (projectId: string) => ['fields', projectId] as const,
  /**
   * A page run of the list filtered or sorted by a custom field, asked of the server. Not under
   * `tasks` (those hold a project's whole array); every task change invalidates these at once.
   */
  taskQueries: (projectId: string) => ['task-query', projectId] as const,
};

/** A project's custom fields, in order. */
export const loadFields = (projectId: string): Promise<Field[]> => client.fields.list({ id: projectId });
/** Time tracking's cache keys (estimates and time: task-time.tsx, timer.tsx, pages/time-report.tsx). */
export const timeKeys = {
  /** The signed-in person's running timer (null: none). */
  timer: ['timer'] as const,
  entries: (taskId: string) => ['time-entries', taskId] as const,
  /** Every report (the prefix of `report`): any entry's change may alter them. */
  reports: ['time-report'] as const,
  report: (projectId: string, from: string, to: string, groupBy: string) => ['time-report', projectId, from, to, groupBy] as const,
};

/** Saved views' cache keys (views.tsx): a project's list of them, and one view (`null`: not found). */
export const viewKeys = {
  list: (projectId: string) => ['views', projectId] as const,
  view: (projectId: string, viewId: string) => ['views', projectId, viewId] as const,
};

/** The timeline's cache keys (pages/timeline.tsx): a window's tasks, and the `blocks` relations among them. */
export const timelineKeys = {
  /** Every window of a project (the prefix of `window`): any task change may move a bar. */
  all: (projectId: string) => ['timeline', projectId] as const,
  window: (projectId: string, start: number) => ['timeline', projectId, start] as const,
  relations: (projectId: string, ids: string) => ['timeline-relations', projectId, ids] as const,
};
/**
 * The calendar's cache keys (issue 37): the tasks due in one visible range (`from`, `to`: the
 * `dueAfter` and `dueBefore` it was read with), and the pages of the project's tasks without a due date
 * read so far. Not under `tasks` (that holds a project's whole array).
 */
export const calendarKeys = {
  all: ['calendar'] as const,
  due: (projectId: string, from: string, to: string) => ['calendar', projectId, 'due', from, to] as const,
  undated: (projectId: string) => ['calendar', projectId, 'undated'] as const,
};

/** The undated tasks read so far, and the cursor of the next page (null: all read). */
export interface UndatedTasks {
  items: Task[];
  cursor: string | null;
}

/**
 * A task's change (or removal) in the calendar's lists, so an optimistic move or a live event shows
 * at once: it leaves every list and joins those it now belongs in (due in a range, or undated).
 */
function storeCalendarTask(task: Task | undefined, id: string) {
  const without = (list: Task[]) => list.filter((item) => item.id !== id);
  const merged = (list: Task[], next: Task) => ({ ...list.find((item) => item.id === id), ...next });
  for (const [key] of queryClient.getQueriesData({ queryKey: calendarKeys.all })) {
    const [, projectId, kind, from, to] = key as string[];
    const due = task?.dueDate ? Date.parse(task.dueDate) : undefined;
    const mine = task !== undefined && task.projectId === projectId;
    if (kind === 'due') {
      const belongs = mine && due !== undefined && due > Date.parse(from!) && due < Date.parse(to!);
      queryClient.setQueryData<Task[]>(key, (list) => list && (belongs ? [...without(list), merged(list, task)] : without(list)));
    } else if (kind === 'undated') {
      const belongs = mine && due === undefined;
      queryClient.setQueryData<UndatedTasks>(key, (page) => {
        if (!page) return page;
        if (!belongs) return { ...page, items: without(page.items) };
        const index = page.items.findIndex((item) => item.id === id);
        const items = page.items.slice();
        if (index >= 0) items[index] = merged(page.items, task);
        else items.push(task);
        return { ...page, items };
      });
    }
  }
}
