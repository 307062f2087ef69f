import type { Database, Db } from '@tasklane/db';
import type { MailConfig } from '../../platform/config';
import { startBackgroundWorker } from '../../platform/background-worker';
import type { MailOutbox } from '../../platform/mail/outbox';
import { digestDay } from './digest-day';
import * as store from './store';
import { DIGEST_MAIL, type DigestMailData, NOTIFICATION_MAIL, type NotificationItem, type NotificationMailData } from './templates';

/** The channel the database announces new notifications on (migration 0008's trigger), at commit. */
export const NOTIFICATION_MAIL_CHANNEL = 'tasklane_notification_mail';

const BATCH = 50;
/** A digest lists this many notifications and counts the rest. */
const DIGEST_LISTED = 50;
const DIGEST_READ_LIMIT = 1000;
/**
 * A notification is mailed at once only while this young: one the server could not mail sooner
 * (email turned on later, every instance down) stays in the inbox rather than arriving late.
 */
const INSTANT_WINDOW = '1 hour';
/**
 * A digest lists what no email has covered yet (the claims say so), from at most this far back: what
 * an outage of several days left unsent stays in the inbox.
 */
const DIGEST_WINDOW = '2 days';

const itemOf = ({ recipientEmail: _email, recipientName: _name, userId: _user, ...item }: store.MailableNotification): NotificationItem => item;

/**
 * Turns notifications into queued email, in the background on every instance, woken at the commit
 * of new notifications (and polling every `pollMs`, which also finds digests due). Each pass claims
 * notifications in the transaction that queues their email in the mail outbox, which sends it
 * (mail/sender.ts): a notification is mailed exactly once, a request never waits for it.
 * - instant: each recent notification of a user with instant email (the default) is one email;
 * - daily: at MAIL_DIGEST_HOUR (UTC), one digest per user of what came since the previous one.
 */
export async function startNotificationMailer(database: Pick<Database, 'db' | 'listen'>, config: MailConfig, outbox: MailOutbox, onError: (error: unknown) => void) {
  const db: Db = database.db;
  const now = config.now ?? (() => new Date());

  /** One batch of instant email; true when there may be more. */
  async function instantBatch(): Promise<boolean> {
    return db.transaction(async (tx) => {
      const candidates = await store.instantCandidates(tx, INSTANT_WINDOW, BATCH);
      const claimed = await store.claimNotifications(tx, candidates.map((notification) => notification.id), 'instant');
      for (const notification of candidates.filter(({ id }) => claimed.has(id))) {
        const data: NotificationMailData = { userId: notification.userId, recipientName: notification.recipientName, item: itemOf(notification) };
        await outbox.enqueue(tx, { kind: NOTIFICATION_MAIL, to: notification.recipientEmail, data: data as unknown as Record<string, unknown> });
      }
      return candidates.length === BATCH;
    });
  }

  /** One batch of due digests; true when there may be more. */
  async function digestBatch(day: string): Promise<boolean> {
    return db.transaction(async (tx) => {
      const users = await store.lockDueDigests(tx, day, BATCH);
      for (const userId of users) {
        const candidates = await store.digestCandidates(tx, userId, DIGEST_WINDOW, DIGEST_READ_LIMIT);
        const claimed = await store.claimNotifications(tx, candidates.map((notification) => notification.id), 'digest');
        const items = candidates.filter(({ id }) => claimed.has(id));
        const [first] = items;
        if (first) {
          const data: DigestMailData = { userId, recipientName: first.recipientName, day, items: items.slice(0, DIGEST_LISTED).map(itemOf), more: Math.max(0, items.length - DIGEST_LISTED) };
          await outbox.enqueue(tx, { kind: DIGEST_MAIL, to: first.recipientEmail, data: data as unknown as Record<string, unknown> });
        }
        await store.markDigestDone(tx, userId, day);
      }
      return users.length === BATCH;
    });
  }

  async function drain(stopped: () => boolean): Promise<void> {
    while ((await instantBatch()) && !stopped());
    const day = digestDay(now(), config.digestHour);
    while ((await digestBatch(day)) && !stopped());
  }

  const worker = startBackgroundWorker({ pollMs: config.pollMs, drain, onError });
  const unlisten = await database.listen(NOTIFICATION_MAIL_CHANNEL, worker.wake, worker.wake);
  return {
    async stop(): Promise<void> {
      await unlisten();
      await worker.stop();
    },
  };
}
