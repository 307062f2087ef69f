import { comments, type Db, imports, labels, projectFields, projects, projectStates, taskFieldValues, taskRelations, tasks, timeEntries, users } from '@tasklane/db';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { rowsOf } from '../../platform/sql';

export type ImportRow = typeof imports.$inferSelect;

/** Rows written per INSERT: well under PostgreSQL's 65 535 parameters for the widest row. */
const CHUNK = 1000;

export const insertImport = (db: Db, row: { id: string; userId: string; source: string; mapping: Record<string, unknown> | null; total: number }) =>
  db.insert(imports).values({ id: row.id, userId: row.userId, source: row.source, status: 'pending', mapping: row.mapping, progressTotal: row.total });

export const findImport = async (db: Db, id: string, userId: string) =>
  (await db.select().from(imports).where(and(eq(imports.id, id), eq(imports.userId, userId))).limit(1))[0];

/**
 * Takes the oldest import waiting, or running on an instance whose lease ran out (it stopped), for
 * this instance: running, leased for `leaseMs`. SKIP LOCKED: an import whose write is under way
 * elsewhere (its row locked by that transaction) is not taken twice.
 */
export async function claimImport(db: Db, leaseMs: number, maxAttempts: number) {
  // One whose process stopped every time it ran it (a file that takes a process down) is given up, not taken again.
  await db.execute(sql`
    update imports set status = 'failed', error = ${`The import stopped its server ${maxAttempts} times; nothing of it was kept`}, locked_until = null, finished_at = now(), updated_at = now()
    where status = 'running' and locked_until < now() and attempts >= ${maxAttempts}`);
  const rows = rowsOf<{ id: string; user_id: string; source: string; mapping: Record<string, unknown> | null; attempts: number }>(
    await db.execute(sql`
      update imports set status = 'running', attempts = attempts + 1, locked_until = now() + ${leaseMs} * interval '1 millisecond', updated_at = now()
      where id = (
        select id from imports
        where status = 'pending' or (status = 'running' and locked_until < now())
        order by created_at, id
        limit 1
        for update skip locked)
      returning id, user_id, source, mapping, attempts`),
  );
  const row = rows[0];
  return row ? { id: row.id, userId: row.user_id, source: row.source, mapping: row.mapping, attempts: row.attempts } : undefined;
}

/**
 * Extends the lease of a running import (its instance is alive). Not while its project is being
 * written (the row is locked to that commit, and no other instance can take it then): SKIP LOCKED,
 * so a renewal never waits on a connection.
 */
export const renewLease = (db: Db, id: string, leaseMs: number) =>
  db.execute(sql`
    update imports set locked_until = now() + ${leaseMs} * interval '1 millisecond'
    where id = (select id from imports where id = ${id} and status = 'running' for update skip locked)`);

/** The import's row, locked for the transaction that writes its project, if it is still this instance's to run. */
export const lockRunning = async (tx: Db, id: string) =>
  (await tx.select({ status: imports.status }).from(imports).where(eq(imports.id, id)).for('update'))[0]?.status === 'running';

export const setPlanned = (db: Db, id: string, plan: { total: number; counts: Record<string, number>; warnings: string[] }) =>
  db.update(imports).set({ progressTotal: plan.total, counts: plan.counts, warnings: plan.warnings, updatedAt: new Date() }).where(eq(imports.id, id));

/** One more warning for the import, after those its plan gave (setPlanned). */
export const addWarning = (db: Db, id: string, warning: string) =>
  db.update(imports).set({ warnings: sql`${imports.warnings} || jsonb_build_array(${warning}::text)` }).where(eq(imports.id, id));

/** The end of an import: its outcome (its file goes after this commits). */
export async function finishImport(db: Db, id: string, outcome: { status: 'succeeded' | 'failed'; projectId?: string; error?: string; done?: number }) {
  // Only a running import ends: one another instance already ended keeps its outcome.
  await db.execute(sql`
    update imports set status = ${outcome.status}, project_id = ${outcome.projectId ?? null}, error = ${outcome.error ?? null},
      progress_done = coalesce(${outcome.done ?? null}::int, progress_done), locked_until = null, finished_at = now(), updated_at = now()
    where id = ${id} and status = 'running'`);
}

