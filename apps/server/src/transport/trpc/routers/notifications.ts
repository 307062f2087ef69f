import {
  ListNotificationsInput,
  MarkAllReadSchema,
  NotificationEventsInput,
  NotificationPathInput,
  NotificationSchema,
  PathIdInput,
  SubscriptionSchema,
  UnreadCountSchema,
} from '@tasklane/schemas';
import { tracked } from '@trpc/server';
import { z } from 'zod';
import { toTRPCError } from '../errors';
import { protectedProcedure, router } from '../init';
import { pagedList } from '../paged-list';

const tags = ['notifications'];
const noBody = z.object({}).strict().meta({ examples: [{}] }).optional();

/**
 * `notifications.events`: the caller's notifications live, as a tRPC subscription (SSE transport),
 * each tracked by its seq so the client's reconnect resumes after the last one (as projects.events).
 */
const notificationEvents = protectedProcedure.input(NotificationEventsInput).subscription(async ({ ctx, input, signal }) => {
  const rows = await ctx.services.notifications.follow(ctx.userId, {
    lastEventId: input?.lastEventId ?? null,
    ...(signal ? { signal } : {}),
    transport: 'trpc',
    cutOff: () => ctx.dropConnection(),
  });
  return (async function* () {
    try {
      for await (const row of rows) yield tracked(String(row.position), row.entry);
    } catch (error) {
      throw toTRPCError(error);
    }
  })();
});

export const notificationsRouter = router({
  ...pagedList('list', {
    meta: {
      openapi: {
        method: 'GET',
        path: '/notifications',
        tags,
        summary: 'Your notifications',
        description: 'Newest first, paged by cursor; `unread=true` for the unread ones. Only of projects you are a member of. Kinds: docs/events.md.',
      },
    },
    input: ListNotificationsInput.optional(),
    item: NotificationSchema,
    list: (ctx, input) => ctx.services.notifications.list(ctx.userId, input ?? {}),
  }),

  unreadCount: protectedProcedure
    .meta({ openapi: { method: 'GET', path: '/notifications/unread-count', tags, summary: 'How many are unread', description: 'Your unread notifications (of projects you are a member of).' } })
    .input(z.object({}).strict().optional())
    .output(UnreadCountSchema)
    .query(({ ctx }) => ctx.services.notifications.unreadCount(ctx.userId)),

  markRead: protectedProcedure
    .meta({ openapi: { method: 'POST', path: '/notifications/{id}/read', tags, summary: 'Mark one read', description: 'Returns the notification; marking it again keeps its readAt. Another user\'s notification is a 404. Send no body.' } })
    .input(NotificationPathInput)
    .output(NotificationSchema)
    .mutation(({ ctx, input }) => ctx.services.notifications.markRead(ctx.userId, input.id)),

  markAllRead: protectedProcedure
    .meta({ openapi: { method: 'POST', path: '/notifications/read-all', tags, summary: 'Mark all read', description: 'Marks every unread notification read and says how many there were. Send no body (or an empty JSON object).' } })
    .input(noBody)
    .output(MarkAllReadSchema)
    .mutation(({ ctx }) => ctx.services.notifications.markAllRead(ctx.userId)),

  events: notificationEvents,
});

const watchNote = "A task's creator, assignee, commenters and mentioned members watch it automatically; an explicit opt-out holds until you subscribe again or are mentioned or assigned.";

export const watchingRouter = router({
  get: protectedProcedure
    .meta({ openapi: { method: 'GET', path: '/tasks/{id}/subscription', tags, summary: 'Do you watch this task?', description: `Watchers hear of its comments and status changes. ${watchNote}` } })
    .input(PathIdInput)
    .output(SubscriptionSchema)
    .query(({ ctx, input }) => ctx.services.notifications.subscription(ctx.userId, input.id)),

  subscribe: protectedProcedure
    .meta({ openapi: { method: 'PUT', path: '/tasks/{id}/subscription', tags, summary: 'Watch a task', description: `Any member. ${watchNote} Send no body.` } })
    .input(PathIdInput)
    .output(SubscriptionSchema)
    .mutation(({ ctx, input }) => ctx.services.notifications.setSubscription(ctx.userId, input.id, true)),

  unsubscribe: protectedProcedure
    .meta({ openapi: { method: 'DELETE', path: '/tasks/{id}/subscription', tags, summary: 'Stop watching a task', description: `Any member. ${watchNote}` } })
    .input(PathIdInput)
    .output(SubscriptionSchema)
    .mutation(({ ctx, input }) => ctx.services.notifications.setSubscription(ctx.userId, input.id, false)),
});
