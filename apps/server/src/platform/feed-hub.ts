import type { Database } from '@tasklane/db';

const FETCH_BATCH = 200;

/** One entry of a feed with its position: positions increase in commit order within a feed. */
export interface FeedRow<Entry> {
  position: number;
  entry: Entry;
}

/** Where a kind of feed (a project's activity, a user's notifications) lives and how it is announced. */
export interface FeedSource<Entry> {
  /** The NOTIFY channel announcing a new entry of the feed `key` (the payload is its position). */
  channel(key: string): string;
  /** The newest position of the feed (0 when empty). */
  latest(key: string): Promise<number>;
  /** Entries after a position, oldest first. */
  after(key: string, position: number, limit: number): Promise<FeedRow<Entry>[]>;
}

type Listener<Entry> = (entry: Entry, position: number) => void;

interface Followed<Entry> {
  listeners: Set<Listener<Entry>>;
  /** The newest position handed to the listeners. */
  lastPosition: number;
  ready: Promise<void>;
  fetching: boolean;
  fetchAgain: boolean;
  /** Stops listening to the feed's channel (set once listening). */
  unlisten?: () => Promise<void>;
}

export interface FeedHub<Entry> {
  /** Calls `listener` with each new entry of the feed, in position order, until the returned function is called. */
  subscribe(key: string, listener: Listener<Entry>): Promise<() => void>;
  close(): Promise<void>;
}

/**
 * Fans new entries of feeds out to this instance's streams. Whichever instance wrote an entry,
 * PostgreSQL (or PGlite) announces it with NOTIFY on commit on the feed's own channel, which an
 * instance LISTENs to while it has a stream of that feed; it then reads the new rows of the feed
 * once and hands them to all its streams of it. The notification only says "look", so a lost one
 * costs latency, not entries: every `safetyPollMs` each followed feed is read again, as it is
 * whenever the LISTEN connection is re-established.
 */
export function startFeedHub<Entry>(database: Pick<Database, 'listen'>, source: FeedSource<Entry>, onError: (error: unknown) => void, safetyPollMs: number): FeedHub<Entry> {
  const followed = new Map<string, Followed<Entry>>();
  /** Feeds whose channel is being unlistened, as their last stream ended. */
  const unlistening = new Map<string, Promise<void>>();

  async function fetchNew(key: string, feed: Followed<Entry>): Promise<void> {
    if (feed.fetching) {
      feed.fetchAgain = true;
      return;
    }
    feed.fetching = true;
    try {
      await feed.ready;
      do {
        feed.fetchAgain = false;
        let rows;
        do {
          rows = await source.after(key, feed.lastPosition, FETCH_BATCH);
          for (const row of rows) {
            feed.lastPosition = row.position;
            for (const listener of feed.listeners) listener(row.entry, row.position);
          }
        } while (rows.length === FETCH_BATCH);
      } while (feed.fetchAgain && feed.listeners.size > 0);
    } catch (error) {
      onError(error);
    } finally {
      feed.fetching = false;
    }
  }

  let closed = false;
  const safetyPoll = setInterval(() => {
    for (const [key, feed] of followed) void fetchNew(key, feed);
  }, safetyPollMs);
  safetyPoll.unref();

  return {
    async subscribe(key, listener) {
      if (closed) throw new Error('The hub is closed');
      let feed = followed.get(key);
      if (!feed) {
        const created: Followed<Entry> = { listeners: new Set(), lastPosition: Number.MAX_SAFE_INTEGER, ready: Promise.resolve(), fetching: false, fetchAgain: false };
        // Only while this is the feed's entry: a listen re-established after a reconnect can
        // outlive its unlisten, and must then do nothing.
        const isCurrent = () => followed.get(key) === created;
        let started = false;
        // Listen first, then read where the feed stands: an entry that commits in between is
        // announced, and read after that point. Each re-established listen reads what was missed.
        created.ready = (async () => {
          // A listen of the channel racing its own unlisten could be dropped by it (PGlite): wait.
          await unlistening.get(key);
          created.unlisten = await database.listen(
            source.channel(key),
            (payload) => {
              if (isCurrent() && Number(payload) > created.lastPosition) void fetchNew(key, created);
            },
            () => {
              if (started && isCurrent()) void fetchNew(key, created);
            },
          );
          created.lastPosition = await source.latest(key);
          started = true;
        })().catch(async (error: unknown) => {
          if (isCurrent()) followed.delete(key);
          await created.unlisten?.().catch(onError);
          throw error;
        });
        followed.set(key, created);
        feed = created;
      }
      feed.listeners.add(listener);
      await feed.ready;
      const current = feed;
      return () => {
        current.listeners.delete(listener);
        if (current.listeners.size > 0 || followed.get(key) !== current) return;
        followed.delete(key);
        const stopped: Promise<void> = (current.unlisten?.() ?? Promise.resolve()).catch(onError).finally(() => {
          if (unlistening.get(key) === stopped) unlistening.delete(key);
        });
        unlistening.set(key, stopped);
      };
    },
    async close() {
      closed = true;
      clearInterval(safetyPoll);
      const feeds = [...followed.values()];
      followed.clear();
      await Promise.all([...feeds.map((feed) => feed.ready.then(() => feed.unlisten?.()).catch(onError)), ...unlistening.values()]);
    },
  };
}
