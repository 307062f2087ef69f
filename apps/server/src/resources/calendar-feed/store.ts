import { calendarFeeds, type Db, memberships, projects, tasks } from '@tasklane/db';
import { and, asc, eq, gte, isNotNull, sql } from 'drizzle-orm';

/** Makes or replaces the user's feed: one address per user, the old one stops working at once. */
export const saveFeed = async (db: Db, userId: string, tokenDigest: string, createdAt: Date): Promise<void> => {
  await db.insert(calendarFeeds).values({ userId, tokenDigest, createdAt }).onConflictDoUpdate({ target: calendarFeeds.userId, set: { tokenDigest, createdAt } });
};

export const findFeedOf = async (db: Db, userId: string) => (await db.select().from(calendarFeeds).where(eq(calendarFeeds.userId, userId)).limit(1))[0];

export const findFeedByDigest = async (db: Db, tokenDigest: string) => (await db.select().from(calendarFeeds).where(eq(calendarFeeds.tokenDigest, tokenDigest)).limit(1))[0];

/** Whether a feed was there to end. */
export const deleteFeed = async (db: Db, userId: string): Promise<boolean> => (await db.delete(calendarFeeds).where(eq(calendarFeeds.userId, userId)).returning({ userId: calendarFeeds.userId })).length > 0;

/**
 * The feed's tasks: assigned to the user, due on or after `from`, in projects the user is a member
 * of now (the join, so a removed member's feed drops them at once), soonest first, at most `limit`.
 */
export const feedTasks = (db: Db, userId: string, from: Date, limit: number) =>
  db
    .select({
      id: tasks.id,
      key: sql<string>`${projects.key} || '-' || ${tasks.number}`,
      title: tasks.title,
      status: tasks.status,
      dueDate: tasks.dueDate,
      createdAt: tasks.createdAt,
      updatedAt: tasks.updatedAt,
    })
    .from(tasks)
    .innerJoin(memberships, and(eq(memberships.projectId, tasks.projectId), eq(memberships.userId, userId)))
    .innerJoin(projects, eq(projects.id, tasks.projectId))
    .where(and(eq(tasks.assigneeId, userId), isNotNull(tasks.dueDate), gte(tasks.dueDate, from)))
    .orderBy(asc(tasks.dueDate), asc(tasks.id))
    .limit(limit);
