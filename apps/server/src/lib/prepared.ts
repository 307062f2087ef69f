import type { Db } from '@tasklane/db';
import { currentHandle } from './ambient-transaction';

/**
 * A statement built once per database handle instead of once per request: drizzle's query building
 * is a measurable part of a single-row read. Transactions are handles of their own, so a statement
 * used inside one is built for it (and forgotten with it).
 */
export function preparedFor<Statement>(build: (db: Db) => Statement): (db: Db) => Statement {
  const statements = new WeakMap<Db, Statement>();
  return (handle) => {
    // A transaction-aware handle stands for the pool or the open transaction: cache per real handle.
    const db = currentHandle(handle);
    let statement = statements.get(db);
    if (!statement) {
      statement = build(db);
      statements.set(db, statement);
    }
    return statement;
  };
}
