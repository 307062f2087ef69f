import { type Db, dueReminders, memberships, notifications, projects, stateCategoryIn, taskWatchers, tasks, users } from '@tasklane/db';
import { type SQL, and, asc, count, desc, eq, gt, inArray, isNull, lt, sql } from 'drizzle-orm';
import { rowsOf } from '../../platform/sql';
import { announceNotified, deliveryCtes } from '../../events/processors/notifications';
import { REMINDER_LOCK_CLASS } from '../../platform/locks';

export interface NotificationRow {
  id: string;
  seq: number;
  kind: string;
  projectId: string;
  projectName: string;
  taskId: string | null;
  taskTitle: string | null;
  commentId: string | null;
  actorId: string | null;
  actorName: string | null;
  createdAt: Date;
  readAt: Date | null;
}

const columns = {
  id: notifications.id,
  seq: notifications.seq,
  kind: notifications.kind,
  projectId: notifications.projectId,
  projectName: projects.name,
  taskId: notifications.taskId,
  taskTitle: tasks.title,
  commentId: notifications.commentId,
  actorId: notifications.actorId,
  actorName: users.name,
  createdAt: notifications.createdAt,
  readAt: notifications.readAt,
};

/**
 * Whose notifications a read sees: the user's own, of projects they are still a member of (a removed
 * member's are hidden at once, as the project is), and of the projects `within` when a token limits them.
 */
function visibleTo(userId: string, within: readonly string[] | undefined): SQL | undefined {
  return and(
    eq(notifications.userId, userId),
    sql`exists (select 1 from ${memberships} where ${memberships.projectId} = ${notifications.projectId} and ${memberships.userId} = ${notifications.userId})`,
    within ? inArray(notifications.projectId, [...within]) : undefined,
  );
}

const selectNotifications = (db: Db) =>
  db
    .select(columns)
    .from(notifications)
    .innerJoin(projects, eq(projects.id, notifications.projectId))
    .leftJoin(tasks, eq(tasks.id, notifications.taskId))
    .leftJoin(users, eq(users.id, notifications.actorId));

/** Newest first, before the `beforeSeq` cursor; served by notifications_user_seq_key (or the unread index). */
export const listNewestFirst = (db: Db, userId: string, query: { unread: boolean; beforeSeq: number | undefined; within: readonly string[] | undefined }, limit: number): Promise<NotificationRow[]> =>
  selectNotifications(db)
    .where(
      and(
        visibleTo(userId, query.within),
        query.unread ? isNull(notifications.readAt) : undefined,
        query.beforeSeq !== undefined ? lt(notifications.seq, query.beforeSeq) : undefined,
      ),
    )
    .orderBy(desc(notifications.seq))
    .limit(limit);

/** Oldest first, after a seq: what a live stream has not yet sent. */
export const listAfter = (db: Db, userId: string, afterSeq: number, within: readonly string[] | undefined, limit: number): Promise<NotificationRow[]> =>
  selectNotifications(db)
    .where(and(visibleTo(userId, within), gt(notifications.seq, afterSeq)))
    .orderBy(asc(notifications.seq))
    .limit(limit);

export const latestSeq = async (db: Db, userId: string): Promise<number> =>
  (await db.select({ seq: notifications.seq }).from(notifications).where(eq(notifications.userId, userId)).orderBy(desc(notifications.seq)).limit(1))[0]?.seq ?? 0;

export const findNotification = async (db: Db, userId: string, id: string, within: readonly string[] | undefined): Promise<NotificationRow | undefined> =>
  (await selectNotifications(db).where(and(visibleTo(userId, within), eq(notifications.id, id))).limit(1))[0];

export const countUnread = async (db: Db, userId: string, within: readonly string[] | undefined): Promise<number> =>
  (await db.select({ count: count() }).from(notifications).where(and(visibleTo(userId, within), isNull(notifications.readAt))))[0]?.count ?? 0;

