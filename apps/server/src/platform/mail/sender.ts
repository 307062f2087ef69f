import type { Database, Db } from '@tasklane/db';
import type nodemailer from 'nodemailer';
import type { MailConfig } from '../config';
import { backoffMs, startBackgroundWorker } from '../background-worker';
import { MAIL_CHANNEL, type MailTemplates } from './outbox';
import * as store from './store';

const BATCH = 20;
/** Failed messages are kept this long for an operator to see, then deleted. */
const FAILED_RETENTION_MS = 7 * 86_400_000;
const SMTP_TIMEOUT_MS = 30_000;

/** An SMTP reply in the 5xx range refuses the message for good; anything else may pass later. */
const isPermanent = (error: unknown) => {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
};

/**
 * Sends the outbox's due messages through SMTP_URL with nodemailer. Every instance runs one:
 * messages are leased with SKIP LOCKED, so each is sent by one instance at a time. It is woken at
 * the commit of every message queued (the database's NOTIFY) and polls every `pollMs` for retries.
 * A failed attempt is retried with exponential backoff; after `maxAttempts`, or on a permanent
 * refusal (5xx), the message is kept as FAILED with the server's answer.
 */
export async function startMailSender(database: Pick<Database, 'db' | 'listen'>, config: MailConfig, templates: MailTemplates, onError: (error: unknown) => void) {
  const db: Db = database.db;
  // Loaded only when email is on (SMTP_URL): nodemailer is memory a server without email would hold for nothing.
  const { default: mailer } = await import('nodemailer');
  const transport = mailer.createTransport({
    url: config.smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  const leaseMs = SMTP_TIMEOUT_MS * 3;
  let lastPrunedAt = 0;

  async function send(mail: store.ClaimedMail): Promise<void> {
    try {
      const template = templates[mail.kind];
      if (!template) throw Object.assign(new Error(`no template for mail of kind "${mail.kind}"`), { responseCode: 550 });
      const rendered = await template(mail.data, mail.recipient);
      if (!rendered) {
        await store.deleteSent(db, mail.id);
        return;
      }
      await transport.sendMail({
        from: config.from,
        to: mail.recipient,
        subject: rendered.subject,
        text: rendered.text,
        ...(rendered.html ? { html: rendered.html } : {}),
        ...(rendered.headers ? { headers: rendered.headers } : {}),
      });
      await store.deleteSent(db, mail.id);
    } catch (error) {
      const giveUp = isPermanent(error) || mail.attempts >= config.maxAttempts;
      const retryAt = giveUp ? null : new Date(Date.now() + backoffMs(mail.attempts, config.retryBaseMs, config.retryMaxDelayMs));
      await store.markFailed(db, mail.id, error instanceof Error ? error.message : String(error), retryAt);
    }
  }

  async function drain(stopped: () => boolean): Promise<void> {
    let claimed: store.ClaimedMail[];
    do {
      claimed = await store.claimDue(db, BATCH, leaseMs);
      await Promise.all(claimed.map(send));
    } while (claimed.length === BATCH && !stopped());
    if (Date.now() - lastPrunedAt > 3_600_000) {
      lastPrunedAt = Date.now();
      await store.pruneFailed(db, new Date(Date.now() - FAILED_RETENTION_MS));
    }
  }

  const worker = startBackgroundWorker({ pollMs: config.pollMs, drain, onError });
  const unlisten = await database.listen(MAIL_CHANNEL, worker.wake, worker.wake);
  return {
    wake: worker.wake,
    async stop(): Promise<void> {
      await unlisten();
      await worker.stop();
      transport.close();
    },
  };
}
