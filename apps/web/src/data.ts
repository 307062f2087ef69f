import type { Member, Task, TaskPriority } from '@tasklane/schemas';
import { client } from './session';

/** Every item of a paged list; the board shows a whole project, so it reads every page. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

export interface TaskFilters {
  /** A member's user id, `me`, `none`, or empty for anyone. */
  assigneeId: string;
  priority: TaskPriority | '';
  text: string;
}

export const NO_FILTERS: TaskFilters = { assigneeId: '', priority: '', text: '' };

/** The project's tasks matching the filters, filtered by the server. */
export function loadTasks(projectId: string, filters: TaskFilters): Promise<Task[]> {
  const text = filters.text.trim();
  return collect(
    client.paginate(client.tasks.list, {
      projectId,
      limit: 500,
      ...(filters.assigneeId ? { assigneeId: filters.assigneeId } : {}),
      ...(filters.priority ? { priority: [filters.priority] } : {}),
      ...(text ? { q: text } : {}),
    }),
  );
}

export const loadMembers = (projectId: string): Promise<Member[]> => collect(client.paginate(client.members.list, { id: projectId, limit: 500 }));

export const loadComments = (taskId: string) => collect(client.paginate(client.comments.list, { id: taskId, limit: 500 }));

/** A history entry as the SDK returns it (its JSON form of the Activity schema). */
export type HistoryEntry = Awaited<ReturnType<typeof client.activity.listForTask>>['items'][number];

export const loadTaskHistory = (taskId: string): Promise<HistoryEntry[]> => collect(client.paginate(client.activity.listForTask, { id: taskId }));
