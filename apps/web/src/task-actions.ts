import type { Task } from '@tasklane/schemas';
import { TasklaneError } from '@tasklane/sdk';
import { storeTask } from './data';
import { t } from './i18n';
import { client, describeError } from './session';
import { announce } from './ui';

/** The fields a quick change (drag, menu, shortcut, bulk edit) may set. */
export type TaskPatch = Partial<Pick<Task, 'status' | 'priority' | 'assigneeId' | 'dueDate' | 'title' | 'labelIds'>>;

/** Why the server refused, in words a person can act on. */
function refusal(error: unknown, title: string): string {
  const failure = TasklaneError.from(error);
  if (failure.code === 'PRECONDITION_FAILED') return t('taskActions.refused.changedElsewhere', { title });
  if (failure.code === 'FORBIDDEN') return t('taskActions.refused.forbidden', { title });
  if (failure.code === 'CLIENT_ERROR') return t('taskActions.refused.unreachable', { title });
  if (failure.code === 'NOT_FOUND') return t('taskActions.refused.notFound', { title });
  return t('taskActions.refused.other', { title, reason: describeError(error) });
}

/** Per task: the version the server last confirmed, and the queue of changes on their way. */
const confirmed = new Map<string, Task>();
const queues = new Map<string, Promise<unknown>>();

/**
 * Shows the change at once, then asks the server, which applies it only if nobody changed the task
 * since (`If-Match`). A refusal puts the task back as the server has it and says why. Quick changes
 * to one task (`2` then `4`) go one after another, each matching the version the previous one saved.
 */
export function changeTask(task: Task, patch: TaskPatch): Promise<boolean> {
  return queueChange(task, { ...task, ...patch }, (base) => client.tasks.update({ id: task.id, ...patch }, { ifMatch: base }));
}

/** Where a dragged card goes: its column (if it changes) and the card above it or, at the top, the one below. */
export type TaskPlace = { status?: Task['status']; afterId?: string; beforeId?: string };

/**
 * Moves a card in the board's order (POST /tasks/{id}/move), shown at once at `shown` (the task
 * with the position the board guessed), then as the server placed it; queued and refused like a change.
 */
export function moveTask(task: Task, place: TaskPlace, shown: Task): Promise<boolean> {
  return queueChange(task, shown, (base) => client.tasks.move({ id: task.id, ...place }, { ifMatch: base }));
}

/** One change of a task on its way: shown as `shown` now, sent by `save` with the version confirmed before it. */
function queueChange(task: Task, shown: Task, save: (base: Task) => Promise<Task>): Promise<boolean> {
  if (!queues.has(task.id)) confirmed.set(task.id, task);
  storeTask(shown);
  const send = async (): Promise<boolean> => {
    const base = confirmed.get(task.id) ?? task;
    try {
      const saved = await save(base);
      confirmed.set(task.id, saved);
      storeTask(saved);
      return true;
    } catch (error) {
      storeTask(base);
      announce(refusal(error, task.title));
      if (TasklaneError.from(error).code === 'PRECONDITION_FAILED') {
        const latest = await client.tasks.get({ id: task.id }).catch(() => undefined);
        if (latest) {
          confirmed.set(task.id, latest);
          storeTask(latest);
        }
      }
      return false;
    }
  };
  const result = (queues.get(task.id) ?? Promise.resolve()).then(send);
  const queued = result.finally(() => {
    if (queues.get(task.id) === queued) {
      queues.delete(task.id);
      confirmed.delete(task.id);
    }
  });
  queues.set(task.id, queued);
  return result;
}
