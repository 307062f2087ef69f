import type { State, Task } from '@tasklane/schemas';
import { keys } from './data';
import { useQuery } from './hooks';
import { client } from './session';

/** A project's workflow states, in board order: its board's columns and every status it offers. */
export const useStates = (projectId: string) => useQuery(keys.states(projectId), () => client.states.list({ id: projectId }));

/** "IN_PROGRESS" → "In progress": a status's words where its state's name is not at hand (across projects). */
export const humanizeKey = (key: string) => key.charAt(0) + key.slice(1).toLowerCase().replaceAll('_', ' ');

/** The name of the state `key` names, or its key in words when the project has no such state (any more). */
export const stateName = (states: readonly State[] | undefined, key: string) => states?.find((state) => state.key === key)?.name ?? humanizeKey(key);

/** The keys of a task's closing states (`completed` and `cancelled`); without the project's states, the defaults'. */
export function closedKeys(states: readonly State[] | undefined): ReadonlySet<string> {
  if (!states) return new Set(['DONE', 'CANCELLED']);
  return new Set(states.filter((state) => state.category === 'completed' || state.category === 'cancelled').map((state) => state.key));
}

/** Whether a task is done with (a closing state, or completed): such a task is never overdue. */
export const isClosed = (task: Pick<Task, 'status' | 'completedAt'>, closed: ReadonlySet<string>) => task.completedAt !== null || closed.has(task.status);

/** The project's states as a select's options, in board order. */
export function StateOptions({ states }: { states: readonly State[] }) {
  return (
    <>
      {states.map((state) => (
        <option key={state.key} value={state.key}>
          {state.name}
        </option>
      ))}
    </>
  );
}
