import { type Db, projects, tasks, timeEntries, timers, users } from '@tasklane/db';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { TIMER_LOCK_CLASS } from '../../platform/locks';
import type { CursorValue } from '../../platform/paging';
import { rowsOf } from '../../platform/sql';

export type TimeEntryRow = typeof timeEntries.$inferSelect;
export type TimerRow = typeof timers.$inferSelect;

/*
 * Writes return the driver's promise from `.execute()`, so the caller can send the change's
 * history entry right after and postgres.js pipelines the two in their order (as comments do).
 */
export const insertEntry = (db: Db, entry: TimeEntryRow) => db.insert(timeEntries).values(entry).execute();

export const updateEntry = (db: Db, id: string, patch: Partial<Pick<TimeEntryRow, 'minutes' | 'date' | 'note' | 'updatedAt'>>) =>
  db.update(timeEntries).set(patch).where(eq(timeEntries.id, id)).execute();

export const deleteEntry = (db: Db, id: string) => db.delete(timeEntries).where(eq(timeEntries.id, id)).execute();

/** An entry and its task's project; `lock` holds the entry FOR UPDATE to the end of the caller's transaction. */
export async function findEntry(db: Db, id: string, options: { lock?: boolean } = {}) {
  const query = db
    .select({ entry: timeEntries, projectId: tasks.projectId })
    .from(timeEntries)
    .innerJoin(tasks, eq(tasks.id, timeEntries.taskId))
    .where(eq(timeEntries.id, id))
    .limit(1);
  return (await (options.lock ? query.for('update', { of: timeEntries }) : query).execute())[0];
}

/** A page of a task's entries, newest date first (then newest logged), after `cursor` (date, createdAt, id). */
export const listEntries = (db: Db, taskId: string, cursor: CursorValue[] | undefined, limit: number) =>
  db
    .select()
    .from(timeEntries)
    .where(
      and(
        eq(timeEntries.taskId, taskId),
        cursor ? sql`(${timeEntries.date}, ${timeEntries.createdAt}, ${timeEntries.id}) < (${cursor[0]}::date, ${cursor[1]}::timestamptz, ${cursor[2]}::uuid)` : undefined,
      ),
    )
    .orderBy(desc(timeEntries.date), desc(timeEntries.createdAt), desc(timeEntries.id))
    .limit(limit);

/** Serialises the starts and stops of one user's timer: the first statement of their transaction. */
export const lockUserTimer = (db: Db, userId: string) => db.execute(sql`select pg_advisory_xact_lock(${TIMER_LOCK_CLASS}, hashtext(${userId}::uuid::text))`);

/** The user's running timer, with its task's project. */
export async function findTimer(db: Db, userId: string) {
  const [found] = await db
    .select({ timer: timers, projectId: tasks.projectId })
    .from(timers)
    .innerJoin(tasks, eq(tasks.id, timers.taskId))
    .where(eq(timers.userId, userId))
    .limit(1);
  return found;
}

export const deleteTimer = (db: Db, userId: string) => db.delete(timers).where(eq(timers.userId, userId)).execute();

export const insertTimer = (db: Db, timer: TimerRow) => db.insert(timers).values(timer).execute();

export type ReportGroup = 'user' | 'task' | 'day';

/** A project's minutes between two dates (inclusive), summed per user, task or day. */
export async function report(db: Db, projectId: string, from: string, to: string, groupBy: ReportGroup) {
  const inRange = and(eq(tasks.projectId, projectId), sql`${timeEntries.date} between ${from}::date and ${to}::date`);
  const minutes = sql<number>`sum(${timeEntries.minutes})::int`;
  if (groupBy === 'user') {
    return db
      .select({ key: timeEntries.userId, label: users.name, minutes })
      .from(timeEntries)
      .innerJoin(tasks, eq(tasks.id, timeEntries.taskId))
      .innerJoin(users, eq(users.id, timeEntries.userId))
      .where(inRange)
      .groupBy(timeEntries.userId, users.name)
      .orderBy(desc(minutes), asc(users.name), asc(timeEntries.userId));
  }
  if (groupBy === 'task') {
    const label = sql<string>`${projects.key} || '-' || ${tasks.number} || ' ' || ${tasks.title}`;
    return db
      .select({ key: tasks.id, label, minutes })
      .from(timeEntries)
      .innerJoin(tasks, eq(tasks.id, timeEntries.taskId))
      .innerJoin(projects, eq(projects.id, tasks.projectId))
      .where(inRange)
      .groupBy(tasks.id, projects.key, tasks.number, tasks.title)
      .orderBy(desc(minutes), asc(tasks.number));
  }
  const day = sql<string>`to_char(${timeEntries.date}, 'YYYY-MM-DD')`;
  const rows = rowsOf<{ key: string; minutes: number }>(
    await db.execute(sql`
      select ${day} as key, sum(${timeEntries.minutes})::int as minutes
      from ${timeEntries} join ${tasks} on ${tasks.id} = ${timeEntries.taskId}
      where ${inRange}
      group by ${timeEntries.date} order by ${timeEntries.date}`),
  );
  return rows.map((row) => ({ key: row.key, label: row.key, minutes: Number(row.minutes) }));
}
