import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Db } from '@tasklane/db';
import { escapeHtml } from '../../platform/mail/html';
import { mailDay, mailT } from '../../platform/mail/i18n';
import type { MailTemplate } from '../../platform/mail/outbox';
import { digestOf } from '../access-tokens/service';
import * as store from './invitations-store';

export const INVITATION_MAIL = 'project-invitation';
/** Where the web app takes an invitation's link: `<publicUrl>/invite/<token>`. */
export const INVITE_PATH_PREFIX = '/invite/';
/** A token as the links carry it: 32 bytes of HMAC-SHA256, base64url. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * An invitation's token is the HMAC, under a key derived from the server's secret, of a random
 * nonce drawn for each (re)issue. The row keeps only the token's SHA-256; the nonce travels
 * in the queued email's data, so the mail outbox holds no usable link either (the reset email's
 * way): the template rebuilds the token when it sends the message. Without email the nonce is
 * kept nowhere and the link is given once, in the invite's answer.
 */
export function createInvitationTokens(secret: string) {
  const key = createHash('sha256').update(`tasklane invitations\0${secret}`).digest();
  const tokenFor = (nonce: string) => createHmac('sha256', key).update(nonce).digest('base64url');
  return {
    tokenFor,
    /** A fresh token: its nonce (for the email) and the token. */
    issue(): { nonce: string; token: string } {
      const nonce = randomBytes(16).toString('base64url');
      return { nonce, token: tokenFor(nonce) };
    },
  };
}

export type InvitationTokens = ReturnType<typeof createInvitationTokens>;

export interface InvitationMailData {
  invitationId: string;
  nonce: string;
  projectName: string;
  inviterName: string;
  role: string;
  /** The inviter's language (absent from emails queued before it was kept: English). */
  locale?: string | null;
}

/**
 * The invitation email, rendered when it is sent. A message whose invitation was since renewed,
 * revoked, accepted or has expired is dropped: its link would not work.
 */
export function invitationMail(publicUrl: string, tokens: InvitationTokens, db: Db): MailTemplate {
  const base = publicUrl.replace(/\/+$/, '');
  return async (raw) => {
    const data = raw as unknown as InvitationMailData;
    const token = tokens.tokenFor(data.nonce);
    const usable = await store.findUsable(db, digestOf(token));
    if (!usable || usable.invitation.id !== data.invitationId) return null;
    const link = `${base}${INVITE_PATH_PREFIX}${token}`;
    const { projectName, role, locale } = data;
    // In the inviter's language: the invitee has no account, hence no language, yet.
    const t = mailT(locale);
    // An inviter since deleted is "someone", in that language.
    const inviterName = data.inviterName || t('notification.someone');
    const expires = mailDay(locale, usable.invitation.expiresAt);
    const roleName = t(`invitation.role.${role}`);
    const text = [
      t('helloNoName'),
      '',
      t('invitation.invited', { inviter: inviterName, project: projectName, role: roleName }),
      t('invitation.open', { expires }),
      '',
      link,
      '',
      t('invitation.ignore'),
    ].join('\n');
    const html = `<p>${escapeHtml(t('helloNoName'))}</p>
<p>${t('invitation.invited', { inviter: escapeHtml(inviterName), project: escapeHtml(projectName), role: escapeHtml(roleName) })}
${escapeHtml(t('invitation.open', { expires }))}</p>
<p><a href="${escapeHtml(link)}">${t('invitation.join', { project: escapeHtml(projectName) })}</a></p>
<p>${escapeHtml(t('invitation.ignore'))}</p>`;
    return { subject: t('invitation.subject', { inviter: inviterName, project: projectName }), text, html };
  };
}
