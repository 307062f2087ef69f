import { type Db, webhookDeliveries, webhooks } from '@tasklane/db';
import type { Activity } from '@tasklane/schemas';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../platform/sql';

/** Notified (with no payload) by a dispatch that queued webhook deliveries; every instance's senders wake on it. */
export const DELIVERIES_CHANNEL = 'tasklane_deliveries';

/**
 * The webhook deliveries of one event, in the dispatcher's transaction: one per active webhook of
 * the project (or, deleted, that was the project's), created before the event, that wants this event type. The body every attempt sends is the event's JSON, its id
 * first; ordered per task (or per project for project and member events). The webhooks are locked
 * (the lock order of platform/locks.ts) so that one deleted meanwhile is skipped, and one disabled
 * meanwhile is read as it is now. At most one per webhook and event (webhook_deliveries_event_key),
 * however often the event is dispatched. How many were queued.
 */
export async function queueDeliveries(tx: Db, event: Activity): Promise<number> {
  const body = JSON.stringify(event);
  const rows = rowsOf<{ one: number }>(
    await tx.execute(sql`
      insert into ${webhookDeliveries} (webhook_id, event_id, event_type, ordering_key, payload)
      select ${webhooks.id}, ${event.id}::bigint, ${event.type}::text, ${event.taskId ?? event.projectId}::uuid, ${body}::text
      from ${webhooks}
      where (${webhooks.projectId} = ${event.projectId}::uuid or ${webhooks.formerProjectId} = ${event.projectId}::uuid) and ${webhooks.active}
        and (cardinality(${webhooks.events}) = 0 or ${event.type}::text = any(${webhooks.events}))
        -- Not to a webhook created after the event (dispatched after its creation all the same).
        and ${webhooks.createdAt} <= ${event.time}::timestamptz
      for key share of ${webhooks}
      on conflict (webhook_id, event_id) do nothing
      returning 1 as one`),
  );
  return rows.length;
}
