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
  /** The replicas, for the metrics: how many, and the statements each role ran. */
  readonly count: number;
  readonly statements: { primary: number; replica: number };
  /**
   * Runs `fn` with its plain statements (not its transactions) on a replica that has replayed
   * `after` (a position a write answered) and lags at most `maxLagMs`, else on the primary.
   */
  reading<T>(after: string | undefined, fn: () => Promise<T>): Promise<T>;
  /** The primary's flushed WAL position now: after a commit (flushed before it answered), at or past it. */
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
}

/**
 * Statements a replica may run: a bare `select` that takes no row lock and calls none of the
 * functions that write or need the primary. Anything else, and anything inside a transaction, runs
 * on the primary. A select this misses (one that would write after all) fails on the replica,
 * read-only, and runs again on the primary.
 */
const READ_ONLY = /^\s*select\b/i;
const NEEDS_PRIMARY = /\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b|\b(pg_notify|nextval|setval|set_config|pg_advisory\w*|pg_current_wal\w*|txid_current|pg_current_xact_id)\s*\(/i;
export const replicaMayRun = (statement: string): boolean => READ_ONLY.test(statement) && !NEEDS_PRIMARY.test(statement);

const CONNECTION_FAILURES = /^(CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|08\w{3}|57P0[123])$/;
const lostConnection = (error: unknown) => CONNECTION_FAILURES.test(String((error as { code?: unknown }).code ?? ''));

export interface ReplicaOptions {
  urls: readonly string[];
  maxLagMs: number;
  /** How often each replica's and the primary's positions are read. */
  pollMs?: number;
  connect: (url: string) => PostgresClient;
}

export interface ReplicaRouting {
  set: ReplicaSet;
  /** The replica the running request's reads go to, if any (read by the statement wrapper in client.ts). */
  current(): PostgresClient | undefined;
  /** Runs a statement on the request's replica, and again on the primary if the replica fails it. */
  run(replica: PostgresClient, statement: (client: PostgresClient) => PromiseLike<unknown> & { values(): PromiseLike<unknown> }, primary: PostgresClient): unknown;
}

export function createReplicaRouting(primary: PostgresClient, options: ReplicaOptions): ReplicaRouting {
  const pollMs = options.pollMs ?? Math.min(200, Math.max(20, Math.floor(options.maxLagMs / 4)));
  const replicas: Replica[] = options.urls.map((url) => ({ client: options.connect(url), replayed: 0n, polledAt: 0, up: false }));
  /** The primary's positions, oldest first, with when they were read: a replica's lag is read off them. */
  const seen: { at: number; lsn: bigint }[] = [];
  const statements = { primary: 0, replica: 0 };
  const scope = new AsyncLocalStorage<{ replica: PostgresClient | undefined }>();

  async function poll() {
    const now = Date.now();
    try {
      const [row] = await primary.unsafe<{ lsn: string }[]>('select pg_current_wal_flush_lsn()::text as lsn');
      const lsn = parseLsn(row?.lsn);
      if (lsn !== undefined && (seen.length === 0 || seen[seen.length - 1]!.lsn !== lsn)) seen.push({ at: now, lsn });
    } catch {
      // The primary's own outage is the requests' to report (503); the replicas are judged below as before.
    }
    // Positions older than the lag allowed are needed only to know a replica is past them: keep one.
    while (seen.length > 1 && seen[1]!.at <= now - options.maxLagMs) seen.shift();
    await Promise.all(
      replicas.map(async (replica) => {
        try {
          const [row] = await replica.client.unsafe<{ lsn: string | null }[]>('select pg_last_wal_replay_lsn()::text as lsn');
          const lsn = parseLsn(row?.lsn ?? undefined);
          // Not a standby (promoted, or pointed at a primary by mistake): no replayed position, never used.
          replica.up = lsn !== undefined;
          if (lsn !== undefined) replica.replayed = lsn;
          replica.polledAt = Date.now();
        } catch {
          replica.up = false;
        }
      }),
    );
  }

  /** Replayed everything the primary had `maxLagMs` ago, and answered a poll within that time. */
  const fresh = (replica: Replica, now: number) => {
    if (!replica.up || now - replica.polledAt > options.maxLagMs) return false;
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
    reading: (after, fn) => scope.run({ replica: choose(parseLsn(after)) }, fn),
    async position() {
      const [row] = await primary.unsafe<{ lsn: string }[]>('select pg_current_wal_flush_lsn()::text as lsn');
      return row!.lsn;
    },
    async close() {
      clearTimeout(timer);
      timer = undefined;
      await polling;
      await Promise.all(replicas.map((replica) => replica.client.end({ timeout: 5 })));
    },
  };

  return {
    set,
    current: () => scope.getStore()?.replica,
    run(replica, statement, primaryClient) {
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
            const result = await runOn(replica);
            statements.replica += 1;
            return result;
          } catch (error) {
            if (lostConnection(error)) {
              const lost = replicas.find((candidate) => candidate.client === replica);
              if (lost) lost.up = false;
            }
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
