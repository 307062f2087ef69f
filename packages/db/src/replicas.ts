import { AsyncLocalStorage } from 'node:async_hooks';
import type postgres from 'postgres';

type PostgresClient = ReturnType<typeof postgres>;

/**
 * Read replicas (PostgreSQL streaming standbys) beside the primary, and which of them may serve a
 * request's reads.
 *
 * Positions are WAL LSNs (`16/B374D848`). A write's answer carries the primary's position after its
 * commit; a read that brings one back is served by a replica only once that replica has replayed up
 * to it, so a user always reads their own writes. A read without one may be up to `maxLagMs`
 * behind. Each replica's replayed position is polled; the primary's positions are kept with the
 * time they were seen, which turns a replica's position into its lag. A replica whose poll fails
 * is skipped until a poll answers again, and a statement that fails on a replica runs again on the
 * primary: a replica going away costs the client nothing.
 */
export interface ReplicaSet {
  /** The replicas, for the metrics: how many, and the statements outside transactions each role ran. */
  readonly count: number;
  readonly statements: { primary: number; replica: number };
  /**
   * Runs a request's work, calling `onWrite` (once) when it opens a transaction or runs on the
   * primary a statement a replica could not: such a request's answer must carry a position even
   * when it is a GET (a sign-on callback creates the session it answers).
   */
  within<T>(fn: () => Promise<T>, onWrite: () => void): Promise<T>;
  /**
   * Runs `fn` with its plain statements (not its transactions) on a replica that has replayed
   * `after` (a position a write answered) and lags at most `maxLagMs`, else on the primary.
   */
  reading<T>(after: bigint | undefined, fn: () => Promise<T>): Promise<T>;
  /** The primary's WAL insert position now: after a commit, at or past that commit's record. */
  position(): Promise<string>;
  close(): Promise<void>;
}

