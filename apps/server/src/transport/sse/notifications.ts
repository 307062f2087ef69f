import type { ImportProgressEvent, Notification } from '@tasklane/schemas';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authorizeStream, openStreamsOf, serveStream } from './activity';
import type { AuthService } from '../../resources/auth/service';
import type { FeedRow } from '../../platform/feed-hub';
import { runWithGrant } from '../../resources/policy/policy';
import type { NotificationsService } from '../../resources/notifications/service';
import type { ImportProgressHub } from '../../resources/imports/progress';

type StreamEntry = FeedRow<Notification> | { progress: ImportProgressEvent };

/**
 * One SSE event: a notification's id is its seq (for Last-Event-ID), its event its kind; an
 * import's progress is `import.progress`, with no id (of the moment: never replayed).
 */
const formatEntry = (entry: StreamEntry) =>
  'progress' in entry
    ? `event: import.progress\ndata: ${JSON.stringify(entry.progress)}\n\n`
    : `id: ${entry.position}\nevent: ${entry.entry.kind}\ndata: ${JSON.stringify(entry.entry)}\n\n`;

/**
 * The notifications, and between them the progress of the caller's imports as it is told: each
 * entry of either as soon as it comes, in the order they come. Ends with the notifications.
 */
async function* withImportProgress(notifications: AsyncGenerator<FeedRow<Notification>>, listen: (push: (event: ImportProgressEvent) => void) => () => void): AsyncGenerator<StreamEntry> {
  const told: ImportProgressEvent[] = [];
  let wake: (() => void) | undefined;
  const unlisten = listen((event) => {
    told.push(event);
    wake?.();
  });
  try {
    let next = notifications.next();
    for (;;) {
      while (told.length > 0) yield { progress: told.shift()! };
      const woken = new Promise<'woken'>((resolve) => {
        wake = () => resolve('woken');
      });
      const result = await Promise.race([next, woken]);
      wake = undefined;
      if (result === 'woken') continue;
      if (result.done) return;
      yield result.value;
      next = notifications.next();
    }
  } finally {
    unlisten();
  }
}

/**
 * `GET /api/v1/notifications/events`: the caller's notifications live, with the project streams'
 * resumability (Last-Event-ID), heartbeat and slow-consumer limit (activity/sse.ts).
 */
export function registerNotificationStreamRoute(app: FastifyInstance, options: { auth: AuthService; notifications: NotificationsService; importProgress: ImportProgressHub; heartbeatMs: number }): void {
  const open = openStreamsOf(app);
  app.get('/api/v1/notifications/events', async (request: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
    const caller = await authorizeStream(request, reply, options.auth, 'notifications.events');
    if (!caller) return;
    const { userId, grant, lastEventId } = caller;
    await serveStream(request, reply, open, options.heartbeatMs, formatEntry, async (signal, cutOff) =>
      withImportProgress(
        await runWithGrant(grant, () => options.notifications.follow(userId, { lastEventId: lastEventId ?? null, signal, transport: 'sse', cutOff })),
        (push) => options.importProgress.subscribe(userId, push),
      ),
    );
  });
}
