import { tasks } from '@tasklane/db';
import { sql } from 'drizzle-orm';

/**
 * The tasks a completion may make next occurrences of: the one task a change completes, or the
 * project's tasks in a state (its deletion moving them into a completed state).
 */
export type CompletingTasks = { taskId: string } | { projectId: string; status: string };

/** The ids of `which`, as a subquery. */
export const completingTaskIds = (which: CompletingTasks) =>
  'taskId' in which
    ? sql`select ${which.taskId}::uuid`
    : sql`select completing.id from ${tasks} as completing where completing.project_id = ${which.projectId}::uuid and completing.status = ${which.status}`;
