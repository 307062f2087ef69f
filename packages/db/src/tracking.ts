import type { PGlite, Transaction } from '@electric-sql/pglite';

/*
 * What the service counts about its own statements, through the drivers' public methods only:
 * each statement's time (the query-duration histogram) and how many statements and transactions
 * are in flight (the pool gauges). Neither driver reports its pool's state publicly, so the gauges
 * are derived from these counts (client.ts, poolStats).
 */

export type QueryListener = (milliseconds: number) => void;

/** Read per statement, so a listener can be set after opening; `inFlight` is kept whether or not one is set. */
export interface QueryTracking {
  listener: QueryListener | undefined;
  /**
   * Statements issued outside a transaction and not yet settled, plus transactions open: each of
   * them holds or waits for a connection of its own. A transaction's statements run on the
   * connection it already holds, so they are not counted again.
   */
  inFlight: number;
}

export const newTracking = (): QueryTracking => ({ listener: undefined, inFlight: 0 });

/**
 * Watches a statement already issued: counted while pending when it runs outside a transaction, and
 * reported to the listener when it settles. Adds an observer to `pending` and returns it unchanged.
 */
export function watch<T extends PromiseLike<unknown>>(tracking: QueryTracking, pending: T, counted: boolean): T {
  const listener = tracking.listener;
  if (!listener && !counted) return pending;
  const issuedAt = listener ? performance.now() : 0;
  if (counted) tracking.inFlight += 1;
  const settled = () => {
    if (counted) tracking.inFlight -= 1;
    listener?.(performance.now() - issuedAt);
  };
  pending.then(settled, settled);
  return pending;
}

/**
 * `client` with its public query() and transaction() watched (drizzle's PGlite driver calls only
 * these to run the service's statements): the engine runs one statement or transaction at a time,
 * and the others wait for it.
 */
export function trackedPglite(client: PGlite, tracking: QueryTracking): PGlite {
  const query: PGlite['query'] = (text, parameters, options) => watch(tracking, client.query(text, parameters, options), true);
  const scoped = (tx: Transaction): Transaction => {
    const txQuery = tx.query.bind(tx);
    return Object.assign(tx, {
      query: ((text, parameters, options) => watch(tracking, txQuery(text, parameters, options), false)) as Transaction['query'],
    });
  };
  const transaction: PGlite['transaction'] = (callback) => {
    tracking.inFlight += 1;
    return client.transaction((tx) => callback(scoped(tx))).finally(() => {
      tracking.inFlight -= 1;
    });
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'query') return query;
      if (property === 'transaction') return transaction;
      // The client as the receiver: PGlite's getters read private fields, which the proxy has not.
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
