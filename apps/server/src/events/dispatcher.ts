import { activity, type Database, type Db } from '@tasklane/db';
import type { Activity } from '@tasklane/schemas';
import { and, asc, inArray, isNull, sql } from 'drizzle-orm';
import { startBackgroundWorker } from '../platform/background-worker';
import { findCode, isDatabaseUnavailable } from '../platform/db-errors';
import { DISPATCH_LOCK_CLASS } from '../platform/locks';
import { rowsOf } from '../platform/sql';
import { writeNotifications } from './processors/notifications';
import { queueDeliveries } from './processors/webhooks';
import { EVENTS_CHANNEL, toActivity } from './record';

/** Events dispatched per transaction: enough to amortise its round trips, few enough to commit soon. */
const BATCH = 200;
/** How often a request waiting for events that another instance is dispatching looks whether they are done. */
const RECHECK_MS = 10;
/** Ids of the events this instance dispatched lately: their commit's announcement, arriving after, needs no run. */
const RECENT_IDS = 10_000;

export interface DispatcherOptions {
  /** False: this instance dispatches nothing (another does); it still waits for others' dispatch (settle). */
  enabled: boolean;
  /** The safety poll: a lost NOTIFY costs at most this much latency. */
  pollMs: number;
  /** How long a request waits for its events' derived work before it answers anyway. */
  settleMs: number;
  onError: (error: unknown) => void;
  /** Each dispatched event's lag, from its commit (about its time) to its dispatch's commit, in seconds. */
  onDispatched?: (lagSeconds: number) => void;
  /**
   * Work on each batch after its transaction commits (the files of deleted attachments): outside
   * the batch's transaction, so it holds none of its locks and a slow store cannot lengthen it;
   * before the batch's waiters are told (settle), so a request sees it done. A failure is reported
   * (onError) and not retried here: that work must heal by itself (the files' sweep).
   */
  afterBatch?: (events: Activity[]) => Promise<void>;
}