/** Marks one notification read (keeping an earlier readAt); false when the user cannot see it. */
export const markRead = async (db: Db, userId: string, id: string, within: readonly string[] | undefined, at: Date): Promise<boolean> =>
  (
    await db
      .update(notifications)
      .set({ readAt: sql`coalesce(${notifications.readAt}, ${at.toISOString()}::timestamptz)` })
      .where(and(visibleTo(userId, within), eq(notifications.id, id)))
      .returning({ id: notifications.id })
  ).length > 0;

/** Marks every unread notification the user can see read; how many there were. */
export const markAllRead = async (db: Db, userId: string, within: readonly string[] | undefined, at: Date): Promise<number> =>
  (await db.update(notifications).set({ readAt: at }).where(and(visibleTo(userId, within), isNull(notifications.readAt))).returning({ id: notifications.id })).length;

/** Whether the user watches the task (a row, not opted out). */
export const isWatching = async (db: Db, taskId: string, userId: string): Promise<boolean> =>
  (
    await db
      .select({ subscribed: taskWatchers.subscribed })
      .from(taskWatchers)
      .where(and(eq(taskWatchers.taskId, taskId), eq(taskWatchers.userId, userId)))
      .limit(1)
  )[0]?.subscribed === true;

/** Opts the user in (`true`) or explicitly out (`false`) of the task's notifications. */
export const setWatching = async (db: Db, taskId: string, userId: string, subscribed: boolean, at: Date): Promise<void> => {
  await db
    .insert(taskWatchers)
    .values({ taskId, userId, subscribed, createdAt: at, updatedAt: at })
    .onConflictDoUpdate({ target: [taskWatchers.taskId, taskWatchers.userId], set: { subscribed, updatedAt: at } });
};

/**
 * One run of the due-reminder job, in one statement: if no other instance is running it (a
 * transaction-level advisory lock, tried, not waited for), each task due within `windowSeconds`,
 * assigned and still open, whose due date has no reminder yet, gets one (due_reminders' key, task
 * and due date, makes a second impossible) and its assignee a `task.due_soon` notification. At most
 * `batch` tasks per run. `ran` is false when another instance held the lock.
 */
export async function remindDueTasks(db: Db, windowSeconds: number, batch: number): Promise<{ ran: boolean; reminded: number }> {
  const now = new Date();
  const result = await db.execute(sql`
    with gate as (select pg_try_advisory_xact_lock(${REMINDER_LOCK_CLASS}, 0) as ok),
    due as (
      select t.id as task_id, t.project_id, t.assignee_id, t.due_date
      from ${tasks} as t, gate
      where gate.ok and t.due_date > ${now.toISOString()}::timestamptz
        and t.due_date <= ${now.toISOString()}::timestamptz + make_interval(secs => ${windowSeconds})
        and t.assignee_id is not null and not ${stateCategoryIn({ projectId: sql`t.project_id`, status: sql`t.status` }, ['completed', 'cancelled'])}
        and not exists (select 1 from ${dueReminders} as r where r.task_id = t.id and r.due_date = t.due_date)
      order by t.due_date
      limit ${batch}
      -- The task rows first, as every writer of a task takes its row before the project's and the
      -- recipients' advisory locks: a task being deleted or written is skipped until the next run.
      for key share of t skip locked
    ),
    reminded as (
      insert into ${dueReminders} (task_id, due_date, created_at)
      select task_id, due_date, ${now.toISOString()}::timestamptz from due
      on conflict do nothing
      returning task_id, due_date
    ),
    recipients as (
      select d.assignee_id as user_id, 'task.due_soon'::text as kind, d.project_id, d.task_id, null::uuid as comment_id, null::uuid as actor_id
      from due as d join reminded as r on r.task_id = d.task_id and r.due_date = d.due_date
      where exists (select 1 from ${memberships} as m where m.project_id = d.project_id and m.user_id = d.assignee_id)
    ),
    ${deliveryCtes(sql`${now.toISOString()}::timestamptz`)}
    select (select ok from gate) as ran, (select count(*) from reminded)::int as reminded, ${announceNotified}::int as notified`);
  const [row] = rowsOf<{ ran: boolean; reminded: number }>(result);
  return { ran: row?.ran === true, reminded: Number(row?.reminded ?? 0) };
}
