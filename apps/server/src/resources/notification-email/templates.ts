import { escapeHtml } from '../../platform/mail/html';
import { mailDateTime, mailDay, type MailT, mailT } from '../../platform/mail/i18n';
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

/** One line saying what happened, as the inbox would, in the recipient's language. */
export function headline(t: MailT, locale: string | null, item: NotificationItem): string {
  const actor = item.actorName ?? t('notification.someone');
  const task = t('notification.quoted', { title: item.taskTitle ?? t('notification.deletedTask') });
  switch (item.kind) {
    case 'task.assigned':
      return t('notification.assigned', { actor, task });
    case 'comment.mentioned':
      return t('notification.mentioned', { actor, task });
    case 'comment.created':
      return t('notification.commented', { actor, task });
    case 'task.status_changed':
      return t('notification.statusChanged', { actor, task });
    case 'task.due_soon':
      return item.dueDate ? t('notification.dueOn', { task, when: mailDateTime(locale, new Date(item.dueDate)) }) : t('notification.dueSoon', { task });
    case 'member.added':
      return t('notification.memberAdded', { actor, project: item.projectName });
    default:
      return t('notification.other', { subject: item.taskId ? task : item.projectName });
  }
}

/** Where the web app shows what the notification is about: the task, or else its project. */
export const linkOf = (publicUrl: string, item: NotificationItem) =>
  `${publicUrl}/projects/${item.projectId}${item.taskId ? `/tasks/${item.taskId}` : ''}`;

/**
 * The notification emails, rendered when sent, in the language the recipient's account reads then:
 * the unsubscribe link is signed then (the outbox holds no token), and every email carries it as
 * RFC 8058 one-click headers and in its footer. Membership and the email setting are checked again
 * then: a message waiting for a retry says nothing of a project its recipient has left since, and
 * nothing at all once email is off.
 */
export function notificationMailTemplates(publicUrl: string, tokens: UnsubscribeTokens, db: Db): Record<string, MailTemplate> {
  async function withUnsubscribe(t: MailT, userId: string, mail: { subject: string; text: string; html: string }): Promise<RenderedMail> {
    const unsubscribe = `${publicUrl}${UNSUBSCRIBE_PATH}?token=${await tokens.sign(userId)}`;
    return {
      subject: mail.subject,
      text: `${mail.text}\n\n--\n${t('notification.why')}\n${t('notification.stopText', { link: unsubscribe })}\n`,
      html: `${mail.html}
<hr>
<p style="color:#666;font-size:12px">${escapeHtml(t('notification.why'))}
<a href="${escapeHtml(unsubscribe)}">${escapeHtml(t('notification.stopHtml'))}</a>.</p>`,
      headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    };
  }

  const excerptText = (item: NotificationItem) => (item.commentExcerpt ? `\n\n> ${item.commentExcerpt.replace(/\n/g, '\n> ')}` : '');
  const excerptHtml = (item: NotificationItem) =>
    item.commentExcerpt ? `<blockquote style="color:#444;border-left:3px solid #ccc;margin:0;padding-left:8px">${escapeHtml(item.commentExcerpt)}</blockquote>` : '';

  return {
    [NOTIFICATION_MAIL]: async (raw) => {
      const { userId, recipientName, item } = raw as unknown as NotificationMailData;
      const { projects, locale } = await stillMailable(db, userId, [item.projectId]);
      if (!projects.has(item.projectId)) return null;
      const t = mailT(locale);
      const line = headline(t, locale, item);
      const link = linkOf(publicUrl, item);
      return withUnsubscribe(t, userId, {
        subject: `[${item.projectName}] ${line}`,
        text: `${t('hello', { name: recipientName })}\n\n${t('notification.happenedIn', { line, project: item.projectName })}${excerptText(item)}\n\n${t('notification.openText', { link })}`,
        html: `<p>${t('hello', { name: escapeHtml(recipientName) })}</p>
<p>${t('notification.happenedIn', { line: escapeHtml(line), project: escapeHtml(item.projectName) })}</p>
${excerptHtml(item)}
<p><a href="${escapeHtml(link)}">${escapeHtml(t('notification.openHtml'))}</a></p>`,
      });
    },

    [DIGEST_MAIL]: async (raw) => {
      const { userId, recipientName, day, items: queued, more } = raw as unknown as DigestMailData;
      const { projects, locale } = await stillMailable(db, userId, [...new Set(queued.map((item) => item.projectId))]);
      const items = queued.filter((item) => projects.has(item.projectId));
      if (items.length === 0) return null;
      const t = mailT(locale);
      // Each item's line and link, made once for the text part and the HTML part.
      const lines = items.map((item) => ({ item, line: headline(t, locale, item), link: linkOf(publicUrl, item) }));
      const count = items.length + more;
      const inbox = `${publicUrl}/`;
      return withUnsubscribe(t, userId, {
        subject: t('digest.subject', { count, day: mailDay(locale, day) }),
        text: `${t('hello', { name: recipientName })}\n\n${t('digest.intro')}\n\n${lines
          .map(({ item, line, link }) => `- [${item.projectName}] ${line}\n  ${link}`)
          .join('\n')}${more > 0 ? `\n${t('digest.moreText', { count: more, link: inbox })}` : ''}`,
        html: `<p>${t('hello', { name: escapeHtml(recipientName) })}</p>
<p>${escapeHtml(t('digest.intro'))}</p>
<ul>
${lines.map(({ item, line, link }) => `<li>[${escapeHtml(item.projectName)}] <a href="${escapeHtml(link)}">${escapeHtml(line)}</a></li>`).join('\n')}
</ul>
${more > 0 ? `<p>${t('digest.moreHtml', { count: more, inbox: `<a href="${escapeHtml(inbox)}">${escapeHtml(t('digest.inbox'))}</a>` })}</p>` : ''}`,
      });
    },
  };
}
