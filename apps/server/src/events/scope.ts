import { type Db, projects, tasks } from '@tasklane/db';
import { type SQL, sql } from 'drizzle-orm';
import { notFound } from '../platform/errors';
import { rowsOf } from '../platform/sql';

/** `conditions` evaluated in their order, each only if those before it hold: AND lets the planner reorder them, CASE does not. */
const inOrder = (conditions: SQL[]): SQL => conditions.reduceRight((inner, condition) => sql`(case when ${condition} then ${inner} else false end)`);

/**
 * How a write holds its task's row: FOR KEY SHARE (the task must stay), or FOR NO KEY UPDATE when
 * the write will update the row later in its transaction (a comment's insert or deletion, whose
 * trigger counts it on the task). Taking the stronger lock first, rather than upgrading, means the
 * write's only wait for the row comes while it holds nothing but the project's KEY SHARE, which
 * only a project's deletion or member removal waits for, holding nothing else: no cycle through the
 * task's row, whatever the order in which PostgreSQL queues its lockers (platform/locks.ts, 3).
 */
export type TaskLock = 'key share' | 'no key update';

/**
 * An SQL condition that locks the project's row FOR KEY SHARE, then the task's (if given; FOR KEY
 * SHARE unless `taskLock` says otherwise) (the lock order of platform/locks.ts), and holds only if
 * they still exist; `then`, if given, is evaluated only after, so the locks it takes come later. A
 * write's statement puts it in its WHERE.
 */
export const lockedScope = (scope: { projectId: SQL; taskId?: SQL; taskLock?: TaskLock }, then?: SQL): SQL =>
  inOrder([
    sql`exists (select 1 from ${projects} as scope_project where scope_project.id = ${scope.projectId} for key share)`,
    ...(scope.taskId
      ? [sql`exists (select 1 from ${tasks} as scope_task where scope_task.id = ${scope.taskId} for ${sql.raw(scope.taskLock ?? 'key share')})`]
      : []),
    ...(then ? [then] : []),
  ]);

/**
 * lockedScope as a transaction's first statement: false when the project (or the task) is gone,
 * and the write must not happen.
 */
export async function lockScope(tx: Db, scope: { projectId: string; taskId?: string }): Promise<boolean> {
  const held = lockedScope({ projectId: sql`${scope.projectId}::uuid`, ...(scope.taskId ? { taskId: sql`${scope.taskId}::uuid` } : {}) });
  const [row] = rowsOf<{ held: boolean }>(await tx.execute(sql`select ${held} as held`));
  return row?.held === true;
}

/**
 * lockScope for a write that names a task, not its project: the project read from the task's row
 * in the same statement, then lockedScope's locks in their order, the project's row and (`lockTask`)
 * the task's, as strongly as `lockTask` says. The read takes no lock and waits for none (a task never moves between projects, so
 * its project needs none), so the locks and their order are lockScope's: this only saves the
 * statement that read the project before the transaction. The project's id; undefined when the
 * task or its project is gone, and the write must not happen.
 */
export async function lockTaskScope(tx: Db, taskId: string, { lockTask }: { lockTask: false | TaskLock }): Promise<string | undefined> {
  const id = sql`${taskId}::uuid`;
  const held = lockedScope({ projectId: sql`found.project_id`, ...(lockTask ? { taskId: id, taskLock: lockTask } : {}) });
  const [row] = rowsOf<{ projectId: string; held: boolean }>(await tx.execute(sql`select found.project_id as "projectId", ${held} as held from ${tasks} as found where found.id = ${id}`));
  return row?.held === true ? row.projectId : undefined;
}

/** A transaction that takes its scope's locks first (lockScope); with the scope gone, `missing`'s 404 and nothing written. */
export function transactionIn<T>(db: Db, scope: { projectId: string; taskId?: string }, missing: string, body: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    if (!(await lockScope(tx, scope))) throw notFound(missing);
    return body(tx);
  });
}
