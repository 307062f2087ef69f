import type { Db } from '@tasklane/db';
import type { Activity, Member } from '@tasklane/schemas';
import type { Gauge } from 'prom-client';
import { requireProjectAccess } from '../access';
import { DomainError } from '../errors';
import type { ActivityHub } from './hub';
import { toActivity } from './service';
import { listAfter } from './store';

const REPLAY_BATCH = 200;

export type StreamTransport = 'sse' | 'trpc';

/** A stream ends when its reader leaves the project: removed, or the project deleted. */
function endsStream(entry: Activity, userId: string): 'before' | 'after' | undefined {
  if (entry.type === 'member.removed' && (entry.resource as Member).userId === userId) return 'before';
  if (entry.type === 'project.deleted') return 'after';
  return undefined;
}

export class SlowConsumerError extends DomainError {
  constructor(maxQueued: number) {
    super('TOO_MANY_REQUESTS', `The stream fell more than ${maxQueued} events behind and was closed; reconnect with Last-Event-ID to resume`, 'SLOW_CONSUMER');
  }
}

/** `maxQueued`: live entries a stream may have waiting before its client counts as too slow. */
export function createEventsService(db: Db, hub: ActivityHub, openStreams: Gauge<'transport'>, maxQueued: number) {
  /**
   * A project's events for one member: first those after `lastEventId` from the history, then live
   * ones as they commit, each exactly once and in id order. Live entries are queued from before the
   * replay starts, so nothing falls between the two; the queue is bounded.
   *
   * When it overflows, `cutOff` is called at once. A transport that waits for its socket to drain
   * does not pull from a client that stopped reading, so a SlowConsumerError thrown at the next pull
   * might never come: the transport must end the connection itself (the generator then finishes
   * when it is returned, and throws SlowConsumerError if it is pulled instead).
   *
   * Resolves once the stream is subscribed, so a transport can tell its client "connected" only then:
   * a change committed after that is in the stream. Generators run nothing until first pulled, so
   * a lazy one would leave a client that was told it is connected to miss the changes it makes
   * next. The subscription is released when the generator ends or when `signal` aborts, whichever
   * comes first, so a stream whose client left before it was ever pulled holds nothing either.
   */
  async function follow(
    userId: string,
    projectId: string,
    options: { lastEventId?: string | null; signal?: AbortSignal; transport: StreamTransport; cutOff: (error: SlowConsumerError) => void },
  ): Promise<AsyncGenerator<Activity>> {
    await requireProjectAccess(db, projectId, userId);
    const queue: Activity[] = [];
    let overflowed = false;
    let wake: (() => void) | undefined;
    const unsubscribe = await hub.subscribe(projectId, (entry) => {
      if (overflowed) return;
      if (queue.length < maxQueued) queue.push(entry);
      else {
        overflowed = true;
        // Nothing queued will be sent any more; free it now rather than when the stream is returned.
        queue.length = 0;
        options.cutOff(new SlowConsumerError(maxQueued));
      }
      wake?.();
    });
    openStreams.inc({ transport: options.transport });
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      openStreams.dec({ transport: options.transport });
      options.signal?.removeEventListener('abort', onAbort);
      unsubscribe();
    };
    const onAbort = () => {
      wake?.();
      release();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) release();
    return stream();

    async function* stream(): AsyncGenerator<Activity> {
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
          if (overflowed) throw new SlowConsumerError(maxQueued);
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
        release();
      }
    }
  }

  return { follow };
}

export type EventsService = ReturnType<typeof createEventsService>;
