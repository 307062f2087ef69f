import type { Db } from '@tasklane/db';
import type { ListNotificationsInput, Notification, NotificationKind, Subscription } from '@tasklane/schemas';
import type { Gauge } from 'prom-client';
import { followFeed, type SlowConsumerError, type StreamTransport } from '../../platform/feed-follow';
import type { FeedHub, FeedRow } from '../../platform/feed-hub';
import { isForeignKeyViolation } from '../../platform/db-errors';
import { isId } from '../../platform/ids';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { authorize, currentGrant, grantedProjects } from '../policy/policy';
import type { TasksService } from '../tasks/service';
import { notFound } from '../../platform/errors';
import * as store from './store';
import { userChannel } from '../../events/processors/notifications';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const toNotification = (row: store.NotificationRow): Notification => ({
  id: row.id,
  kind: row.kind as NotificationKind,
  projectId: row.projectId,
  projectName: row.projectName,
  taskId: row.taskId,
  taskTitle: row.taskTitle,
  commentId: row.commentId,
  actorId: row.actorId,
  actorName: row.actorName,
  createdAt: row.createdAt.toISOString(),
  readAt: iso(row.readAt),
});

/** A user's notifications as a feed of the live hub (lib/feed-hub.ts), announced on the user's channel. */
export const notificationFeed = (db: Db) => ({
  channel: userChannel,
  latest: (userId: string) => store.latestSeq(db, userId),
  // The hub reads for every stream of the user alike; each stream filters by its own grant (see follow).
  after: async (userId: string, afterSeq: number, limit: number) =>
    (await store.listAfter(db, userId, afterSeq, undefined, limit)).map((row): FeedRow<Notification> => ({ position: row.seq, entry: toNotification(row) })),
});

export interface NotificationStreams {
  hub: FeedHub<Notification>;
  openStreams: Gauge<'transport'>;
  maxQueued: number;
}

export function createNotificationsService(db: Db, tasks: TasksService, streams: NotificationStreams) {
  /** The projects the request's token is limited to, if it is. */
  const within = () => grantedProjects(currentGrant());

  return {
    /** Newest first, paged by seq; `unread=true` keeps the unread ones. */
    async list(userId: string, query: ListNotificationsInput): Promise<Page<Notification>> {
      const limit = pageSize(query.limit);
      const [beforeSeq] = decodeCursor(query.cursor, [cursorChecks.positiveInteger]) ?? [];
      const rows = await store.listNewestFirst(
        db,
        userId,
        { unread: query.unread === 'true', beforeSeq: typeof beforeSeq === 'number' ? beforeSeq : undefined, within: within() },
        limit + 1,
      );
      return toPage(rows, limit, toNotification, (row) => [row.seq]);
    },

    async unreadCount(userId: string): Promise<{ count: number }> {
      return { count: await store.countUnread(db, userId, within()) };
    },

    /** Marks one read (again: no change); another user's, or a hidden one, is a 404. */
    async markRead(userId: string, id: string): Promise<Notification> {
      if (!isId(id) || !(await store.markRead(db, userId, id, within(), new Date()))) throw notFound('Notification');
      const row = await store.findNotification(db, userId, id, within());
      if (!row) throw notFound('Notification');
      return toNotification(row);
    },

    async markAllRead(userId: string): Promise<{ marked: number }> {
      return { marked: await store.markAllRead(db, userId, within(), new Date()) };
    },

    async subscription(userId: string, taskId: string): Promise<Subscription> {
      await tasks.loadTask(userId, taskId);
      return { subscribed: await store.isWatching(db, taskId, userId) };
    },

    /** Any member opts in (`true`) or out (`false`); an opt-out holds until they opt in, are mentioned or are assigned. */
    async setSubscription(userId: string, taskId: string, subscribed: boolean): Promise<Subscription> {
      const { access } = await tasks.loadTask(userId, taskId);
      authorize(access, 'project.read');
      try {
        await store.setWatching(db, taskId.toLowerCase(), userId, subscribed, new Date());
      } catch (error) {
        // The task was deleted between the check and the write.
        if (isForeignKeyViolation(error)) throw notFound('Task');
        throw error;
      }
      return { subscribed };
    },

    /**
     * The caller's notifications live: those after `lastEventId` (a seq) first, then new ones, each
     * once and in order (lib/feed-follow.ts), of projects the caller is a member of (and its token reaches).
     */
    async follow(
      userId: string,
      options: { lastEventId?: string | null; signal?: AbortSignal; transport: StreamTransport; cutOff: (error: SlowConsumerError) => void },
    ): Promise<AsyncGenerator<FeedRow<Notification>>> {
      const reach = within();
      const rows = await followFeed(streams.hub, userId, streams, {
        ...options,
        lastPosition: options.lastEventId ? Number(options.lastEventId) : null,
        replay: async (afterSeq, limit) =>
          (await store.listAfter(db, userId, afterSeq, reach, limit)).map((row): FeedRow<Notification> => ({ position: row.seq, entry: toNotification(row) })),
      });
      if (!reach) return rows;
      return (async function* () {
        for await (const row of rows) if (reach.includes(row.entry.projectId)) yield row;
      })();
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;

/**
 * The due-reminder job (docs/operations.md, "Due reminders"): every `pollMs` each instance tries
 * to run it, and the one that gets the lock does (notifications/store.ts, remindDueTasks). All it
 * knows lives in the database, so a restart changes nothing: a due date reminded of stays reminded.
 */
export function dueReminderJob(db: Db, windowSeconds: number) {
  const BATCH = 500;
  return {
    /** One run; `ran` is false when another instance was running it. */
    async runOnce(): Promise<{ ran: boolean; reminded: number }> {
      let total = 0;
      for (;;) {
        const { ran, reminded } = await store.remindDueTasks(db, windowSeconds, BATCH);
        if (!ran) return { ran, reminded: total };
        total += reminded;
        if (reminded < BATCH) return { ran, reminded: total };
      }
    },
  };
}
