import type { Db } from '@tasklane/db';
import type { Activity, Member } from '@tasklane/schemas';
import type { Gauge } from 'prom-client';
import { requireProjectAccess } from '../policy/access';
import type { FeedRow } from '../../platform/feed-hub';
import { followFeed, type SlowConsumerError, type StreamTransport } from '../../platform/feed-follow';
import type { ActivityHub } from './hub';
import { shownTo, toActivity } from './service';
import { listAfter } from './store';

export { SlowConsumerError, type StreamTransport } from '../../platform/feed-follow';

/** A stream ends when its reader leaves the project: removed, or the project deleted. */
function endsStream(entry: Activity, userId: string): 'before' | 'after' | undefined {
  if (entry.type === 'member.removed' && (entry.resource as Member).userId === userId) return 'before';
  if (entry.type === 'project.deleted') return 'after';
  return undefined;
}

/** `maxQueued`: live entries a stream may have waiting before its client counts as too slow. */
export function createEventsService(db: Db, hub: ActivityHub, openStreams: Gauge<'transport'>, maxQueued: number) {
  /**
   * A project's events for one member (lib/feed-follow.ts): those after `lastEventId` from the
   * history, then live ones, each once and in id order, until the member leaves or the project goes.
   */
  async function follow(
    userId: string,
    projectId: string,
    options: { lastEventId?: string | null; signal?: AbortSignal; transport: StreamTransport; cutOff: (error: SlowConsumerError) => void },
  ): Promise<AsyncGenerator<Activity>> {
    // The reader's role when the stream opens decides what it shows (shownTo) until it reconnects.
    const shown = shownTo(await requireProjectAccess(db, projectId, userId));
    const rows = await followFeed(hub, projectId, { openStreams, maxQueued }, {
      ...options,
      lastPosition: options.lastEventId ? Number(options.lastEventId) : null,
      replay: async (afterId, limit) => (await listAfter(db, projectId, afterId, limit)).map((row): FeedRow<Activity> => ({ position: row.id, entry: toActivity(row) })),
      ends: (entry) => endsStream(entry, userId),
    });
    return (async function* () {
      for await (const row of rows) yield shown(row.entry);
    })();
  }

  return { follow };
}

export type EventsService = ReturnType<typeof createEventsService>;
