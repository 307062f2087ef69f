import type { Database, Db } from '@tasklane/db';
import type { Activity } from '@tasklane/schemas';
import { toActivity } from './service';
import { DELIVERIES_CHANNEL, projectChannel } from '../recorded-write';
import { latestId, listAfter } from './store';

const FETCH_BATCH = 200;

type Listener = (entry: Activity) => void;

interface Followed {
  listeners: Set<Listener>;
  /** The newest id handed to the listeners. */
  lastId: number;
  ready: Promise<void>;
  fetching: boolean;
  fetchAgain: boolean;
  /** Stops listening to the project's channel (set once listening). */
  unlisten?: () => Promise<void>;
}

export interface ActivityHub {
  /** Calls `listener` with each new entry of the project, in id order, until the returned function is called. */
  subscribe(projectId: string, listener: Listener): Promise<() => void>;
  /** Called whenever a change of any project, on any instance, queued webhook deliveries (the senders wake up on it). */
  onDeliveriesQueued(listener: () => void): void;
  close(): Promise<void>;
}

/**
 * Fans new activity out to this instance's streams. Whichever instance wrote a change, PostgreSQL
 * (or PGlite) announces it with NOTIFY on commit on the project's own channel, which an instance
 * LISTENs to while it has a stream of that project; it then reads the new rows of that project
 * once and hands them to all its streams of it. The notification only says "look", so a lost one
 * costs latency, not events: every `safetyPollMs` each followed project is read again, as it is
 * whenever the LISTEN connection is re-established.
 */
export async function startActivityHub(
  database: Database,
  db: Db,
  onError: (error: unknown) => void,
  safetyPollMs: number,
): Promise<ActivityHub> {
  const followed = new Map<string, Followed>();
  /** Projects whose channel is being unlistened, as their last stream ended. */
  const unlistening = new Map<string, Promise<void>>();
  const deliveryListeners: (() => void)[] = [];

  async function fetchNew(projectId: string, project: Followed): Promise<void> {
    if (project.fetching) {
      project.fetchAgain = true;
      return;
    }
    project.fetching = true;
    try {
      await project.ready;
      do {
        project.fetchAgain = false;
        let rows;
        do {
          rows = await listAfter(db, projectId, project.lastId, FETCH_BATCH);
          for (const row of rows) {
            project.lastId = row.id;
            const entry = toActivity(row);
            for (const listener of project.listeners) listener(entry);
          }
        } while (rows.length === FETCH_BATCH);
      } while (project.fetchAgain && project.listeners.size > 0);
    } catch (error) {
      onError(error);
    } finally {
      project.fetching = false;
    }
  }

  const fetchAll = () => {
    for (const [projectId, project] of followed) void fetchNew(projectId, project);
  };

  const wakeSenders = () => {
    for (const listener of deliveryListeners) listener();
  };
  // Also on every (re)established listen: deliveries queued while it was down were announced to nobody.
  const stopListening = await database.listen(DELIVERIES_CHANNEL, wakeSenders, wakeSenders);
  let closed = false;
  const safetyPoll = setInterval(fetchAll, safetyPollMs);
  safetyPoll.unref();

  return {
    async subscribe(projectId, listener) {
      if (closed) throw new Error('The activity hub is closed');
      let project = followed.get(projectId);
      if (!project) {
        const created: Followed = { listeners: new Set(), lastId: Number.MAX_SAFE_INTEGER, ready: Promise.resolve(), fetching: false, fetchAgain: false };
        // Only while this is the project's entry: a listen re-established after a reconnect can
        // outlive its unlisten, and must then do nothing.
        const isCurrent = () => followed.get(projectId) === created;
        let started = false;
        // Listen first, then read where the project stands: a change that commits in between is
        // announced, and read after that point. Each re-established listen reads what was missed.
        created.ready = (async () => {
          // A listen of the channel racing its own unlisten could be dropped by it (PGlite): wait.
          await unlistening.get(projectId);
          created.unlisten = await database.listen(
            projectChannel(projectId),
            (payload) => {
              if (isCurrent() && Number(payload) > created.lastId) void fetchNew(projectId, created);
            },
            () => {
              if (started && isCurrent()) void fetchNew(projectId, created);
            },
          );
          created.lastId = await latestId(db, projectId);
          started = true;
        })().catch(async (error: unknown) => {
          if (isCurrent()) followed.delete(projectId);
          await created.unlisten?.().catch(onError);
          throw error;
        });
        followed.set(projectId, created);
        project = created;
      }
      project.listeners.add(listener);
      await project.ready;
      const current = project;
      return () => {
        current.listeners.delete(listener);
        if (current.listeners.size > 0 || followed.get(projectId) !== current) return;
        followed.delete(projectId);
        const stopped: Promise<void> = (current.unlisten?.() ?? Promise.resolve()).catch(onError).finally(() => {
          if (unlistening.get(projectId) === stopped) unlistening.delete(projectId);
        });
        unlistening.set(projectId, stopped);
      };
    },
    onDeliveriesQueued(listener) {
      deliveryListeners.push(listener);
    },
    async close() {
      closed = true;
      clearInterval(safetyPoll);
      const projects = [...followed.values()];
      followed.clear();
      await Promise.all([
        ...projects.map((project) => project.ready.then(() => project.unlisten?.()).catch(onError)),
        ...unlistening.values(),
      ]);
      await stopListening();
    },
  };
}
