import { mkdirSync } from 'node:fs';
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
import { type QueryListener, type QueryTiming, withNamedStatements } from './pglite-statements';
import { UUID_ARRAY_OID, uuidArrayParameter, uuidsFromArrayText } from './arrays';

export type { QueryListener } from './pglite-statements';
import * as schema from './schema';

export type Schema = typeof schema;
/** Both drivers share this type; a transaction is one too, so stores take either. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export type DbConfig =
  | { kind: 'pglite'; dataDir?: string; loadDataDir?: Blob }
  | { kind: 'postgres'; url: string; poolSize?: number };

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
  /** The connection pool now; PGlite is one connection, which a statement or a transaction holds. */
  poolStats(): PoolStats;
  /**
   * Reports every query of `db` as it settles: its time in milliseconds from issue to result, the
   * wait for a connection included. One listener at a time (the app's metrics); undefined removes it.
   */
  onQuerySettled(listener: QueryListener | undefined): void;
  /** PGlite only: a consistent copy of the whole data directory (a .tar, gzipped when asked). */
  dumpDataDir?(compression?: 'gzip' | 'none'): Promise<Blob>;
  close(): Promise<void>;
}

export interface PoolStats {
  /** Connections the pool may open. */
  max: number;
  /** Connections running statements or held by a transaction. */
  inUse: number;
  /** Statements queued until a connection is free. */
  waiting: number;
}


/** The advisory lock that makes one migrator at a time (apps/server/src/platform/locks.ts lists every lock key). */
export const MIGRATION_LOCK_KEY = 7_415_002_311;

/** The drizzle-kit SQL migrations shipped inside this package. */
export const migrationsFolder = join(
  dirname(createRequire(import.meta.url).resolve('@tasklane/db/package.json')),
  'drizzle',
);

export async function createDatabase(config: DbConfig): Promise<Database> {
  return config.kind === 'pglite' ? openPglite(config) : openPostgres(config);
}

async function openPglite(config: Extract<DbConfig, { kind: 'pglite' }>): Promise<Database> {
  if (config.dataDir) mkdirSync(config.dataDir, { recursive: true });
  const client = await PGlite.create({
    // Every commit is written through to the data directory before the query resolves (the
    // default, stated so nobody trades it for speed): a SIGKILL loses no acknowledged write.
    relaxedDurability: false,
    // The migrations create pg_trgm (trigram indexes for text search); PGlite ships it as a loadable extension.
    extensions: { pg_trgm },
    ...(config.dataDir ? { dataDir: config.dataDir } : {}),
    ...(config.loadDataDir ? { loadDataDir: config.loadDataDir } : {}),
  });
  const timing: QueryTiming = { listener: undefined };
  const named = withNamedStatements(client, timing);
  const db = drizzlePglite(named.client, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    poolStats: () => ({ max: 1, inUse: Math.min(named.pending(), 1), waiting: Math.max(named.pending() - 1, 0) }),
    onQuerySettled: (listener) => {
      timing.listener = listener;
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
 * as text in the session's zone and date style (timestamps.ts reads them), and in UTC they take
 * its fast exact path.
 */
const SESSION_SETTINGS = { TimeZone: 'UTC', DateStyle: 'ISO, MDY' };

/**
 * The client drizzle is given, with every statement prepared on the server. drizzle asks postgres.js
 * to prepare only the statements it was told to name (`.prepare('name')`); any other statement with
 * parameters then costs two round trips (postgres.js describes it to learn the parameters' types,
 * waits, then binds and runs it) and PostgreSQL parses and plans it on every run. Prepared, it is
 * one round trip, parsed once per connection and planned from a cached plan: on a list or a write
 * that halves the round trips and most of the database's CPU (CHANGELOG.md, 0.1.0). Every statement
 * text of the service is built from fixed fragments with parameters, so each connection holds a
 * bounded set (postgres.js forgets them with the connection, which it replaces every 30–60 min).
 * Transactions and savepoints hand their callbacks a client of their own: wrapped the same way.
 */
function alwaysPrepared(client: PostgresClient, timing: QueryTiming): PostgresClient {
  const wrapScoped = (fn: unknown) => (typeof fn === 'function' ? (scoped: PostgresClient) => fn(alwaysPrepared(scoped, timing)) : fn);
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, parameters?: unknown[], options?: Record<string, unknown>) => {
          const pending = target.unsafe(query, parameters as never, { ...options, prepare: true });
          const listener = timing.listener;
          if (listener) {
            // A postgres.js query starts when first awaited and runs once, after a tick (so drizzle's
            // synchronous .values() still applies): awaiting it here too only adds the observation.
            const issuedAt = performance.now();
            const settled = () => listener(performance.now() - issuedAt);
            pending.then(settled, settled);
          }
          return pending;
        };
      }
      if (property === 'begin' || property === 'savepoint') {
        const open = Reflect.get(target, property, receiver) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => open.apply(target, args.map(wrapScoped));
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

async function openPostgres(config: Extract<DbConfig, { kind: 'postgres' }>): Promise<Database> {
  const client = postgres(config.url, {
    max: config.poolSize ?? 10,
    onnotice: () => {},
    connect_timeout: 5,
    idle_timeout: 60,
    connection: SESSION_SETTINGS,
    // Set for uuid[] before postgres.js would install its generic array parser (arrays.ts).
    types: { uuidArray: { to: UUID_ARRAY_OID, from: [UUID_ARRAY_OID], parse: uuidsFromArrayText, serialize: uuidArrayParameter } },
  });
  const timing: QueryTiming = { listener: undefined };
  const db = drizzlePostgres(alwaysPrepared(client, timing), { schema }) as unknown as Db;
  // postgres.js keeps its pool's state internally; patches/postgres@3.4.9.patch reads it out.
  const stats = (client as unknown as { stats: () => { max: number; inUse: number; waiting: number } }).stats;
  return {
    db,
    kind: 'postgres',
    poolStats: () => {
      const { max, inUse, waiting } = stats();
      return { max, inUse, waiting };
    },
    onQuerySettled: (listener) => {
      timing.listener = listener;
    },
    migrate: async () => {
      const lockClient = postgres(config.url, { max: 1, onnotice: () => {}, connect_timeout: 5, connection: SESSION_SETTINGS });
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
      const { unlisten } = await client.listen(channel, onNotify, onListen);
      return unlisten;
    },
    close: () => client.end({ timeout: 5 }),
  };
}
