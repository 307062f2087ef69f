import type { Notification } from '@tasklane/schemas';
import type { EventSubscription } from '@tasklane/sdk';
import { useEffect } from 'preact/hooks';
import { collect, keys } from '../data';
import { formatTime } from '../format';
import { queryClient, useAction, useQuery } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { EmptyState, ErrorNote, Icon, Loading, Page } from '../ui';

const unreadKey = [...keys.notifications, 'unread'] as const;
const listKey = [...keys.notifications, 'list'] as const;

/** Each kind's sentence in the catalogue (`inbox.notification.byActor.*` and `.noActor.*`). */
const KIND_KEYS = {
  'task.assigned': 'taskAssigned',
  'comment.mentioned': 'commentMentioned',
  'comment.created': 'commentCreated',
  'task.status_changed': 'taskStatusChanged',
  'task.due_soon': 'taskDueSoon',
  'member.added': 'memberAdded',
} as const satisfies Record<Notification['kind'], string>;

/**
 * One line for a notification: who did what, to which task or project. A sentence per kind, with
 * and without the person who did it (gone, or none: the service sends `task.due_soon` itself), so
 * each language orders its own words.
 */
export const describeNotification = (item: Notification) => {
  const target = item.taskTitle ?? item.projectName;
  const kind = KIND_KEYS[item.kind];
  const line = item.actorName && kind !== 'taskDueSoon' ? t(`inbox.notification.byActor.${kind}`, { actor: item.actorName, target }) : t(`inbox.notification.noActor.${kind}`, { target });
  return line.trim();
};

/**
 * The signed-in person's notifications, live: the per-user stream adds each new one to the cache
 * (the bell's count and the inbox); after a lost connection it resumes from the last event seen.
 */
export function useNotificationStream() {
  useEffect(() => {
    let subscription: EventSubscription | undefined;
    let lastEventId: string | undefined;
    let closed = false;
    const start = () =>
      client.notifications
        .subscribe(
          { lastEventId },
          {
            onNotification: (item) => {
              queryClient.setQueryData<Notification[]>(listKey, (list) => (list && !list.some((old) => old.id === item.id) ? [item, ...list] : list));
              if (!item.readAt) queryClient.setQueryData<{ count: number }>(unreadKey, (unread) => ({ count: (unread?.count ?? 0) + 1 }));
            },
          },
        )
        .then(
          (started) => {
            if (closed) started.close();
            else subscription = started;
          },
          () => undefined,
        );
    const online = () => {
      lastEventId = subscription?.lastEventId ?? lastEventId;
      subscription?.close();
      void start();
    };
    void start();
    window.addEventListener('online', online);
    return () => {
      closed = true;
      window.removeEventListener('online', online);
      subscription?.close();
    };
  }, []);
}

/** The bell in the header: a link to the inbox that says how many are unread. */
export function Bell({ current }: { current: boolean }) {
  const unread = useQuery(unreadKey, () => client.notifications.unreadCount());
  const count = unread.data?.count ?? 0;
  return (
    <a href="/inbox" class="bell" aria-current={current ? 'page' : undefined} aria-label={t('inbox.bell', { count })}>
      <Icon name="bell" />
      {count > 0 && (
        <span class="badge" aria-hidden="true">
          {count > 99 ? '99+' : count}
        </span>
      )}
    </a>
  );
}

export function InboxPage() {
  const list = useQuery(listKey, () => collect(client.paginate(client.notifications.list, { limit: 100 })));
  const { error, run } = useAction();
  const markAll = async () => {
    if (!(await run(() => client.notifications.markAllRead()))) return;
    const now = new Date().toISOString();
    list.setData((items) => items?.map((item) => ({ ...item, readAt: item.readAt ?? now })));
    queryClient.setQueryData(unreadKey, { count: 0 });
  };
  const open = (item: Notification) => {
    if (item.readAt) return;
    void client.notifications.markRead({ id: item.id }).then(() => {
      list.setData((items) => items?.map((old) => (old.id === item.id ? { ...old, readAt: new Date().toISOString() } : old)));
      queryClient.setQueryData<{ count: number }>(unreadKey, (unread) => ({ count: Math.max(0, (unread?.count ?? 1) - 1) }));
    });
  };
  const items = list.data ?? [];
  return (
    <Page
      title={t('inbox.title')}
      narrow
      actions={
        <button type="button" onClick={markAll} disabled={!items.some((item) => !item.readAt)}>
          {t('inbox.markAllRead')}
        </button>
      }
    >
      <ErrorNote error={list.error ?? error} />
      {!list.data && !list.error && <Loading what={t('inbox.loading')} />}
      {list.data?.length === 0 && <EmptyState title={t('inbox.empty')} hint={t('inbox.emptyHint')} />}
      <ul class="inbox">
        {items.map((item) => (
          <li key={item.id} class={`card${item.readAt ? '' : ' unread'}`}>
            {!item.readAt && <span class="visually-hidden">{t('inbox.unread')}</span>}
            <a href={item.taskId ? `/projects/${item.projectId}/tasks/${item.taskId}` : `/projects/${item.projectId}`} onClick={() => open(item)}>
              {describeNotification(item)}
            </a>
            <span class="muted small">
              {item.projectName} · <time dateTime={item.createdAt}>{formatTime(item.createdAt)}</time>
            </span>
          </li>
        ))}
      </ul>
    </Page>
  );
}
