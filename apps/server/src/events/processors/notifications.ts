import { arrayLiteral, comments, type Db, memberships, notifications, taskWatchers } from '@tasklane/db';
import type { Activity } from '@tasklane/schemas';
import { type SQL, sql } from 'drizzle-orm';
import { RECIPIENT_LOCK_CLASS } from '../../platform/locks';
import { notificationPlanOf } from '../notification-plan';
import { lockedScope } from '../scope';

/** The channel of a user's "notification N arrived" announcements (the payload is its seq). */
export const userChannel = (userId: string) => `tasklane_u_${userId.replaceAll('-', '').toLowerCase()}`;

/**
 * CTEs `recipients_locked` and `notified` (the new rows, for later steps of the statement to use)
 * that insert one notification for each row of the CTE `recipients` (user_id, kind, project_id,
 * task_id, comment_id, actor_id). The recipients' advisory locks, held to the end of the
 * transaction, make one user's notification `seq`s commit in increasing order, so a stream that has
 * sent seq N never later finds a smaller one appear; they are taken in one pass, in the order of
 * their keys, so two writers never wait on each other in a cycle.
 */
export const deliveryCtes = (createdAt: SQL) => sql`
  recipients_locked as (
    select r.user_id, r.kind, r.project_id, r.task_id, r.comment_id, r.actor_id
    from (select recipients.*, hashtext(recipients.user_id::text) as lock_key from recipients order by lock_key) as r
    cross join lateral (select pg_advisory_xact_lock(${RECIPIENT_LOCK_CLASS}, r.lock_key)) as locked
  ),
  notified as (
    insert into ${notifications} (id, user_id, kind, project_id, task_id, comment_id, actor_id, created_at)
    select tasklane_uuid_v7(), user_id, kind, project_id, task_id, comment_id, actor_id, ${createdAt}
    from recipients_locked
    returning id, seq, user_id, kind, project_id, task_id, comment_id, actor_id
  )`;

/** Announces each row of `notified` on its recipient's channel (at commit); the value is how many. */
export const announceNotified = sql`(select count(*) from notified as n cross join lateral (select pg_notify('tasklane_u_' || replace(n.user_id::text, '-', ''), n.seq::text)) as sent)`;

const lowerIds = (ids: readonly string[]) => arrayLiteral(ids.map((id) => id.toLowerCase()));

/**
 * The notifications and new task watchers of one event (notificationPlanOf), in the dispatcher's
 * transaction, announced at its commit. Only while the event's project and task still exist: their
 * rows (and the comment's) are locked FOR KEY SHARE first (the lock order of platform/locks.ts), so
 * a deletion that came after the event means no notification rather than a failed foreign key.
 */
export async function writeNotifications(tx: Db, event: Activity): Promise<void> {
  const plan = notificationPlanOf(event);
  if (!plan) return;
  const projectId = sql`${event.projectId}::uuid`;
  const taskId = sql`${event.taskId}::uuid`;
  const watch = lowerIds([...(plan.watch?.auto ?? []), ...(plan.watch?.force ?? [])]);
  const directUsers = lowerIds(plan.direct.map((entry) => entry.userId));
  const directKinds = arrayLiteral(plan.direct.map((entry) => entry.kind));
  await tx.execute(sql`
    with scope as (
      select (select c.id from ${comments} as c where c.id = ${plan.commentId ?? null}::uuid for key share) as comment_id
      where ${lockedScope(event.taskId ? { projectId, taskId } : { projectId })}
    ),
    watched as (
      insert into ${taskWatchers} (task_id, user_id, subscribed, created_at, updated_at)
      select ${taskId}, w.user_id, true, ${event.time}::timestamptz, ${event.time}::timestamptz
      from (select distinct u as user_id from unnest(${watch}::uuid[]) as u) as w, scope
      where ${taskId} is not null and exists (select 1 from ${memberships} as m where m.project_id = ${projectId} and m.user_id = w.user_id)
      on conflict (task_id, user_id) do update set subscribed = true, updated_at = excluded.updated_at
        where not ${taskWatchers.subscribed} and excluded.user_id = any(${lowerIds(plan.watch?.force ?? [])}::uuid[])
      returning 1
    ),
    recipients as (
      select distinct on (c.user_id) c.user_id, c.kind, ${projectId} as project_id, ${taskId} as task_id, scope.comment_id, ${event.actorId}::uuid as actor_id
      from (
        select d.user_id, d.kind, d.rank from unnest(${directUsers}::uuid[], ${directKinds}::text[]) with ordinality as d(user_id, kind, rank)
        union all
        select tw.user_id, ${plan.watchers ?? null}::text, 1000000 from ${taskWatchers} as tw
        where tw.task_id = ${taskId} and tw.subscribed and ${plan.watchers ?? null}::text is not null
      ) as c, scope
      where c.user_id <> ${event.actorId}::uuid
        and exists (select 1 from ${memberships} as m where m.project_id = ${projectId} and m.user_id = c.user_id)
      order by c.user_id, c.rank
    ),
    ${deliveryCtes(sql`${event.time}::timestamptz`)}
    select (select count(*) from watched) as watched, ${announceNotified} as notified`);
}
