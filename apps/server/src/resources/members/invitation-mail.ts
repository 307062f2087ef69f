import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Db } from '@tasklane/db';
import { escapeHtml } from '../../platform/mail/html';
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
    const { projectName, inviterName, role } = data;
    const expires = usable.invitation.expiresAt.toISOString().slice(0, 10);
    const text = [
      'Hello,',
      '',
      `${inviterName} invited you to the Tasklane project "${projectName}" as ${role}.`,
      `Open this link to sign in or create an account and join it (it works once, until ${expires}):`,
      '',
      link,
      '',
      'If you did not expect this invitation, ignore this email.',
    ].join('\n');
    const html = `<p>Hello,</p>
<p>${escapeHtml(inviterName)} invited you to the Tasklane project &ldquo;${escapeHtml(projectName)}&rdquo; as ${escapeHtml(role)}.
Open this link to sign in or create an account and join it (it works once, until ${expires}):</p>
<p><a href="${escapeHtml(link)}">Join ${escapeHtml(projectName)}</a></p>
<p>If you did not expect this invitation, ignore this email.</p>`;
    return { subject: `${inviterName} invited you to ${projectName} on Tasklane`, text, html };
  };
}
