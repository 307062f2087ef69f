import type { Notification } from '@tasklane/schemas';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authorizeStream, openStreamsOf, serveStream } from './activity';
import type { AuthService } from '../../resources/auth/service';
import type { FeedRow } from '../../platform/feed-hub';
import { runWithGrant } from '../../resources/policy/policy';
import type { NotificationsService } from '../../resources/notifications/service';

/** One SSE event: the id is the notification's seq (for Last-Event-ID), the event its kind. */
const formatNotification = (row: FeedRow<Notification>) => `id: ${row.position}\nevent: ${row.entry.kind}\ndata: ${JSON.stringify(row.entry)}\n\n`;

/**
 * `GET /api/v1/notifications/events`: the caller's notifications live, with the project streams'
 * resumability (Last-Event-ID), heartbeat and slow-consumer limit (activity/sse.ts).
 */
export function registerNotificationStreamRoute(app: FastifyInstance, options: { auth: AuthService; notifications: NotificationsService; heartbeatMs: number }): void {
  const open = openStreamsOf(app);
  app.get('/api/v1/notifications/events', async (request: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
    const caller = await authorizeStream(request, reply, options.auth, 'notifications.events');
    if (!caller) return;
    const { userId, grant, lastEventId } = caller;
    await serveStream(request, reply, open, options.heartbeatMs, formatNotification, (signal, cutOff) =>
      runWithGrant(grant, () => options.notifications.follow(userId, { lastEventId: lastEventId ?? null, signal, transport: 'sse', cutOff })),
    );
  });
}
