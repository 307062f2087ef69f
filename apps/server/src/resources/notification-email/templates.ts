import { escapeHtml } from '../../platform/mail/html';
import type { MailTemplate, RenderedMail } from '../../platform/mail/outbox';
import type { Db } from '@tasklane/db';
import { type MailableNotification, stillMailable } from './store';
import { UNSUBSCRIBE_PATH, type UnsubscribeTokens } from './unsubscribe-token';

export const NOTIFICATION_MAIL = 'notification';
export const DIGEST_MAIL = 'notification-digest';

/** What an email says of one notification: queued with the email, rendered when it is sent. */
export type NotificationItem = Omit<MailableNotification, 'recipientEmail' | 'recipientName' | 'userId'>;

export interface NotificationMailData {
  userId: string;
  recipientName: string;
  item: NotificationItem;
}

export interface DigestMailData {
  userId: string;
  recipientName: string;
  /** The digest's day, `YYYY-MM-DD`. */
  day: string;
  items: NotificationItem[];
  /** Notifications the digest counts but does not list. */
  more: number;
}

const quoted = (title: string | null) => `“${title ?? 'a deleted task'}”`;

/** One line saying what happened, as the inbox would. */
export function headline(item: NotificationItem): string {
  const actor = item.actorName ?? 'Someone';
  switch (item.kind) {
    case 'task.assigned':
      return `${actor} assigned you ${quoted(item.taskTitle)}`;
    case 'comment.mentioned':
      return `${actor} mentioned you on ${quoted(item.taskTitle)}`;
    case 'comment.created':
      return `${actor} commented on ${quoted(item.taskTitle)}`;
    case 'task.status_changed':
      return `${actor} changed the status of ${quoted(item.taskTitle)}`;
    case 'task.due_soon':
      return `${quoted(item.taskTitle)} is due ${item.dueDate ? new Date(item.dueDate).toUTCString() : 'soon'}`;
    case 'member.added':
      return `${actor} added you to the project ${item.projectName}`;
    default:
      return `News on ${item.taskId ? quoted(item.taskTitle) : item.projectName}`;
  }
}

/** Where the web app shows what the notification is about: the task, or else its project. */
export const linkOf = (publicUrl: string, item: NotificationItem) =>
  `${publicUrl}/projects/${item.projectId}${item.taskId ? `/tasks/${item.taskId}` : ''}`;

/**
 * The notification emails, rendered when sent: the unsubscribe link is signed then (the outbox
 * holds no token), and every email carries it as RFC 8058 one-click headers and in its footer.
 * Membership and the email setting are checked again then: a message waiting for a retry says
 * nothing of a project its recipient has left since, and nothing at all once email is off.
 */
export function notificationMailTemplates(publicUrl: string, tokens: UnsubscribeTokens, db: Db): Record<string, MailTemplate> {
  async function withUnsubscribe(userId: string, mail: { subject: string; text: string; html: string }): Promise<RenderedMail> {
    const unsubscribe = `${publicUrl}${UNSUBSCRIBE_PATH}?token=${await tokens.sign(userId)}`;
    return {
      subject: mail.subject,
      text: `${mail.text}\n\n--\nYou get this email because of your Tasklane notification settings.\nStop these emails: ${unsubscribe}\n`,
      html: `${mail.html}
<hr>
<p style="color:#666;font-size:12px">You get this email because of your Tasklane notification settings.
<a href="${escapeHtml(unsubscribe)}">Unsubscribe from these emails</a>.</p>`,
      headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    };
  }

  const excerptText = (item: NotificationItem) => (item.commentExcerpt ? `\n\n> ${item.commentExcerpt.replace(/\n/g, '\n> ')}` : '');
  const excerptHtml = (item: NotificationItem) =>
    item.commentExcerpt ? `<blockquote style="color:#444;border-left:3px solid #ccc;margin:0;padding-left:8px">${escapeHtml(item.commentExcerpt)}</blockquote>` : '';

  return {
    [NOTIFICATION_MAIL]: async (raw) => {
      const { userId, recipientName, item } = raw as unknown as NotificationMailData;
      if (!(await stillMailable(db, userId, [item.projectId])).has(item.projectId)) return null;
      const line = headline(item);
      const link = linkOf(publicUrl, item);
      return withUnsubscribe(userId, {
        subject: `[${item.projectName}] ${line}`,
        text: `Hello ${recipientName},\n\n${line} in ${item.projectName}.${excerptText(item)}\n\nOpen it: ${link}`,
        html: `<p>Hello ${escapeHtml(recipientName)},</p>
<p>${escapeHtml(line)} in ${escapeHtml(item.projectName)}.</p>
${excerptHtml(item)}
<p><a href="${escapeHtml(link)}">Open it in Tasklane</a></p>`,
      });
    },

    [DIGEST_MAIL]: async (raw) => {
      const { userId, recipientName, day, items: queued, more } = raw as unknown as DigestMailData;
      const mailable = await stillMailable(db, userId, [...new Set(queued.map((item) => item.projectId))]);
      const items = queued.filter((item) => mailable.has(item.projectId));
      if (items.length === 0) return null;
      const count = items.length + more;
      const moreText = more > 0 ? `\n…and ${more} more in your inbox: ${publicUrl}/` : '';
      return withUnsubscribe(userId, {
        subject: `Tasklane: ${count} notification${count === 1 ? '' : 's'} for ${day}`,
        text: `Hello ${recipientName},\n\nWhat happened since your last digest:\n\n${items
          .map((item) => `- [${item.projectName}] ${headline(item)}\n  ${linkOf(publicUrl, item)}`)
          .join('\n')}${moreText}`,
        html: `<p>Hello ${escapeHtml(recipientName)},</p>
<p>What happened since your last digest:</p>
<ul>
${items.map((item) => `<li>[${escapeHtml(item.projectName)}] <a href="${escapeHtml(linkOf(publicUrl, item))}">${escapeHtml(headline(item))}</a></li>`).join('\n')}
</ul>
${more > 0 ? `<p>…and ${more} more in <a href="${escapeHtml(publicUrl)}/">your inbox</a>.</p>` : ''}`,
      });
    },
  };
}
