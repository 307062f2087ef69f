import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { createReplicaRouting, type ReplicaRouting, type ReplicaSet, replicaMayRun } from './replicas';
import { type QueryListener, type QueryTracking, newTracking, trackedPglite, watch } from './tracking';

export { parseLsn, type ReplicaSet, replicaMayRun } from './replicas';

export type { QueryListener } from './tracking';
import * as schema from './schema';

export type Schema = typeof schema;
/** Both drivers share this type; a transaction is one too, so stores take either. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export type DbConfig =
  | {
      kind: 'pglite';
      dataDir?: string;
      loadDataDir?: Blob;
      /**
       * A gzipped tar of a migrated PGlite data directory (`buildPgliteTemplate`), copied into a
       * `dataDir` that holds no database yet instead of running initdb: a first start then costs
       * what a restart does (measured: 0.8 s and a 380 MB peak against 2.1 s and 840 MB).
       */
      template?: string;
    }
  | {
      kind: 'postgres';
      url: string;
      poolSize?: number;
      /**
       * `transaction`: `url` goes through a pooler in transaction mode (PgBouncer), which may run each
       * statement on another server connection, so none is prepared by name there.
       */
      pooler?: 'none' | 'transaction';
      /** Straight to PostgreSQL, for LISTEN and the migrations' session lock; `url` when absent. */
      listenUrl?: string;
      /** Streaming replicas that may serve reads (replicas.ts), and how far behind a read may be. */
      replicas?: { urls: readonly string[]; maxLagMs: number };
    };

export interface Database {
  db: Db;
  kind: DbConfig['kind'];
  /** Applies pending migrations; on PostgreSQL under an advisory lock so concurrent starts apply them once. */
  migrate(): Promise<void>;
  /** Throws when the database cannot answer. */
  ping(): Promise<void>;
  /**
   * LISTENs on a channel (a dedicated connection on PostgreSQL); `onListen` runs each time the listen
   * is (re)established, so a caller can catch up on what it missed while disconnected.
   */
  listen(channel: string, onNotify: (payload: string) => void, onListen?: () => void): Promise<() => Promise<void>>;
  /**
   * The connection pool now, as the service's own count of what it has in flight (neither driver
   * reports its pool publicly); PGlite is one connection, which a statement or a transaction holds.
   */
  poolStats(): PoolStats;
  /**
   * Reports every query of `db` as it settles: its time in milliseconds from issue to result, the
   * wait for a connection included. One listener at a time (the app's metrics); undefined removes it.
   */
  onQuerySettled(listener: QueryListener | undefined): void;
  /** PostgreSQL with DATABASE_REPLICA_URLS: the replicas, which serve the reads run inside `reading`. */
  replicas?: ReplicaSet;
  /** PGlite only, when this open made the database: from the template, or by initdb. */
  created?: 'template' | 'initdb';
  /** PGlite only: a consistent copy of the whole data directory (a .tar, gzipped when asked). */
  dumpDataDir?(compression?: 'gzip' | 'none'): Promise<Blob>;
  close(): Promise<void>;
}

export interface PoolStats {
  /** Connections the pool may open. */
  max: number;
  /**
   * Connections running statements or held by a transaction: the statements (outside transactions)
   * and transactions in flight, up to `max`. Both drivers give each its own connection while one is free.
   */
  inUse: number;
  /**
   * Statements and transactions in flight beyond `max`: they wait for a connection (PGlite, and
   * postgres.js for a transaction), or postgres.js pipelines them behind another statement on a busy one.
   */
  waiting: number;
}

const poolStatsOf = (max: number, tracking: QueryTracking): PoolStats => ({
  max,
  inUse: Math.min(tracking.inFlight, max),
  waiting: Math.max(tracking.inFlight - max, 0),
});


/** The advisory lock that makes one migrator at a time (apps/server/src/platform/locks.ts lists every lock key). */
export const MIGRATION_LOCK_KEY = 7_415_002_311;
const DEFAULT_POOL_SIZE = 10;

/** The drizzle-kit SQL migrations shipped inside this package. */
export const migrationsFolder = join(
  dirname(createRequire(import.meta.url).resolve('@tasklane/db/package.json')),
  'drizzle',
);

export async function createDatabase(config: DbConfig): Promise<Database> {
  return config.kind === 'pglite' ? openPglite(config) : openPostgres(config);
}

/**
 * PGlite's buffer pool. Its PostgreSQL keeps the default 128 MB of `shared_buffers` inside its
 * WebAssembly heap; 32 MB served the bench's PGlite mix as fast and holds about 95 MB less
 * (docs/performance.md, "Start and idle memory"). Set with ALTER SYSTEM, which the data directory
 * keeps (`postgresql.auto.conf`), it takes effect from the next start; a template has it already,
 * and a first start by initdb is initdb's size anyway.
 */
