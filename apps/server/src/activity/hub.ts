import type { Database, Db } from '@tasklane/db';
import type { Activity } from '@tasklane/schemas';
import { toActivity } from './service';
import { ACTIVITY_CHANNEL, latestId, listAfter, parseAnnouncement } from './store';

const FETCH_BATCH = 200;

type Listener = (entry: Activity) => void;

interface Followed {
  listeners: Set<Listener>;
  /** The newest id handed to the listeners. */
  lastId: number;
  ready: Promise<void>;
  fetching: boolean;
  fetchAgain: boolean;
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
 * (or PGlite) announces it with NOTIFY on commit; each instance then reads the new rows of that
 * project once and hands them to all its streams of it. The notification only says "look", so a
 * lost one costs latency, not events: every `safetyPollMs` each followed project is read again,
 * as it is whenever the LISTEN connection is re-established.
 */
export async function startActivityHub(
  database: Database,
  db: Db,
  onError: (error: unknown) => void,
  safetyPollMs: number,
): Promise<ActivityHub> {
  const followed = new Map<string, Followed>();
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

  const stopListening = await database.listen(
    ACTIVITY_CHANNEL,
    (payload) => {
      const announced = parseAnnouncement(payload);
      if (!announced) return;
      const project = followed.get(announced.projectId);
      if (project && announced.id > project.lastId) void fetchNew(announced.projectId, project);
      if (announced.deliveries > 0) for (const listener of deliveryListeners) listener();
    },
    fetchAll,
  );
  const safetyPoll = setInterval(fetchAll, safetyPollMs);
  safetyPoll.unref();

  return {
    async subscribe(projectId, listener) {
      let project = followed.get(projectId);
      if (!project) {
        const created: Followed = { listeners: new Set(), lastId: Number.MAX_SAFE_INTEGER, ready: Promise.resolve(), fetching: false, fetchAgain: false };
        created.ready = latestId(db, projectId).then(
          (id) => {
            created.lastId = id;
          },
          (error: unknown) => {
            followed.delete(projectId);
            throw error;
          },
        );
        followed.set(projectId, created);
        project = created;
      }
      project.listeners.add(listener);
      await project.ready;
      const current = project;
      return () => {
        current.listeners.delete(listener);
        if (current.listeners.size === 0 && followed.get(projectId) === current) followed.delete(projectId);
      };
    },
    onDeliveriesQueued(listener) {
      deliveryListeners.push(listener);
    },
    async close() {
      clearInterval(safetyPoll);
      followed.clear();
      await stopListening();
    },
  };
}
