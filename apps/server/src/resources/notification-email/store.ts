import type { NotificationEmailMode } from '@tasklane/schemas';
import { type Db, notificationSettings } from '@tasklane/db';
import { eq, type SQL, sql } from 'drizzle-orm';
import { rowsOf } from '../../platform/sql';

/** A notification ready to be mailed, with the names its email shows. */
export interface MailableNotification {
  id: string;
  userId: string;
  kind: string;
  projectId: string;
  taskId: string | null;
  recipientEmail: string;
  recipientName: string;
  projectName: string;
  taskTitle: string | null;
  /** The task's due date (ISO 8601), for reminders. */
  dueDate: string | null;
  actorName: string | null;
  /** The start of the comment's text, for mentions and comments. */
  commentExcerpt: string | null;
}

/**
 * Of `projectIds`, those whose notifications may still be mailed to the user at send time: the
 * projects the user is still a member of, none when the user has turned email off since; and the
 * language the user reads now (their account's, read when the email is sent).
 */
export async function stillMailable(db: Db, userId: string, projectIds: string[]): Promise<{ projects: Set<string>; locale: string | null }> {
  const result = await db.execute(sql`
    select m.project_id as "projectId", u.locale from memberships m join users u on u.id = m.user_id
    where m.user_id = ${userId} and m.project_id = any(${`{${projectIds.join(',')}}`}::uuid[])
      and not exists (select 1 from notification_settings s where s.user_id = ${userId} and s.email = 'off')`);
  const rows = rowsOf<{ projectId: string; locale: string | null }>(result);
  return { projects: new Set(rows.map((row) => row.projectId)), locale: rows[0]?.locale ?? null };
}

export async function findSettingsRow(db: Db, userId: string): Promise<{ email: NotificationEmailMode; updatedAt: Date } | undefined> {
  const [row] = await db
    .select({ email: notificationSettings.email, updatedAt: notificationSettings.updatedAt })
    .from(notificationSettings)
    .where(eq(notificationSettings.userId, userId));
  return row;
}

export async function findSettings(db: Db, userId: string): Promise<NotificationEmailMode | undefined> {
  const [row] = await db.select({ email: notificationSettings.email }).from(notificationSettings).where(eq(notificationSettings.userId, userId));
  return row?.email;
}

/**
 * Sets a user's email mode; returns false when no such user exists. A user who turns `daily` on
 * counts `digestDay` as done, so the first digest comes at the next digest hour, not at once.
 */
export async function saveSettings(db: Db, userId: string, email: NotificationEmailMode, digestDay: string): Promise<boolean> {
  const result = await db.execute(sql`
    insert into notification_settings (user_id, email, last_digest_on)
    select u.id, ${email}::notification_email, ${digestDay}::date from users u where u.id = ${userId}
    on conflict (user_id) do update set
      email = excluded.email,
      last_digest_on = case when notification_settings.email = 'daily' then notification_settings.last_digest_on else excluded.last_digest_on end,
      updated_at = now()
    returning user_id`);
  return rowsOf(result).length > 0;
}

/**
 * Notifications still to be mailed: unread, not yet handled by email (no notification_mails row),
 * never the recipient's own action, and only of a project the recipient is still a member of —
 * checked here, in the transaction that queues the email.
 */
const mailable = (where: SQL, limit: number) => sql`
  select n.id, n.user_id as "userId", n.kind, n.project_id as "projectId", n.task_id as "taskId",
    u.email as "recipientEmail", u.name as "recipientName", p.name as "projectName", t.title as "taskTitle",
    to_json(t.due_date) #>> '{}' as "dueDate", a.name as "actorName", left(c.text, 300) as "commentExcerpt"
  from notifications n
  join users u on u.id = n.user_id
  join projects p on p.id = n.project_id
  left join tasks t on t.id = n.task_id
  left join users a on a.id = n.actor_id
  left join comments c on c.id = n.comment_id
  where n.read_at is null
    and n.actor_id is distinct from n.user_id
    and not exists (select 1 from notification_mails m where m.notification_id = n.id)
    and exists (select 1 from memberships ms where ms.project_id = n.project_id and ms.user_id = n.user_id)
    and ${where}
  order by n.created_at, n.id
  limit ${limit}`;

/** Recent notifications of users who chose instant email (the default), oldest first. */
export async function instantCandidates(db: Db, window: string, limit: number): Promise<MailableNotification[]> {
  const where = sql`n.created_at > now() - ${window}::interval
    and not exists (select 1 from notification_settings s where s.user_id = n.user_id and s.email <> 'instant')`;
  return rowsOf<MailableNotification>(await db.execute(mailable(where, limit)));
}

/** One user's notifications for a digest: the unmailed ones of the last `window`, oldest first. */
export async function digestCandidates(db: Db, userId: string, window: string, limit: number): Promise<MailableNotification[]> {
  const where = sql`n.user_id = ${userId} and n.created_at > now() - ${window}::interval`;
  return rowsOf<MailableNotification>(await db.execute(mailable(where, limit)));
}

/**
 * Claims notifications for email: the ones this call inserted a row for are its own to mail. The
 * primary key makes the claim exactly once, even when two instances race for the same notification
 * (the second waits for the first's commit, then finds the row and claims nothing).
 */
export async function claimNotifications(db: Db, ids: string[], via: 'instant' | 'digest'): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const values = sql.join(
    ids.map((id) => sql`(${id}::uuid, ${via})`),
    sql`, `,
  );
  const result = await db.execute(sql`
    insert into notification_mails (notification_id, via) values ${values}
    on conflict (notification_id) do nothing
    returning notification_id::text as id`);
  return new Set(rowsOf<{ id: string }>(result).map((row) => row.id));
}

/**
 * Users whose digest for `day` is due, locked for this transaction: SKIP LOCKED gives each to one
 * instance, and `last_digest_on` (set in the same transaction as the digest is queued) keeps a
 * restarted or second instance from sending it again.
 */
export async function lockDueDigests(db: Db, day: string, limit: number): Promise<string[]> {
  const result = await db.execute(sql`
    select user_id::text as "userId" from notification_settings
    where email = 'daily' and (last_digest_on is null or last_digest_on < ${day}::date)
    order by user_id
    limit ${limit}
    for update skip locked`);
  return rowsOf<{ userId: string }>(result).map((row) => row.userId);
}

export async function markDigestDone(db: Db, userId: string, day: string): Promise<void> {
  await db.execute(sql`update notification_settings set last_digest_on = ${day}::date where user_id = ${userId}`);
}
