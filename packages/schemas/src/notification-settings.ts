import { z } from 'zod';
import { text } from './text';

/** How a user hears of their notifications by email: never, one email each, or one digest a day. */
export const NOTIFICATION_EMAIL_MODES = ['off', 'instant', 'daily'] as const;
export type NotificationEmailMode = (typeof NOTIFICATION_EMAIL_MODES)[number];

export const NotificationEmailModeSchema = z.enum(NOTIFICATION_EMAIL_MODES).meta({
  id: 'NotificationEmailMode',
  description: '`off`: no email; `instant`: one email per notification, within seconds; `daily`: one digest a day at the server’s MAIL_DIGEST_HOUR (UTC)',
});

export const NotificationSettingsSchema = z
  .object({ email: NotificationEmailModeSchema })
  .meta({ id: 'NotificationSettings', example: { email: 'instant' } });

export const UpdateNotificationSettingsInput = z
  .object({ email: NotificationEmailModeSchema })
  .strict()
  .meta({ examples: [{ email: 'daily' }] });

/** The signed token of a notification email's unsubscribe link (RFC 8058). */
export const UnsubscribeQuery = z
  .object({ token: text({ min: 1, max: 2000 }).meta({ description: 'The signed token from the email’s List-Unsubscribe link' }) })
  .strict();

/** The body RFC 8058 has mail clients POST to a one-click unsubscribe link. */
export const UnsubscribeBody = z
  .object({ 'List-Unsubscribe': z.literal('One-Click') })
  .strict()
  .meta({ examples: [{ 'List-Unsubscribe': 'One-Click' }] });

export type NotificationSettings = z.infer<typeof NotificationSettingsSchema>;
