import { type Db, webhookDeliveries, webhooks } from '@tasklane/db';
import type { Activity } from '@tasklane/schemas';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../platform/sql';

/** Notified (with no payload) by a dispatch that queued webhook deliveries; every instance's senders wake on it. */
export const DELIVERIES_CHANNEL = 'tasklane_deliveries';

/**
 * The webhook deliveries of a batch of events, in the dispatcher's transaction and in one
 * statement: for each event, one per active webhook of the project (or, deleted, that was the
 * project's), created before the event, that wants its type. The body every attempt sends is the
 * event's JSON, its id first; deliveries are inserted in event order, so their ids keep each
 * task's (or, for project and member events, each project's) order, which the sender follows. The
 * webhooks are locked (the lock order of platform/locks.ts) so that one deleted meanwhile is
 * skipped, and one disabled meanwhile is read as it is now. At most one per webhook and event
 * (webhook_deliveries_event_key), however often an event is dispatched. When any was queued, every
 * instance's senders are woken at commit (DELIVERIES_CHANNEL). How many were queued.
 */
export async function queueDeliveries(tx: Db, events: readonly Activity[]): Promise<number> {
  if (events.length === 0) return 0;
  const batch = JSON.stringify(
    events.map((event) => ({ id: event.id, type: event.type, project_id: event.projectId, ordering_key: event.taskId ?? event.projectId, time: event.time, payload: JSON.stringify(event) })),
  );
  const [row] = rowsOf<{ queued: number }>(
    await tx.execute(sql`
      with batch as (
        select * from json_to_recordset(${batch}::json) as e(id bigint, type text, project_id uuid, ordering_key uuid, time timestamptz, payload text)
      ),
      targets as (
        select ${webhooks.id} as webhook_id, e.id as event_id, e.type, e.ordering_key, e.payload
        from ${webhooks} join batch as e
          on (${webhooks.projectId} = e.project_id or ${webhooks.formerProjectId} = e.project_id) and ${webhooks.active}
          and (cardinality(${webhooks.events}) = 0 or e.type = any(${webhooks.events}))
          -- Not to a webhook created after the event (dispatched after its creation all the same).
          and ${webhooks.createdAt} <= e.time
        for key share of ${webhooks}
      ),
      queued as (
        insert into ${webhookDeliveries} (webhook_id, event_id, event_type, ordering_key, payload)
        select webhook_id, event_id, type, ordering_key, payload from targets order by event_id, webhook_id
        on conflict (webhook_id, event_id) do nothing
        returning 1
      )
      select (select count(*)::int from queued) as queued, (select pg_notify(${DELIVERIES_CHANNEL}, '') where exists (select 1 from queued)) as woken`),
  );
  return Number(row?.queued ?? 0);
}
