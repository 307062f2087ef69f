import type { Database, Db } from '@tasklane/db';
import type { Activity } from '@tasklane/schemas';
import { type FeedHub, startFeedHub } from '../../platform/feed-hub';
import { projectChannel } from '../../events/record';
import { DELIVERIES_CHANNEL } from '../../events/processors/webhooks';
import { toActivity } from './service';
import { latestId, listAfter } from './store';

export interface ActivityHub extends FeedHub<Activity> {
  /** Called whenever a change of any project, on any instance, queued webhook deliveries (the senders wake up on it). */
  onDeliveriesQueued(listener: () => void): void;
}

/**
 * Fans new activity out to this instance's streams (a feed per project: lib/feed-hub.ts, on the
 * project's channel, projectChannel) and wakes the webhook senders whenever any instance queued
 * deliveries (DELIVERIES_CHANNEL).
 */
export async function startActivityHub(
  database: Database,
  db: Db,
  onError: (error: unknown) => void,
  safetyPollMs: number,
): Promise<ActivityHub> {
  const feeds = startFeedHub<Activity>(
    database,
    {
      channel: projectChannel,
      latest: (projectId) => latestId(db, projectId),
      after: async (projectId, afterId, limit) => (await listAfter(db, projectId, afterId, limit)).map((row) => ({ position: row.id, entry: toActivity(row) })),
    },
    onError,
    safetyPollMs,
  );
  const deliveryListeners: (() => void)[] = [];
  const wakeSenders = () => {
    for (const listener of deliveryListeners) listener();
  };
  // Also on every (re)established listen: deliveries queued while it was down were announced to nobody.
  const stopListening = await database.listen(DELIVERIES_CHANNEL, wakeSenders, wakeSenders);
  return {
    subscribe: feeds.subscribe,
    onDeliveriesQueued(listener) {
      deliveryListeners.push(listener);
    },
    async close() {
      await feeds.close();
      await stopListening();
    },
  };
}