/** `X/Y` as one number; undefined for anything else (a client's header is input). */
export function parseLsn(text: string | undefined): bigint | undefined {
  const match = text === undefined ? null : /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  return match ? (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`) : undefined;
}

interface Replica {
  client: PostgresClient;
  /** Replayed position at the last poll that answered, and when it answered. */
  replayed: bigint;
  polledAt: number;
  up: boolean;
  /** A poll still waiting for this replica's answer: the next one does not pile up behind it. */
  polling: boolean;
}

/** What the request running now asked of the databases. */
export interface RequestScope {
  replica: PostgresClient | undefined;
  onWrite: (() => void) | undefined;
}

/**
 * Statements a replica may run: a `select` (also after `with`, or under `explain`) that names no
 * write (`insert`, `update`, `delete`, `merge`: also `for update`, `do update`) nor a row lock,
 * and calls none of the functions that write or need the primary. Anything else, and anything
 * inside a transaction, runs on the primary. A select this misses (one that would write after all)
 * fails on the replica, read-only, and runs again on the primary. The service's statement texts
 * hold no user text (that is in their parameters), so a keyword here is SQL's.
 */
const READ_ONLY = /^\s*(select|with|explain)\b/i;
const NEEDS_PRIMARY =
  /\bfor\s+(share|key\s+share)\b|\b(insert|update|delete|merge)\b|\b(pg_notify|nextval|setval|currval|lastval|set_config|pg_(try_)?advisory\w*|pg_current_wal\w*|txid_current|pg_current_xact_id)\s*\(/i;
export const replicaMayRun = (statement: string): boolean => READ_ONLY.test(statement) && !NEEDS_PRIMARY.test(statement);

const CONNECTION_FAILURES = /^(CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|08\w{3}|57P0[123])$/;
const lostConnection = (error: unknown) => CONNECTION_FAILURES.test(String((error as { code?: unknown }).code ?? ''));

/**
 * How long a poll or a replica's statement may take before the replica counts as gone: a replica
 * that stops answering without closing its connections (a network partition) must not hold reads.
 * The service's reads take milliseconds; a statement past this runs again on the primary.
 */
const REPLICA_DEADLINE_MS = 5000;

class Deadline extends Error {}
const within = <T>(work: PromiseLike<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Deadline()), ms);
    timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

export interface ReplicaOptions {
  urls: readonly string[];
  maxLagMs: number;
  /** How often each replica's and the primary's positions are read. */
  pollMs?: number;
  connect: (url: string) => PostgresClient;
  /** A connection of its own to the primary for the positions: the pool's queue must not make replicas look late. */
  primaryPositions: PostgresClient;
}

export interface ReplicaRouting {
  set: ReplicaSet;
  /** What the running request asked (read by the statement wrapper in client.ts). */
  scope(): RequestScope | undefined;
  /**
   * Runs a statement on the request's replica, and again on the primary if the replica fails it
   * or passes the deadline; the rest of the request then reads from the primary.
   */
  run(scope: RequestScope, statement: (client: PostgresClient) => PromiseLike<unknown> & { values(): PromiseLike<unknown> }, primary: PostgresClient): unknown;
}

export function createReplicaRouting(options: ReplicaOptions): ReplicaRouting {
  const pollMs = options.pollMs ?? Math.min(200, Math.max(20, Math.floor(options.maxLagMs / 4)));
  const positions = options.primaryPositions;
  const replicas: Replica[] = options.urls.map((url) => ({ client: options.connect(url), replayed: 0n, polledAt: 0, up: false, polling: false }));
  /** The primary's positions, oldest first, with when they were read: a replica's lag is read off them. */
  const seen: { at: number; lsn: bigint }[] = [];
  const statements = { primary: 0, replica: 0 };
  const requests = new AsyncLocalStorage<RequestScope>();
  /** When the primary last told its position: without news of it, no replica can be judged fresh. */
  let primaryPolledAt = 0;
  const readPosition = async () => {
    const [row] = await within(positions.unsafe<{ lsn: string }[]>('select pg_current_wal_insert_lsn()::text as lsn'), REPLICA_DEADLINE_MS);
    return row!.lsn;
  };

  const pollReplica = async (replica: Replica) => {
    if (replica.polling) return;
    replica.polling = true;
    try {
      const [row] = await within(
        replica.client.unsafe<{ lsn: string | null; standby: boolean }[]>('select pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as standby'),
        REPLICA_DEADLINE_MS,
      );
      const lsn = parseLsn(row?.lsn ?? undefined);
      // A standby only: one promoted (or a primary named by mistake) would take writes no other server sees.
      replica.up = row?.standby === true && lsn !== undefined;
      if (lsn !== undefined) replica.replayed = lsn;
      replica.polledAt = Date.now();
    } catch {
      replica.up = false;
    } finally {
      replica.polling = false;
    }
  };

  async function poll() {
    const now = Date.now();
    // Each replica on its own: one that hangs delays neither the others nor the primary's positions.
    for (const replica of replicas) void pollReplica(replica);
    try {
      const lsn = parseLsn(await readPosition());
      primaryPolledAt = Date.now();
      if (lsn !== undefined && (seen.length === 0 || seen[seen.length - 1]!.lsn !== lsn)) seen.push({ at: now, lsn });
    } catch {
      // The primary's own outage is the requests' to report (503); without new positions the replicas age out.
    }
    // Positions older than the lag allowed are needed only to know a replica is past them: keep one.
    while (seen.length > 1 && seen[1]!.at <= now - options.maxLagMs) seen.shift();
  }

  /** Replayed everything the primary had `maxLagMs` ago, and answered a poll within that time. */
  const fresh = (replica: Replica, now: number) => {
    if (!replica.up || now - replica.polledAt > options.maxLagMs) return false;
    // Nothing known of the primary yet (or for too long): no replica can be judged.
    if (seen.length === 0 || now - primaryPolledAt > options.maxLagMs) return false;
    // The first position the replica has not replayed, and since when the primary has had it.
    const missing = seen.find((sample) => sample.lsn > replica.replayed);
    return missing === undefined || now - missing.at <= options.maxLagMs;
  };

  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  const tick = () => {
    polling = poll().finally(() => {
      polling = undefined;
      if (timer) timer = setTimeout(tick, pollMs).unref();
    });
  };
  timer = setTimeout(tick, 0).unref();

  let next = 0;
  const choose = (after: bigint | undefined): PostgresClient | undefined => {
    const now = Date.now();
    for (let tried = 0; tried < replicas.length; tried += 1) {
      // Turn about, so several replicas share the reads.
      const replica = replicas[(next + tried) % replicas.length]!;
      if (fresh(replica, now) && (after === undefined || replica.replayed >= after)) {
        next = (next + tried + 1) % replicas.length;
        return replica.client;
      }
    }
    return undefined;
  };

  const set: ReplicaSet = {
    count: replicas.length,
    statements,
    within: (fn, onWrite) => {
      let told = false;
      return requests.run(
        {
          replica: undefined,
          onWrite: () => {
            if (told) return;
            told = true;
            onWrite();
          },
        },
        fn,
      );
    },
    reading: (after, fn) => requests.run({ replica: choose(after), onWrite: requests.getStore()?.onWrite }, fn),
    position: readPosition,
    async close() {
      clearTimeout(timer);
      timer = undefined;
      // A poll is bounded by the deadline; the clients' end cuts what still waits.
      await polling;
      await Promise.all([...replicas.map((replica) => replica.client.end({ timeout: 5 })), positions.end({ timeout: 5 })]);
    },
  };

  return {
    set,
    scope: () => requests.getStore(),
    run(scope, statement, primaryClient) {
      const replica = scope.replica!;
      // drizzle awaits the statement, or calls `.values()` first and awaits that: both are kept lazy.
      let asValues = false;
      let settled: Promise<unknown> | undefined;
      // Issued a tick later, as postgres.js issues its own, so a `.values()` right after still applies.
      const start = () =>
        (settled ??= Promise.resolve().then(async () => {
          const runOn = (client: PostgresClient) => {
            const pending = statement(client);
            return asValues ? pending.values() : pending;
          };
          try {
            const result = await within(runOn(replica), REPLICA_DEADLINE_MS);
            statements.replica += 1;
            return result;
          } catch (error) {
            if (lostConnection(error) || error instanceof Deadline) {
              const lost = replicas.find((candidate) => candidate.client === replica);
              if (lost) lost.up = false;
            }
            // The rest of the request reads the primary: its answers must not go back in time.
            scope.replica = undefined;
            const result = await runOn(primaryClient);
            statements.primary += 1;
            return result;
          }
        }));
      const lazy = {
        values() {
          asValues = true;
          return lazy;
        },
        then<A, B>(onFulfilled?: (value: unknown) => A, onRejected?: (reason: unknown) => B) {
          return start().then(onFulfilled, onRejected);
        },
      };
      return lazy;
    },
  };
}