export const PGLITE_SHARED_BUFFERS = '32MB';

async function keepBufferPool(client: PGlite): Promise<void> {
  const { rows } = await client.query<{ shared_buffers: string }>('show shared_buffers');
  if (rows[0]?.shared_buffers !== PGLITE_SHARED_BUFFERS) await client.exec(`alter system set shared_buffers = '${PGLITE_SHARED_BUFFERS}'`);
}

/** PGlite, migrated, with its buffer pool set: gzipped, for `template` (the server's build makes one). */
export async function buildPgliteTemplate(file: string): Promise<void> {
  const client = await PGlite.create({ extensions: { pg_trgm } });
  try {
    await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder });
    await keepBufferPool(client);
    const dump = await client.dumpDataDir('gzip');
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await client.close();
  }
}

async function openPglite(config: Extract<DbConfig, { kind: 'pglite' }>): Promise<Database> {
  if (config.dataDir) mkdirSync(config.dataDir, { recursive: true });
  // A data directory without PG_VERSION holds no database yet: it starts from the template when there is one.
  const fresh = config.dataDir !== undefined && !existsSync(join(config.dataDir, 'PG_VERSION'));
  const template = fresh && !config.loadDataDir && config.template && existsSync(config.template) ? config.template : undefined;
  const loadDataDir = template ? new Blob([readFileSync(template)]) : config.loadDataDir;
  const client = await PGlite.create({
    // Every commit is written through to the data directory before the query resolves (the
    // default, stated so nobody trades it for speed): a SIGKILL loses no acknowledged write.
    relaxedDurability: false,
    // The migrations create pg_trgm (trigram indexes for text search); PGlite ships it as a loadable extension.
    extensions: { pg_trgm },
    ...(config.dataDir ? { dataDir: config.dataDir } : {}),
    ...(loadDataDir ? { loadDataDir } : {}),
  });
  if (config.dataDir) await keepBufferPool(client);
  const tracking = newTracking();
  const db = drizzlePglite(trackedPglite(client, tracking), { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    ...(fresh ? { created: template ? ('template' as const) : ('initdb' as const) } : {}),
    poolStats: () => poolStatsOf(1, tracking),
    onQuerySettled: (listener) => {
      tracking.listener = listener;
    },
    migrate: () => migratePglite(drizzlePglite(client, { schema }), { migrationsFolder }),
    ping: async () => {
      await client.query('select 1');
    },
    listen: async (channel, onNotify, onListen) => {
      const unlisten = await client.listen(channel, onNotify);
      onListen?.();
      return unlisten;
    },
    dumpDataDir: (compression = 'none') => client.dumpDataDir(compression) as Promise<Blob>,
    close: () => client.close(),
  };
}

type PostgresClient = ReturnType<typeof postgres>;

/**
 * Asked for by every PostgreSQL connection, whatever the server's own defaults: timestamps arrive
 * as text in the session's zone and date style (drizzle's postgres.js driver hands them over as
 * text), and timestamps.ts reads that text in UTC, as PGlite's sessions give it too.
 */
const SESSION_SETTINGS = { TimeZone: 'UTC', DateStyle: 'ISO, MDY' };

/**
 * The client drizzle is given, with every statement prepared on the server (unless pooled, below). drizzle asks postgres.js
 * to prepare only the statements it was told to name (`.prepare('name')`); any other statement with
 * parameters then costs two round trips (postgres.js describes it to learn the parameters' types,
 * waits, then binds and runs it) and PostgreSQL parses and plans it on every run. Prepared, it is
 * one round trip, parsed once per connection and planned from a cached plan: on a list or a write
 * that halves the round trips and most of the database's CPU (CHANGELOG.md, 0.1.0). Every statement
 * text of the service is built from fixed fragments with parameters, so each connection holds a
 * bounded set (postgres.js forgets them with the connection, which it replaces every 30–60 min).
 * Behind a transaction pooler statements stay unnamed, at the two round trips' cost: a named one
 * would be missing on the next server connection the pooler picks. That is the connection's own
 * `prepare: false` (connect, below), which postgres.js lets no statement override.
 * Transactions and savepoints hand their callbacks a client of their own: wrapped the same way.
 * Every statement and transaction is also watched (tracking.ts): timed, and counted while in flight.
 */
function preparedClient(client: PostgresClient, tracking: QueryTracking, routing?: ReplicaRouting, inTransaction = false): PostgresClient {
  const wrapScoped = (fn: unknown) => (typeof fn === 'function' ? (scoped: PostgresClient) => fn(preparedClient(scoped, tracking, routing, true)) : fn);
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        // A postgres.js query starts when first awaited and runs once, after a tick (so drizzle's
        // synchronous .values() still applies): watching it only adds an observer.
        return (query: string, parameters?: unknown[], options?: Record<string, unknown>) => {
          const run = (on: PostgresClient) => on.unsafe(query, parameters as never, { ...options, prepare: true });
          // A transaction's statements stay on the primary: it holds their connection.
          if (!routing || inTransaction) return watch(tracking, run(target), !inTransaction);
          const scope = routing.scope();
          const readOnly = replicaMayRun(query);
          // On a replica: not counted in the primary pool's gauges.
          if (scope?.replica && readOnly) return watch(tracking, routing.run(scope, run, target) as PromiseLike<unknown>, false);
          routing.set.statements.primary += 1;
          if (!readOnly) scope?.onWrite?.();
          return watch(tracking, run(target), true);
        };
      }
      if (property === 'begin' || property === 'savepoint') {
        const open = Reflect.get(target, property, receiver) as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => {
          const pending = open.apply(target, args.map(wrapScoped));
          // A transaction may write: the request's answer carries a position (replicas.ts).
          if (property === 'begin' && !inTransaction) routing?.scope()?.onWrite?.();
          // A transaction holds a connection of its own from BEGIN to COMMIT; a savepoint runs on its transaction's.
          if (property === 'begin' && !inTransaction) {
            tracking.inFlight += 1;
            const settled = () => {
              tracking.inFlight -= 1;
            };
            pending.then(settled, settled);
          }
          return pending;
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

async function openPostgres(config: Extract<DbConfig, { kind: 'postgres' }>): Promise<Database> {
  const pooled = config.pooler === 'transaction';
  /**
   * Every connection of the service: `max` of them to `url` (a pool, or 1 for a session of its
   * own); `throughPooler` for DATABASE_URL's when DATABASE_POOLER says a transaction pooler is in
   * front of it (the replicas and DATABASE_LISTEN_URL are reached directly).
   */
  const connect = (url: string, max: number, throughPooler = false) =>
    postgres(url, {
      max,
      onnotice: () => {},
      connect_timeout: 5,
      idle_timeout: 60,
      connection: SESSION_SETTINGS,
      // Through a transaction pooler no statement is prepared by name (postgres.js's unnamed
      // statements), as PgBouncer's documentation asks of its clients, and none is sent while
      // another is in flight on the connection: PgBouncer 1.18 gives the server connection back at
      // the first statement's end and drops the answers to one sent behind it (postgres.js sends a
      // statement with parameters as a describe without a Sync first), so that request never
      // answered (pgbouncer.test.ts). `max_pipeline: 0` needs patches/README.md's third fix.
      prepare: !throughPooler,
      ...(throughPooler ? { max_pipeline: 0 } : {}),
    });
  const client = connect(config.url, config.poolSize ?? DEFAULT_POOL_SIZE, pooled);
  const directUrl = config.listenUrl ?? config.url;
  // LISTEN holds a session: on the pool's own client unless that goes through a pooler.
  const listener = config.listenUrl ? connect(config.listenUrl, 1) : client;
  const max = config.poolSize ?? DEFAULT_POOL_SIZE;
  const tracking = newTracking();
  const routing = config.replicas?.urls.length
    ? createReplicaRouting({
        primaryPositions: connect(config.url, 1, pooled),
        urls: config.replicas.urls,
        maxLagMs: config.replicas.maxLagMs,
        connect: (url) => {
          const replica = connect(url, config.poolSize ?? DEFAULT_POOL_SIZE);
          // drizzle gives the client it wraps its own type parsers (timestamps stay text, read by
          // timestamps.ts); a replica's rows reach the same drizzle, so its client gets them too.
          drizzlePostgres(replica);
          return replica;
        },
      })
    : undefined;
  const db = drizzlePostgres(preparedClient(client, tracking, routing), { schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    poolStats: () => poolStatsOf(max, tracking),
    onQuerySettled: (listener) => {
      tracking.listener = listener;
    },
    migrate: async () => {
      const lockClient = connect(directUrl, 1);
      try {
        await lockClient`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
        await migratePostgres(drizzlePostgres(lockClient), { migrationsFolder });
        await lockClient`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
      } finally {
        await lockClient.end();
      }
    },
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    listen: async (channel, onNotify, onListen) => {
      const { unlisten } = await listener.listen(channel, onNotify, onListen);
      return unlisten;
    },
    ...(routing ? { replicas: routing.set } : {}),
    close: async () => {
      await routing?.set.close();
      await client.end({ timeout: 5 });
      if (listener !== client) await listener.end({ timeout: 5 });
    },
  };
}
