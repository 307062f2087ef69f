import { type Db, idempotencyKeys } from '@tasklane/db';
import { and, eq, lt, sql } from 'drizzle-orm';

const forKey = (userId: string, key: string) => and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key));

/** Keys are kept for 24 hours; older ones of this user are dropped before a key is claimed. */
export const deleteExpired = (db: Db, userId: string) =>
  db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, userId), lt(idempotencyKeys.createdAt, sql`now() - interval '24 hours'`)));

/**
 * Claims the key for this request. On PostgreSQL a concurrent claim of the same key waits here
 * until the first request's transaction ends, then finds its row (or claims the key if it failed).
 */
export const claim = async (db: Db, row: { userId: string; key: string; requestHash: string }) =>
  (
    await db
      .insert(idempotencyKeys)
      .values({ ...row, status: 0, body: '' })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key })
  ).length > 0;

export const find = async (db: Db, userId: string, key: string) =>
  (await db.select().from(idempotencyKeys).where(forKey(userId, key)).limit(1))[0];

export const saveResponse = (db: Db, userId: string, key: string, response: { status: number; body: string }) =>
  db.update(idempotencyKeys).set(response).where(forKey(userId, key));
