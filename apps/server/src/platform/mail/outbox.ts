import type { Db } from '@tasklane/db';
import { insertMail } from './store';

/** The channel the database announces newly queued mail on (migration 0005's trigger), at commit. */
export const MAIL_CHANNEL = 'tasklane_mail';

/** A message as a template renders it: ready to send. */
export interface RenderedMail {
  subject: string;
  text: string;
  /** An HTML alternative to `text`. */
  html?: string;
  /** Extra headers, e.g. `List-Unsubscribe` and `List-Unsubscribe-Post` for notification mail. */
  headers?: Record<string, string>;
}

/**
 * Renders one kind of message from the data queued with it, when it is sent (not when queued), so
 * queued data can stay free of secrets a template derives itself (a reset link's code, an
 * unsubscribe link's token). A template answers null for a message that must no longer go out
 * (its recipient left the project or turned email off while it waited for a retry): it is dropped.
 */
export type MailTemplate = (data: Record<string, unknown>, recipient: string) => RenderedMail | null | Promise<RenderedMail | null>;

/** Templates by kind; a kind is the name a message is queued under. */
export type MailTemplates = Readonly<Record<string, MailTemplate>>;

export interface QueuedMail {
  kind: string;
  to: string;
  /** What the kind's template needs; stored as JSON in the outbox. */
  data: Record<string, unknown>;
}

/**
 * Where a change queues the email it causes: in its own transaction (pass the transaction as
 * `db`), so a message is sent exactly when the change commits. The sender (sender.ts) is told at
 * commit through the database and sends it in the background; a request never waits for SMTP.
 * Without SMTP_URL nothing is queued.
 */
export function createMailOutbox(enabled: boolean) {
  return {
    enabled,
    async enqueue(db: Db, mail: QueuedMail): Promise<void> {
      if (!enabled) return;
      await insertMail(db, { kind: mail.kind, recipient: mail.to, data: mail.data });
    },
  };
}

export type MailOutbox = ReturnType<typeof createMailOutbox>;
