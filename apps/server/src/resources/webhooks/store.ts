import { activity, type Db, webhookDeliveries, webhooks } from '@tasklane/db';
import { and, asc, count, desc, eq, gt, inArray, isNull, lt, ne, sql } from 'drizzle-orm';
import { DELIVERIES_CHANNEL } from '../../events/processors/webhooks';
import { rowsOf } from '../../platform/sql';
import { nextVersionSql } from '../../platform/versions';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export const insertWebhook = async (db: Db, webhook: typeof webhooks.$inferInsert) => (await db.insert(webhooks).values(webhook).returning())[0]!;

export const findWebhook = async (db: Db, projectId: string, webhookId: string, options: { forUpdate?: boolean } = {}) => {
  const query = db.select().from(webhooks).where(and(eq(webhooks.projectId, projectId), eq(webhooks.id, webhookId))).limit(1);
  return (await (options.forUpdate ? query.for('update') : query))[0];
};

export const listWebhooks = (db: Db, projectId: string, afterId: string | undefined, limit: number) =>
  db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.projectId, projectId), afterId ? gt(webhooks.id, afterId) : undefined))
    .orderBy(asc(webhooks.id))
    .limit(limit);

/** Undefined when the webhook is gone, or left with its deleted project. */
export const updateWebhook = async (db: Db, projectId: string, webhookId: string, patch: Partial<typeof webhooks.$inferInsert>) =>
  (
    await db
      .update(webhooks)
      .set({ ...patch, updatedAt: nextVersionSql(webhooks.updatedAt) })
      .where(and(eq(webhooks.projectId, projectId), eq(webhooks.id, webhookId)))
      .returning()
  )[0];

/** Its deliveries, pending ones included, go with it (ON DELETE CASCADE). False when it is gone, or left with its deleted project. */
export const deleteWebhook = async (db: Db, projectId: string, webhookId: string) =>
  (await db.delete(webhooks).where(and(eq(webhooks.projectId, projectId), eq(webhooks.id, webhookId))).returning({ id: webhooks.id })).length > 0;

/** The delivery log, newest first. */
export const listDeliveries = (db: Db, webhookId: string, beforeId: number | undefined, limit: number) =>
  db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, webhookId), beforeId !== undefined ? lt(webhookDeliveries.id, beforeId) : undefined))
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit);

/**
 * A test delivery of `eventType` to one webhook, in the caller's transaction: no event behind it
 * (event_id null), queued on its own ordering key (the webhook's id, never a task's or a project's)
 * so it does not wait behind the webhook's other deliveries. Every instance's senders are woken at
 * commit, as for the deliveries of events.
 */
export async function insertTestDelivery(db: Db, webhookId: string, eventType: string, payload: string): Promise<DeliveryRow> {
  const [row] = await db.insert(webhookDeliveries).values({ webhookId, eventId: null, eventType, orderingKey: webhookId, payload }).returning();
  await db.execute(sql`select pg_notify(${DELIVERIES_CHANNEL}, '')`);
  return row!;
}

export interface ClaimedDelivery {
  id: number;
  webhookId: string;
  eventType: string;
  payload: string;
  /** Attempts so far, this one included. */
  attempts: number;
  createdAt: Date;
  url: string;
  secret: string;
  /** A test delivery: sent to a disabled webhook too, attempted once, and never counted in the webhook's failures. */
  test: boolean;
}

/**
 * Leases up to `limit` due deliveries to this instance. SKIP LOCKED lets instances claim side by
 * side without waiting on or taking each other's rows; the lease keeps a row from being claimed
 * again while it is being sent, and expires if the sender dies, so the row is retried. Only the
 * oldest pending delivery of each (webhook, task) is due, which keeps deliveries in order per task.
 */
export async function claimDue(db: Db, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const result = await db.execute(sql`
    update ${webhookDeliveries} as d
    set leased_until = now() + ${leaseMs} * interval '1 millisecond', attempts = d.attempts + 1, updated_at = now()
    from ${webhooks} as w
    where w.id = d.webhook_id and d.id in (
      select due.id from ${webhookDeliveries} as due
      -- A test delivery is sent to a disabled webhook too: it is how an admin checks a fixed URL.
      join ${webhooks} as hook on hook.id = due.webhook_id and (hook.active or due.event_id is null)
      where due.state = 'PENDING' and due.next_attempt_at <= now()
        and (due.leased_until is null or due.leased_until < now())
        and not exists (
          select 1 from ${webhookDeliveries} as earlier
          where earlier.webhook_id = due.webhook_id and earlier.ordering_key = due.ordering_key
            and earlier.state = 'PENDING' and earlier.id < due.id
        )
      order by due.next_attempt_at, due.id
      limit ${limit}
      for update of due skip locked
    )
    returning d.id::text as id, d.webhook_id, d.event_type, d.payload, d.attempts::text as attempts, d.created_at::text as created_at, w.url, w.secret, (d.event_id is null)::text as test`);
  return rowsOf<Record<string, string>>(result).map((row) => ({
    id: Number(row.id),
    webhookId: row.webhook_id!,
    eventType: row.event_type!,
    payload: row.payload!,
    attempts: Number(row.attempts),
    // A raw statement's row is not mapped by drizzle: the column's own mapping reads the text.
    createdAt: webhookDeliveries.createdAt.mapFromDriverValue(row.created_at!) as Date,
    url: row.url!,
    secret: row.secret!,
    test: row.test === 'true',
  }));
}

