import { NotificationSettingsSchema, UpdateNotificationSettingsInput } from '@tasklane/schemas';
import { z } from 'zod';
import { protectedProcedure, router } from '../init';

const tags = ['auth'];
const modes =
  '`off`: no email; `instant` (the default): one email per notification, seconds after it; `daily`: one digest a day at the server’s MAIL_DIGEST_HOUR (UTC) of what came since the previous one. The setting is kept even while the server sends no email (SMTP_URL unset).';

/** `auth.notificationSettings`: how the caller hears of notifications by email. */
export const notificationSettingsRouter = router({
  get: protectedProcedure
    .meta({ openapi: { method: 'GET', path: '/auth/me/notification-settings', tags, summary: 'My notification email setting', description: modes } })
    .input(z.object({}).strict().optional())
    .output(NotificationSettingsSchema)
    .query(({ ctx }) => ctx.services.notificationSettings.get(ctx.userId)),

  update: protectedProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/auth/me/notification-settings',
        tags,
        summary: 'Change my notification email setting',
        description: `${modes} Turning \`daily\` on sends the first digest at the next digest hour. Needs a login token (not a personal access token).`,
      },
      errors: [403],
    })
    .input(UpdateNotificationSettingsInput)
    .output(NotificationSettingsSchema)
    .mutation(({ ctx, input }) => ctx.services.notificationSettings.update(ctx.userId, input.email)),
});
