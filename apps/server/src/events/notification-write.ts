import { arrayLiteral, memberships, notifications, taskWatchers } from '@tasklane/db';
import { type SQL, sql } from 'drizzle-orm';
import { placeholderIn, valuesFor } from '../platform/prepared';
import type { NotificationPlan } from './notification-plan';

/**
 * First key of the per-recipient advisory locks taken by notification writers (the activity's
 * per-project locks use 7415). Held to the end of the transaction, they make one user's
 * notification `seq`s commit in increasing order, so a stream that has sent seq N never later
 * finds a smaller one appear (the same rule as a project's activity ids).
 */
const RECIPIENT_LOCK_CLASS = 7416;

/** The channel of a user's "notification N arrived" announcements (the payload is its seq). */
export const userChannel = (userId: string) => `tasklane_u_${userId.replaceAll('-', '').toLowerCase()}`;

/**
 * CTEs `recipients_locked` and `notified` (the new rows, for later steps of the statement to use)
 * that insert one notification for each row of the CTE
 * `recipients` (user_id, kind, project_id, task_id, comment_id, actor_id). Recipient locks are
 * taken in one pass, in the order of their keys, so two writers never wait on each other in a cycle;
 * a transaction writes notifications once (after its project's activity lock, if any).
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

/**
 * The notification step of a change's statement (recordChange): the task's new watchers, then one
 * notification per recipient of `plan`, only if the change was written (`gate`, a CTE of one row
 * when it was). One statement text for every plan: the plan's lists go as array values.
 */
export function notificationSteps(
  plan: NotificationPlan,
  change: { projectId: string; taskId: string | null; actorId: string; createdAt: Date },
): { build: (gate: SQL) => SQL; values: Record<string, unknown> } {
  const value = placeholderIn('notify_');
  const lower = (ids: readonly string[]) => arrayLiteral(ids.map((id) => id.toLowerCase()));
  return {
    build: (gate) => sql`
      watched as (
        insert into ${taskWatchers} (task_id, user_id, subscribed, created_at, updated_at)
        select ${value('taskId')}::uuid, w.user_id, true, ${value('createdAt')}::timestamptz, ${value('createdAt')}::timestamptz
        from (select distinct u as user_id from unnest(${value('watch')}::uuid[]) as u) as w, ${gate}
        where exists (select 1 from ${memberships} as m where m.project_id = ${value('projectId')}::uuid and m.user_id = w.user_id)
        on conflict (task_id, user_id) do update set subscribed = true, updated_at = excluded.updated_at
          where not ${taskWatchers.subscribed} and excluded.user_id = any(${value('force')}::uuid[])
        returning 1
      ),
      recipients as (
        select distinct on (c.user_id) c.user_id, c.kind, ${value('projectId')}::uuid as project_id, ${value('taskId')}::uuid as task_id,
               ${value('commentId')}::uuid as comment_id, ${value('actorId')}::uuid as actor_id
        from (
          select d.user_id, d.kind, d.rank from unnest(${value('directUsers')}::uuid[], ${value('directKinds')}::text[]) with ordinality as d(user_id, kind, rank)
          union all
          select tw.user_id, ${value('watcherKind')}::text, 1000000 from ${taskWatchers} as tw
          where tw.task_id = ${value('taskId')}::uuid and tw.subscribed and ${value('watcherKind')}::text is not null
        ) as c, ${gate}
        where c.user_id <> ${value('actorId')}::uuid
          and exists (select 1 from ${memberships} as m where m.project_id = ${value('projectId')}::uuid and m.user_id = c.user_id)
        order by c.user_id, c.rank
      ),
      ${deliveryCtes(sql`${value('createdAt')}::timestamptz`)}`,
    values: valuesFor(
      {
        projectId: change.projectId,
        taskId: change.taskId,
        actorId: change.actorId,
        createdAt: change.createdAt,
        commentId: plan.commentId ?? null,
        watch: lower([...(plan.watch?.auto ?? []), ...(plan.watch?.force ?? [])]),
        force: lower(plan.watch?.force ?? []),
        directUsers: lower(plan.direct.map((entry) => entry.userId)),
        directKinds: arrayLiteral(plan.direct.map((entry) => entry.kind)),
        watcherKind: plan.watchers ?? null,
      },
      'notify_',
    ),
  };
}
