import { type Db, projectStates, tasks } from '@tasklane/db';
import { and, asc, between, eq, sql } from 'drizzle-orm';
import { nextVersionSql } from '../../platform/versions';

export type StateRow = typeof projectStates.$inferSelect;

/** A project's states in board order. */
export const listStates = (db: Db, projectId: string): Promise<StateRow[]> =>
  db.select().from(projectStates).where(eq(projectStates.projectId, projectId)).orderBy(asc(projectStates.position)).execute();

export const findState = async (db: Db, projectId: string, stateId: string): Promise<StateRow | undefined> =>
  (await db.select().from(projectStates).where(and(eq(projectStates.projectId, projectId), eq(projectStates.id, stateId))).limit(1).execute())[0];

/**
 * Every state of the project, locked FOR NO KEY UPDATE to the end of the caller's transaction, in
 * board order: a change of a project's states (create, update, delete) takes this first, so two
 * such changes run one after the other and each checks positions and the required categories
 * against the states as they are. Task writes, which lock the state they set FOR KEY SHARE
 * (tasks/store.ts), are not held up by it; only the deletion of a state's row waits for them.
 */
export const lockStates = (db: Db, projectId: string): Promise<StateRow[]> =>
  db.select().from(projectStates).where(eq(projectStates.projectId, projectId)).orderBy(asc(projectStates.position)).for('no key update').execute();

/**
 * Locks the state's row FOR UPDATE, as its deletion will: it waits for every task write that named
 * the state (FOR KEY SHARE) to commit, so the tasks read after it are all the state's tasks, and a
 * task write that comes later waits for the deletion and then finds the state gone (a 400).
 */
export const lockStateForDeletion = (db: Db, stateId: string) => db.select({ id: projectStates.id }).from(projectStates).where(eq(projectStates.id, stateId)).for('update').execute();

export const insertStates = (db: Db, rows: StateRow[]) => db.insert(projectStates).values(rows).execute();

export const updateState = async (db: Db, stateId: string, patch: Partial<Pick<StateRow, 'name' | 'color' | 'category' | 'position' | 'updatedAt'>>) =>
  (await db.update(projectStates).set(patch).where(eq(projectStates.id, stateId)).returning())[0];

/** Moves the states at positions `from`…`to` (inclusive) of the project by `by` places (a new version each): what a reorder or a deletion does to the others. */
export const shiftStates = (db: Db, projectId: string, from: number, to: number, by: 1 | -1) =>
  db
    .update(projectStates)
    .set({ position: sql`${projectStates.position} + ${by}`, updatedAt: nextVersionSql(projectStates.updatedAt) })
    .where(and(eq(projectStates.projectId, projectId), between(projectStates.position, from, to)))
    .execute();

export const deleteState = (db: Db, stateId: string) => db.delete(projectStates).where(eq(projectStates.id, stateId)).execute();

/** Whether any task of the project has the status `key`. */
export const stateHasTasks = async (db: Db, projectId: string, key: string): Promise<boolean> =>
  (await db.select({ id: tasks.id }).from(tasks).where(and(eq(tasks.projectId, projectId), eq(tasks.status, key))).limit(1).execute()).length > 0;