/** Gives a failed attempt back to the queue (another try, on any instance). */
export const release = (db: Db, id: string) =>
  db.update(imports).set({ status: 'pending', lockedUntil: null, updatedAt: new Date() }).where(and(eq(imports.id, id), eq(imports.status, 'running')));

/** Registered users by email (lower case), for matching the file's people. */
export async function usersByEmail(db: Db, emails: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  await inChunks(emails, async (chunk) => {
    for (const row of await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.email, chunk))) found.set(row.email.toLowerCase(), row.id);
  });
  return found;
}

/**
 * `write` given CHUNK rows at a time (a statement's parameters are bounded), then told how many are
 * done. The rows are taken from `rows` as they are needed: an import's are made one chunk at a
 * time, never all at once beside the plan they come from.
 */
async function inChunks<T>(rows: Iterable<T>, write: (chunk: T[]) => Promise<unknown>, onChunk?: (done: number) => void): Promise<void> {
  let chunk: T[] = [];
  let done = 0;
  const flush = async () => {
    await write(chunk);
    done += chunk.length;
    chunk = [];
    onChunk?.(done);
  };
  for (const row of rows) {
    chunk.push(row);
    if (chunk.length === CHUNK) await flush();
  }
  if (chunk.length > 0) await flush();
}

export const replaceStates = async (tx: Db, projectId: string, rows: (typeof projectStates.$inferInsert)[]) => {
  await tx.delete(projectStates).where(eq(projectStates.projectId, projectId));
  await tx.insert(projectStates).values(rows);
};
export const insertLabels = (tx: Db, rows: Iterable<typeof labels.$inferInsert>) => inChunks(rows, (chunk) => tx.insert(labels).values(chunk));
export const insertFields = (tx: Db, rows: Iterable<typeof projectFields.$inferInsert>) => inChunks(rows, (chunk) => tx.insert(projectFields).values(chunk));
export const insertComments = (tx: Db, rows: Iterable<typeof comments.$inferInsert>) => inChunks(rows, (chunk) => tx.insert(comments).values(chunk));
export const insertFieldValues = (tx: Db, rows: Iterable<typeof taskFieldValues.$inferInsert>) => inChunks(rows, (chunk) => tx.insert(taskFieldValues).values(chunk));
export const insertTimeEntries = (tx: Db, rows: Iterable<typeof timeEntries.$inferInsert>) => inChunks(rows, (chunk) => tx.insert(timeEntries).values(chunk));
export const setEstimateUnit = (tx: Db, projectId: string, estimateUnit: 'points' | 'hours') => tx.update(projects).set({ estimateUnit }).where(eq(projects.id, projectId));
export const insertRelations = (tx: Db, rows: Iterable<typeof taskRelations.$inferInsert>) => inChunks(rows, (chunk) => tx.insert(taskRelations).values(chunk).onConflictDoNothing());

/** Tasks, CHUNK at a time, `onChunk` told how many are written so far. */
export const insertTasks = (tx: Db, rows: Iterable<typeof tasks.$inferInsert>, onChunk: (written: number) => void) => inChunks(rows, (chunk) => tx.insert(tasks).values(chunk), onChunk);

/** Parents, once every task exists (a file may list a subtask before its parent). */
export const setParents = (tx: Db, pairs: Iterable<{ id: string; parentId: string }>) =>
  inChunks(pairs, (chunk) =>
    tx.execute(sql`
      update tasks set parent_id = v.parent_id::uuid
      from (values ${sql.join(chunk.map((pair) => sql`(${pair.id}, ${pair.parentId})`), sql`, `)}) as v(id, parent_id)
      where tasks.id = v.id::uuid`),
  );

export const setNextTaskNumber = (tx: Db, projectId: string, next: number) => tx.update(projects).set({ nextTaskNumber: next }).where(eq(projects.id, projectId));