/**
 * The webhook's row first, then the delivery's: the order of the webhook's deletion (its row, then
 * its deliveries, ON DELETE CASCADE), so the two never deadlock (the lock order of platform/locks.ts).
 */
export async function markDelivered(db: Db, delivery: ClaimedDelivery, status: number): Promise<void> {
  await db.transaction(async (tx) => {
    // The failure count is part of the webhook's answer, so its version (ETag) moves with it. A
    // test delivery leaves the webhook as it is.
    if (!delivery.test) {
      await tx
        .update(webhooks)
        .set({ consecutiveFailures: 0, updatedAt: nextVersionSql(webhooks.updatedAt) })
        .where(and(eq(webhooks.id, delivery.webhookId), ne(webhooks.consecutiveFailures, 0)));
    }
    await tx
      .update(webhookDeliveries)
      .set({ state: 'DELIVERED', lastStatus: status, lastError: null, deliveredAt: new Date(), leasedUntil: null, updatedAt: new Date() })
      .where(eq(webhookDeliveries.id, delivery.id));
  });
}

/**
 * A failed attempt: retried at `retryAt`, or, with `retryAt` null, given up and the webhook disabled
 * with `disabledReason`. A test delivery only records its failure: the webhook is left as it is.
 */
export async function markFailed(
  db: Db,
  delivery: ClaimedDelivery,
  outcome: { status: number | null; error: string; retryAt: Date | null; disabledReason: string },
): Promise<void> {
  await db.transaction(async (tx) => {
    if (!delivery.test) {
      await tx
        .update(webhooks)
        .set({
          consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1`,
          updatedAt: nextVersionSql(webhooks.updatedAt),
          ...(outcome.retryAt ? {} : { active: false, disabledReason: outcome.disabledReason }),
        })
        .where(eq(webhooks.id, delivery.webhookId));
    }
    await tx
      .update(webhookDeliveries)
      .set({
        state: outcome.retryAt ? 'PENDING' : 'FAILED',
        lastStatus: outcome.status,
        lastError: outcome.error,
        leasedUntil: null,
        ...(outcome.retryAt ? { nextAttemptAt: outcome.retryAt } : {}),
        updatedAt: new Date(),
      })
      .where(eq(webhookDeliveries.id, delivery.id));
  });
}

/**
 * A deleted project's webhooks, in its deletion's transaction: detached from it, they remember it
 * (formerProjectId), so the events of the project dispatched after the deletion still reach them.
 */
export const detachProjectWebhooks = (tx: Db, projectId: string) =>
  tx.update(webhooks).set({ projectId: null, formerProjectId: projectId }).where(eq(webhooks.projectId, projectId));

/** Webhooks of deleted projects, once their project's last events are dispatched and their last deliveries (project.deleted among them) are done. */
export const deleteOrphanedWebhooks = (db: Db) =>
  db
    .delete(webhooks)
    .where(
      and(
        isNull(webhooks.projectId),
        sql`not exists (select 1 from ${activity} where ${activity.projectId} = ${webhooks.formerProjectId} and ${activity.dispatchedAt} is null)`,
        sql`not exists (select 1 from ${webhookDeliveries} where ${webhookDeliveries.webhookId} = ${webhooks.id} and ${webhookDeliveries.state} = 'PENDING')`,
      ),
    );

/**
 * Forgets finished deliveries (delivered, or failed for good) last touched before `before`, at most
 * `batch` at a time so the delete never holds many row locks; pending ones are never touched.
 * Returns how many went.
 */
export async function pruneDeliveryLog(db: Db, before: Date, batch = 1000): Promise<number> {
  const deleted = await db
    .delete(webhookDeliveries)
    .where(
      inArray(
        webhookDeliveries.id,
        db
          .select({ id: webhookDeliveries.id })
          .from(webhookDeliveries)
          .where(and(ne(webhookDeliveries.state, 'PENDING'), lt(webhookDeliveries.updatedAt, before)))
          .limit(batch),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return deleted.length;
}

/** Deliveries not yet delivered nor given up (due now, leased, or waiting for a retry), of every instance. */
export async function countPending(db: Db): Promise<number> {
  const [row] = await db.select({ count: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.state, 'PENDING'));
  return row?.count ?? 0;
}
