import type { Db } from '@tasklane/db';
import type { Activity, Member } from '@tasklane/schemas';
import type { Gauge } from 'prom-client';
import { requireProjectAccess } from '../access';
import { ApiError } from '../trpc/errors';
import type { ActivityHub } from './hub';
import { toActivity } from './service';
import { listAfter } from './store';

const REPLAY_BATCH = 200;
/** Entries a stream may have waiting before its client counts as too slow and is cut off. */
export const MAX_QUEUED_EVENTS = 1000;

export type StreamTransport = 'sse' | 'trpc';

/** A stream ends when its reader leaves the project: removed, or the project deleted. */
function endsStream(entry: Activity, userId: string): 'before' | 'after' | undefined {
  if (entry.type === 'member.removed' && (entry.resource as Member).userId === userId) return 'before';
  if (entry.type === 'project.deleted') return 'after';
  return undefined;
}

export class SlowConsumerError extends ApiError {
  constructor() {
    super('TOO_MANY_REQUESTS', `The stream fell more than ${MAX_QUEUED_EVENTS} events behind and was closed; reconnect with Last-Event-ID to resume`, 'SLOW_CONSUMER');
  }
}

export function createEventsService(db: Db, hub: ActivityHub, openStreams: Gauge<'transport'>) {
  /**
   * A project's events for one member: first those after `lastEventId` from the history, then live
   * ones as they commit, each exactly once and in id order. Live entries are queued from before the
   * replay starts, so nothing falls between the two; the queue is bounded (SlowConsumerError).
   */
  async function* follow(
    userId: string,
    projectId: string,
    options: { lastEventId?: string | null; signal?: AbortSignal; transport: StreamTransport },
  ): AsyncGenerator<Activity> {
    await requireProjectAccess(db, projectId, userId);
    const queue: Activity[] = [];
    let overflowed = false;
    let wake: (() => void) | undefined;
    const unsubscribe = await hub.subscribe(projectId, (entry) => {
      if (queue.length >= MAX_QUEUED_EVENTS) overflowed = true;
      else queue.push(entry);
      wake?.();
    });
    const onAbort = () => wake?.();
    options.signal?.addEventListener('abort', onAbort);
    openStreams.inc({ transport: options.transport });
    try {
      let lastId = options.lastEventId ? Number(options.lastEventId) : 0;
      if (options.lastEventId) {
        let rows;
        do {
          rows = await listAfter(db, projectId, lastId, REPLAY_BATCH);
          for (const row of rows) {
            const entry = toActivity(row);
            lastId = row.id;
            const end = endsStream(entry, userId);
            if (end !== 'before') yield entry;
            if (end) return;
          }
        } while (rows.length === REPLAY_BATCH && !options.signal?.aborted);
      }
      for (;;) {
        if (options.signal?.aborted) return;
        if (overflowed) throw new SlowConsumerError();
        const entry = queue.shift();
        if (!entry) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        if (Number(entry.id) <= lastId) continue;
        lastId = Number(entry.id);
        const end = endsStream(entry, userId);
        if (end !== 'before') yield entry;
        if (end) return;
      }
    } finally {
      openStreams.dec({ transport: options.transport });
      options.signal?.removeEventListener('abort', onAbort);
      unsubscribe();
    }
  }

  return { follow };
}

export type EventsService = ReturnType<typeof createEventsService>;
