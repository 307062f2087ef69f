import type { Db } from '@tasklane/db';
import type { BackgroundQueue } from '../../platform/background';
import { DomainError } from '../../platform/errors';
import { escapeHtml } from '../../platform/mail/html';
import { mailT } from '../../platform/mail/i18n';
import type { MailOutbox, MailTemplate } from '../../platform/mail/outbox';
import type { OneTimeCodes } from './one-time-codes';
import type { PasswordHasher } from './password';
import { passwordLoginDisabled } from './service';
import * as store from './store';
import type { TokenStateCache } from '../credentials/token-state';

const RESET_TTL_MS = 30 * 60_000;
export const PASSWORD_RESET_MAIL = 'password-reset';

/**
 * The reset email, rendered when it is sent: the link's code is rebuilt from the queued code id
 * with the server's secret, so the outbox never holds a usable link. The code travels in the
 * link's fragment, which browsers do not send, so it reaches no server log.
 */
export function passwordResetMail(publicUrl: string, codes: OneTimeCodes): MailTemplate {
  return (data, recipient) => {
    const link = `${publicUrl}/reset-password#token=${codes.codeFor(String(data.codeId), 'password-reset')}`;
    const name = String(data.name ?? '');
    const t = mailT(typeof data.locale === 'string' ? data.locale : null);
    const text = [
      t('hello', { name }),
      '',
      t('reset.asked', { email: recipient }),
      t('reset.open'),
      '',
      link,
      '',
      t('reset.notYou'),
    ].join('\n');
    const html = `<p>${t('hello', { name: escapeHtml(name) })}</p>
<p>${t('reset.asked', { email: escapeHtml(recipient) })}
${escapeHtml(t('reset.open'))}</p>
<p><a href="${escapeHtml(link)}">${escapeHtml(t('reset.choose'))}</a></p>
<p>${escapeHtml(t('reset.notYou'))}</p>`;
    return { subject: t('reset.subject'), text, html };
  };
}

const invalidCode = () =>
  new DomainError('BAD_REQUEST', 'This reset link is invalid, expired or already used: ask for a new one', 'INVALID_RESET_TOKEN');

/** "Forgot password": a single-use emailed link that sets a new password and signs every session out. */
export function createPasswordResetService(
  db: Db,
  deps: { passwords: PasswordHasher; codes: OneTimeCodes; mail: MailOutbox; tokenStates: TokenStateCache; background: BackgroundQueue; passwordLogin: boolean },
) {
  return {
    /**
     * Always the same answer, given before anything is looked up: whether the email has an account
     * shows neither in the response nor in its timing. The lookup, the code and the email (queued
     * in one transaction) follow in the background.
     */
    request(email: string): { message: string } {
      if (!deps.passwordLogin) throw passwordLoginDisabled();
      deps.background.run(async () => {
        if (!deps.mail.enabled) return;
        const user = await store.findUserByEmail(db, email);
        if (!user) return;
        await db.transaction(async (tx) => {
          const codeId = await deps.codes.issue(tx, 'password-reset', user.id, RESET_TTL_MS);
          await deps.mail.enqueue(tx, { kind: PASSWORD_RESET_MAIL, to: user.email, data: { codeId, name: user.name, locale: user.locale } });
        });
      });
      return { message: 'If an account has this email, a link to reset its password is on its way' };
    },

    /** Sets the password and signs every session of the account out; the link then no longer works. */
    async confirm(code: string, password: string): Promise<{ message: string }> {
      if (!deps.passwordLogin) throw passwordLoginDisabled();
      // Checked before the (slow) hash, so a bad link costs nothing; used below, atomically.
      if (!(await deps.codes.peek(db, code, 'password-reset'))) throw invalidCode();
      const passwordHash = await deps.passwords.hash(password);
      const userId = await db.transaction(async (tx) => {
        const owner = await deps.codes.consume(tx, code, 'password-reset');
        if (!owner) return undefined;
        await store.replacePasswordSigningOut(tx, owner, passwordHash);
        return owner;
      });
      if (!userId) throw invalidCode();
      deps.tokenStates.forgetUser(userId);
      return { message: 'Password changed: log in with the new one' };
    },
  };
}

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;
