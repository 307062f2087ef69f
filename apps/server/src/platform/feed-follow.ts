import type { Gauge } from 'prom-client';
import { DomainError } from './errors';
import type { FeedHub, FeedRow } from './feed-hub';

const REPLAY_BATCH = 200;

export type StreamTransport = 'sse' | 'trpc';

export class SlowConsumerError extends DomainError {
  constructor(maxQueued: number) {
    super('TOO_MANY_REQUESTS', `The stream fell more than ${maxQueued} events behind and was closed; reconnect with Last-Event-ID to resume`, 'SLOW_CONSUMER');
  }
}

export interface FollowOptions<Entry> {
  /** Resume after this position: replay what came after it first. */
  lastPosition?: number | null;
  signal?: AbortSignal;
  transport: StreamTransport;
  /** Called at once when the stream's queue overflows (see followFeed). */
  cutOff: (error: SlowConsumerError) => void;
  /** The feed's entries after a position, oldest first (the history the replay reads). */
  replay: (position: number, limit: number) => Promise<FeedRow<Entry>[]>;
  /** Whether an entry ends the stream, sent first ('after') or not ('before'). */
  ends?: (entry: Entry) => 'before' | 'after' | undefined;
}

/**
 * A feed's entries for one reader: first those after `lastPosition` from the history, then live
 * ones as they commit, each exactly once and in position order. Live entries are queued from before
 * the replay starts, so nothing falls between the two; the queue holds at most `maxQueued`.
 *
 * When it overflows, `cutOff` is called at once. A transport that waits for its socket to drain
 * does not pull from a client that stopped reading, so a SlowConsumerError thrown at the next pull
 * might never come: the transport must end the connection itself (the generator then finishes
 * when it is returned, and throws SlowConsumerError if it is pulled instead).
 *
 * Resolves once the stream is subscribed, so a transport can tell its client "connected" only then:
 * an entry committed after that is in the stream. Generators run nothing until first pulled, so
 * a lazy one would leave a client that was told it is connected to miss the changes it makes
 * next. The subscription is released when the generator ends or when `signal` aborts, whichever
 * comes first, so a stream whose client left before it was ever pulled holds nothing either.
 */
export async function followFeed<Entry>(
  hub: FeedHub<Entry>,
  key: string,
  limits: { openStreams: Gauge<'transport'>; maxQueued: number },
  options: FollowOptions<Entry>,
): Promise<AsyncGenerator<FeedRow<Entry>>> {
  const { maxQueued, openStreams } = limits;
  const queue: FeedRow<Entry>[] = [];
  let overflowed = false;
  let wake: (() => void) | undefined;
  const unsubscribe = await hub.subscribe(key, (entry, position) => {
    if (overflowed) return;
    if (queue.length < maxQueued) queue.push({ entry, position });
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

  async function* stream(): AsyncGenerator<FeedRow<Entry>> {
    try {
      let last = options.lastPosition ?? 0;
      if (options.lastPosition) {
        let rows;
        do {
          rows = await options.replay(last, REPLAY_BATCH);
          for (const row of rows) {
            last = row.position;
            const end = options.ends?.(row.entry);
            if (end !== 'before') yield row;
            if (end) return;
          }
        } while (rows.length === REPLAY_BATCH && !options.signal?.aborted);
      }
      for (;;) {
        if (options.signal?.aborted) return;
        if (overflowed) throw new SlowConsumerError(maxQueued);
        const row = queue.shift();
        if (!row) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        if (row.position <= last) continue;
        last = row.position;
        const end = options.ends?.(row.entry);
        if (end !== 'before') yield row;
        if (end) return;
      }
    } finally {
      release();
    }
  }
}
