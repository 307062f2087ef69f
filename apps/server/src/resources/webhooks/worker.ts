import type { Db } from '@tasklane/db';
import type { WebhookConfig } from '../../platform/config';
import { backoffMs, startBackgroundWorker } from '../../platform/background-worker';
import { sendDelivery } from './send';
import * as store from './store';

const BATCH = 20;

const describeDuration = (ms: number) => (ms >= 3_600_000 ? `${Math.round(ms / 3_600_000)} h` : `${Math.round(ms / 1000)} s`);

/** Exponential backoff: base, 2×base, 4×base … capped; never past the end of the retry window. */
export function nextAttemptAt(attempts: number, createdAt: Date, now: Date, config: WebhookConfig): Date | null {
  const giveUpAt = createdAt.getTime() + config.retryWindowMs;
  if (now.getTime() >= giveUpAt) return null;
  const delay = backoffMs(attempts, config.retryBaseMs, config.retryMaxDelayMs);
  return new Date(Math.min(now.getTime() + delay, giveUpAt));
}

/**
 * Sends due webhook deliveries from the outbox. Every instance runs one; rows are leased with
 * SKIP LOCKED, so each delivery is sent by one instance at a time. It polls every `pollMs` and is
 * also woken by every change (`wake`).
 */
export function startDeliveryWorker(
  db: Db,
  config: WebhookConfig,
  onError: (error: unknown) => void,
  onAttempt: (outcome: 'delivered' | 'retrying' | 'failed') => void = () => {},
) {
  const leaseMs = config.timeoutMs * 2 + 5000;

  async function deliver(delivery: store.ClaimedDelivery): Promise<void> {
    const result = await sendDelivery(
      { url: delivery.url, secret: delivery.secret, body: delivery.payload, deliveryId: delivery.id, eventType: delivery.eventType },
      config,
    );
    if (result.ok) {
      await store.markDelivered(db, delivery, result.status!);
      onAttempt('delivered');
      return;
    }
    // A test is attempted once: the admin who sent it reads its result in the log, and sends another.
    const retryAt = delivery.test ? null : nextAttemptAt(delivery.attempts, delivery.createdAt, new Date(), config);
    await store.markFailed(db, delivery, {
      status: result.status,
      error: result.error ?? 'failed',
      retryAt,
      disabledReason: `Disabled after delivery ${delivery.id} (${delivery.eventType}) kept failing for ${describeDuration(config.retryWindowMs)}; last error: ${result.error}`,
    });
    onAttempt(retryAt ? 'retrying' : 'failed');
  }

  // The delivery log keeps finished deliveries for `logRetentionMs`; older ones are deleted, looked
  // for at most once an hour (more often only when the retention itself is shorter).
  const pruneEveryMs = Math.min(3_600_000, config.logRetentionMs);
  let lastPrunedAt = 0;
  async function pruneLogWhenDue(stopped: () => boolean): Promise<void> {
    const now = Date.now();
    if (now - lastPrunedAt < pruneEveryMs) return;
    lastPrunedAt = now;
    while ((await store.pruneDeliveryLog(db, new Date(now - config.logRetentionMs))) > 0 && !stopped());
  }

  async function drain(stopped: () => boolean): Promise<void> {
    let claimed: store.ClaimedDelivery[];
    do {
      claimed = await store.claimDue(db, BATCH, leaseMs);
      await Promise.all(claimed.map(deliver));
    } while (claimed.length === BATCH && !stopped());
    await store.deleteOrphanedWebhooks(db);
    await pruneLogWhenDue(stopped);
  }

  return { ...startBackgroundWorker({ pollMs: config.pollMs, drain, onError }), pendingCount: () => store.countPending(db) };
}
