import { type Db, webhookDeliveries, webhooks } from '@tasklane/db';
import type { Activity } from '@tasklane/schemas';
import { sql } from 'drizzle-orm';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The body every delivery of an event sends. */
export const deliveryBody = (entry: Activity): string => JSON.stringify(entry);

/**
 * The outbox: one delivery per active webhook of the project that wants this event type, in the
 * change's transaction. Ordered per task (or per project for project and member events).
 */
export async function enqueueDeliveries(tx: Db, entry: Activity): Promise<void> {
  await tx.execute(sql`
    insert into ${webhookDeliveries} (webhook_id, event_id, event_type, ordering_key, payload)
    select ${webhooks.id}, ${Number(entry.id)}, ${entry.type}, ${entry.taskId ?? entry.projectId}::uuid, ${deliveryBody(entry)}
    from ${webhooks}
    where ${webhooks.projectId} = ${entry.projectId}::uuid and ${webhooks.active}
      and (cardinality(${webhooks.events}) = 0 or ${entry.type} = any(${webhooks.events}))`);
}