export interface Dispatcher {
  /** Resolves once every event of `eventIds` that committed is dispatched (or after settleMs): the request reads its writes' derived work. */
  settle(eventIds: readonly number[]): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One batch, in one transaction: the visible events not yet dispatched, oldest first, each one's
 * webhook deliveries and notifications written, then marked dispatched, all committing together —
 * so a crash at any point loses nothing and doubles nothing. A project's events commit in id order
 * (recordEvent's lock), so a visible event means every earlier one of its project is visible too,
 * and id order is each project's order; one dispatcher at a time across instances (the advisory
 * lock, tried: `busy` when another instance holds it) keeps that order between batches.
 *
 * With `skipFailing` (after the batch failed as a whole), each event's work is written in a
 * savepoint of its own, and an event whose work fails for a reason that is no passing fault is
 * reported (`skipFailing`) and marked dispatched without it, so that one such event cannot hold up
 * every later one for good.
 */
async function dispatchBatch(db: Db, skipFailing?: (event: Activity, error: unknown) => void): Promise<{ busy: boolean; events: Activity[] }> {
  return db.transaction(async (tx) => {
    const [gate] = rowsOf<{ ok: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${DISPATCH_LOCK_CLASS}, 0) as ok`));
    if (gate?.ok !== true) return { busy: true, events: [] };
    const rows = await tx.select().from(activity).where(isNull(activity.dispatchedAt)).orderBy(asc(activity.id)).limit(BATCH);
    const events = rows.map(toActivity);
    if (!skipFailing) {
      // The batch's deliveries in one statement; notifications event by event (writeNotifications).
      await queueDeliveries(tx, events);
      for (const event of events) await writeNotifications(tx, event);
    } else {
      for (const event of events) {
        await tx
          .transaction(async (savepoint) => {
            await queueDeliveries(savepoint, [event]);
            await writeNotifications(savepoint, event);
          })
          .catch((error: unknown) => {
            if (isPassingFault(error)) throw error;
            skipFailing(event, error);
          });
      }
    }
    // Marked last: the events' rows are locked only after the project rows the work above locks
    // (a project's deletion, holding its row, touches its events: locking them first deadlocked).
    if (rows.length > 0) {
      await tx
        .update(activity)
        .set({ dispatchedAt: new Date() })
        .where(inArray(activity.id, rows.map((row) => row.id)));
    }
    return { busy: false, events };
  });
}

/** Faults worth trying the same work again for: the database unreachable, a deadlock or serialization failure (SQLSTATE class 40). */
const isPassingFault = (error: unknown) => isDatabaseUnavailable(error) || findCode(error, (code) => code.startsWith('40')) !== undefined;

interface Waiter {
  pending: Set<number>;
  done: () => void;
}

/**
 * The instance's event dispatcher: woken by every event's commit (EVENTS_CHANNEL, from any
 * instance) and every `pollMs`, it dispatches batches (dispatchBatch) until none is left. One loop
 * per instance: requests waiting for their events (settle) share it, and only look themselves
 * (every RECHECK_MS, one query for all of them) while another instance holds the batch.
 */
export async function startDispatcher(database: Pick<Database, 'listen'>, db: Db, options: DispatcherOptions): Promise<Dispatcher> {
  const waiters = new Set<Waiter>();
  let recheck: NodeJS.Timeout | undefined;
  const recent = new Set<number>();
  const remember = (eventIds: number[]) => {
    for (const id of eventIds) recent.add(id);
    // A Set iterates in insertion order: the oldest go first.
    for (const id of recent) {
      if (recent.size <= RECENT_IDS) break;
      recent.delete(id);
    }
  };

  const settled = (eventIds: Iterable<number>) => {
    const ids = new Set(eventIds);
    for (const waiter of waiters) {
      for (const id of waiter.pending) if (ids.has(id)) waiter.pending.delete(id);
      if (waiter.pending.size === 0) waiter.done();
    }
  };

  /** Waited-for events this instance did not dispatch: done once no longer undispatched (another instance dispatched them, or they rolled back). */
  async function settleFromDatabase(): Promise<void> {
    const waited = [...new Set([...waiters].flatMap((waiter) => [...waiter.pending]))];
    if (waited.length === 0) return;
    const open = await db
      .select({ id: activity.id })
      .from(activity)
      .where(and(inArray(activity.id, waited), isNull(activity.dispatchedAt)));
    const stillOpen = new Set(open.map((row) => row.id));
    settled(waited.filter((id) => !stillOpen.has(id)));
  }

  /** Whether any committed event awaits dispatch: one cheap statement, where a batch's transaction is four. */
  const anyUndispatched = async () => (await db.select({ id: activity.id }).from(activity).where(isNull(activity.dispatchedAt)).limit(1)).length > 0;

  async function drain(stopped: () => boolean): Promise<void> {
    if (options.enabled && (await anyUndispatched())) {
      for (;;) {
        const { busy, events } = await dispatchBatch(db).catch((error: unknown) => {
          if (isPassingFault(error)) throw error;
          options.onError(error);
          return dispatchBatch(db, (event, cause) => options.onError(new Error(`Event ${event.id} (${event.type}) dispatched without its notifications and deliveries`, { cause })));
        });
        const now = Date.now();
        for (const event of events) options.onDispatched?.((now - Date.parse(event.time)) / 1000);
        if (events.length > 0 && options.afterBatch) await options.afterBatch(events).catch(options.onError);
        const ids = events.map((event) => Number(event.id));
        remember(ids);
        settled(ids);
        if (busy || events.length < BATCH || stopped()) break;
      }
    }
    await settleFromDatabase();
    if (waiters.size > 0 && !recheck && !stopped()) {
      recheck = setTimeout(() => {
        recheck = undefined;
        worker.wake();
      }, RECHECK_MS);
    }
  }

  const worker = startBackgroundWorker({ pollMs: options.pollMs, drain, onError: options.onError });
  // Also on every (re)established listen: events committed while it was down were announced to nobody.
  const stopListening = await database.listen(
    EVENTS_CHANNEL,
    (payload) => {
      if (!recent.has(Number(payload))) worker.wake();
    },
    worker.wake,
  );

  return {
    async settle(eventIds) {
      if (eventIds.length === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = { pending: new Set(eventIds), done: () => {} };
      const done = new Promise<void>((resolve) => {
        waiter.done = resolve;
        timer = setTimeout(resolve, options.settleMs);
      });
      waiters.add(waiter);
      worker.wake();
      await done;
      clearTimeout(timer);
      waiters.delete(waiter);
    },
    async stop() {
      await stopListening();
      await worker.stop();
      clearTimeout(recheck);
      for (const waiter of waiters) waiter.done();
    },
  };
}
