import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from '@tasklane/db';

const active = new AsyncLocalStorage<Db>();
const roots = new WeakMap<object, Db>();

/**
 * A `Db` that runs every query in the transaction opened by `inTransaction` around the current
 * call, if any, and on the pool otherwise. Services keep their plain `db` and still join a
 * transaction that a caller (such as an idempotent create) opened around them; their own
 * `db.transaction(...)` then becomes a savepoint inside it.
 */
export function transactionAware(db: Db): Db {
  const aware = new Proxy(db, {
    get(root, property) {
      const target = active.getStore() ?? root;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  roots.set(aware, db);
  return aware;
}

/** The handle a query on `db` runs on right now: the open transaction, else the pool (for caches keyed by handle). */
export function currentHandle(db: Db): Db {
  const root = roots.get(db);
  return root ? (active.getStore() ?? root) : db;
}

/** Runs `work` in one transaction of `db`; services built on `transactionAware(db)` join it. */
export function inTransaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction((tx) => active.run(tx as unknown as Db, () => work(tx as unknown as Db)));
}
