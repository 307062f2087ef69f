import type { Attachment, Field, Label, Member, Project, Task, TaskPriority } from '@tasklane/schemas';
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

/** Every task of the project, loaded once; the board and the list filter it in the browser, at once. */
/** A project's tasks in the board's order (each column's tasks by position). */
export const loadTasks = (projectId: string): Promise<Task[]> => collect(client.paginate(client.tasks.list, { projectId, sort: 'position', limit: 500 }));

export function matches(task: Task, filters: TaskFilters, meId: string): boolean {
  const { assigneeId, priority } = filters;
  if (assigneeId === 'me' && task.assigneeId !== meId) return false;
  if (assigneeId === 'none' && task.assigneeId !== null) return false;
  if (assigneeId && assigneeId !== 'me' && assigneeId !== 'none' && task.assigneeId !== assigneeId) return false;
  if (priority && task.priority !== priority) return false;
  if (filters.labelId && !task.labelIds.includes(filters.labelId)) return false;
  const text = filters.text.trim().toLowerCase();
  return !text || task.title.toLowerCase().includes(text) || task.description.toLowerCase().includes(text);
}

/** A task's subtasks, oldest first. */
export const loadSubtasks = (task: Task): Promise<Task[]> => collect(client.paginate(client.tasks.list, { projectId: task.projectId, parentId: task.id, limit: 500 }));

/**
 * Whether a task is completed (a ticked-off subtask): in a state of the `completed` category, which
 * the server marks by `completedAt`. The web app's one place that says so.
 */
export const isCompleted = (task: Pick<Task, 'completedAt'>): boolean => task.completedAt !== null;

/**
 * Each task's subtask counts from the project's list itself, which holds every task of the project:
 * a subtask's change (a live event too) shows on its parent's card at once, though the event
 * carries only the subtask.
 */
function withSubtaskCounts(list: Task[]): Task[] {
  const counts = new Map<string, { count: number; done: number }>();
  for (const task of list) {
    if (!task.parentId) continue;
    const count = counts.get(task.parentId) ?? { count: 0, done: 0 };
    count.count += 1;
    if (isCompleted(task)) count.done += 1;
    counts.set(task.parentId, count);
  }
  return list.map((task) => {
    const { count, done } = counts.get(task.id) ?? { count: 0, done: 0 };
    return count === task.subtaskCount && done === task.subtasksDone ? task : { ...task, subtaskCount: count, subtasksDone: done };
  });
}

export const loadProjects = (): Promise<Project[]> => collect(client.paginate(client.projects.list, { limit: 500 }));

export const loadLabels = (projectId: string): Promise<Label[]> => collect(client.paginate(client.labels.list, { id: projectId, limit: 500 }));

export const loadMembers = (projectId: string): Promise<Member[]> => collect(client.paginate(client.members.list, { id: projectId, limit: 500 }));

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
      if (index < 0) return withSubtaskCounts([...list, task]);
      const next = list.slice();
      next[index] = { ...list[index], ...task };
      return withSubtaskCounts(next);
    });
  }
  if (removedId) {
    for (const [key] of queryClient.getQueriesData<Task[]>({ queryKey: ['tasks'] })) {
      queryClient.setQueryData<Task[]>(key, (list) => {
        const removed = list?.find((item) => item.id === removedId);
        if (removed?.parentId) parents.add(removed.parentId);
        return list && withSubtaskCounts(list.filter((item) => item.id !== removedId));
      });
    }
    // Its own subtasks are detached (their events follow): their lists of it go.
    queryClient.removeQueries({ queryKey: keys.subtasks(removedId) });
    queryClient.removeQueries({ queryKey: keys.task(removedId) });
  }
  for (const parentId of parents) void queryClient.invalidateQueries({ queryKey: keys.subtasks(parentId) });
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
