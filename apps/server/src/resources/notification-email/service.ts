import type { Db } from '@tasklane/db';
import type { NotificationEmailMode, NotificationSettings } from '@tasklane/schemas';
import { DomainError } from '../../platform/errors';
import { digestDay } from './digest-day';
import * as store from './store';
import type { UnsubscribeTokens } from './unsubscribe-token';

export const DEFAULT_EMAIL_MODE: NotificationEmailMode = 'instant';

const invalidToken = () =>
  new DomainError('BAD_REQUEST', 'This unsubscribe link is not valid: it was changed or cut short. Use the link of a recent email, or change the setting after logging in', 'INVALID_UNSUBSCRIBE_TOKEN');

const staleToken = () =>
  new DomainError(
    'BAD_REQUEST',
    'This unsubscribe link is older than your last change of the email setting: use the link of a newer email, or change the setting after logging in',
    'INVALID_UNSUBSCRIBE_TOKEN',
  );

/** A user's notification email preference, and the unsubscribe link that turns it off. */
export function createNotificationSettingsService(db: Db, deps: { tokens: UnsubscribeTokens; digestHour: number; now: () => Date }) {
  async function save(userId: string, email: NotificationEmailMode): Promise<boolean> {
    return store.saveSettings(db, userId, email, digestDay(deps.now(), deps.digestHour));
  }

  return {
    async get(userId: string): Promise<NotificationSettings> {
      return { email: (await store.findSettings(db, userId)) ?? DEFAULT_EMAIL_MODE };
    },

    async update(userId: string, email: NotificationEmailMode): Promise<NotificationSettings> {
      await save(userId, email);
      return { email };
    },

    /**
     * The one-click unsubscribe: turns email off for the user the signed token names. Repeating it
     * is harmless; a link issued before the user's last change of the setting (in whole seconds, as
     * the token's `iat`) is refused, so an old email cannot undo turning email back on.
     */
    async unsubscribe(token: string): Promise<NotificationSettings> {
      const claims = await deps.tokens.verify(token);
      if (!claims) throw invalidToken();
      const current = await store.findSettingsRow(db, claims.userId);
      if (current?.email === 'off') return { email: 'off' };
      if (current && current.updatedAt.getTime() >= (claims.issuedAt + 1) * 1000) throw staleToken();
      if (!(await save(claims.userId, 'off'))) throw invalidToken();
      return { email: 'off' };
    },

    /** Whether a token is genuine, without using it: the link's confirmation page. */
    async checkToken(token: string): Promise<void> {
      if (!(await deps.tokens.verify(token))) throw invalidToken();
    },
  };
}

export type NotificationSettingsService = ReturnType<typeof createNotificationSettingsService>;
