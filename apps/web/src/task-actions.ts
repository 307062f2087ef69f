import type { Task } from '@tasklane/schemas';
import { TasklaneError } from '@tasklane/sdk';
import { storeTask } from './data';
import { client, describeError } from './session';
import { announce } from './ui';

/** The fields a quick change (drag, menu, shortcut, bulk edit) may set. */
export type TaskPatch = Partial<Pick<Task, 'status' | 'priority' | 'assigneeId' | 'dueDate' | 'title' | 'labelIds'>>;

/** Why the server refused, in words a person can act on. */
function refusal(error: unknown, title: string): string {
  const failure = TasklaneError.from(error);
  if (failure.code === 'PRECONDITION_FAILED')
    return `“${title}” was not changed: someone else changed it first. The board now shows their version.`;
  if (failure.code === 'FORBIDDEN') return `“${title}” was not changed: your role in this project does not allow changing tasks.`;
  if (failure.code === 'CLIENT_ERROR') return `“${title}” was not changed: the server could not be reached. Check your connection and try again.`;
  if (failure.code === 'NOT_FOUND') return `“${title}” was not changed: it no longer exists.`;
  return `“${title}” was not changed: ${describeError(error)}`;
}

/**
 * Shows the change at once, then asks the server, which applies it only if nobody changed the task
 * since (`If-Match`). A refusal puts the task back as it was (or as the server now has it) and says why.
 */
export async function changeTask(task: Task, patch: TaskPatch): Promise<boolean> {
  storeTask({ ...task, ...patch });
  try {
    storeTask(await client.tasks.update({ id: task.id, ...patch }, { ifMatch: task }));
    return true;
  } catch (error) {
    storeTask(task);
    announce(refusal(error, task.title));
    if (TasklaneError.from(error).code === 'PRECONDITION_FAILED') {
      await client.tasks.get({ id: task.id }).then(storeTask, () => undefined);
    }
    return false;
  }
}
