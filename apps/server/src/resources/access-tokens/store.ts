import { type Db, personalAccessTokens } from '@tasklane/db';
import { and, desc, eq, isNull, lt, or, gt, sql } from 'drizzle-orm';

export type AccessTokenRow = typeof personalAccessTokens.$inferSelect;

export async function insertAccessToken(db: Db, row: typeof personalAccessTokens.$inferInsert): Promise<AccessTokenRow> {
  return (await db.insert(personalAccessTokens).values(row).returning())[0]!;
}

/** The token whose secret has this digest, expired or not (the caller checks). */
export const findByHash = async (db: Db, tokenHash: string) =>
  (await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.tokenHash, tokenHash)).limit(1))[0];

/** Whether the token still exists (not revoked, its owner not deleted) and has not expired. */
export const holds = async (db: Db, id: string) =>
  (
    await db
      .select({ id: personalAccessTokens.id })
      .from(personalAccessTokens)
      .where(and(eq(personalAccessTokens.id, id), or(isNull(personalAccessTokens.expiresAt), gt(personalAccessTokens.expiresAt, sql`now()`))))
      .limit(1)
  ).length > 0;

/** A user's tokens, newest first, after the cursor's id. */
export const listOfUser = (db: Db, userId: string, beforeId: string | undefined, limit: number) =>
  db
    .select()
    .from(personalAccessTokens)
    .where(and(eq(personalAccessTokens.userId, userId), beforeId ? lt(personalAccessTokens.id, beforeId) : undefined))
    .orderBy(desc(personalAccessTokens.id))
    .limit(limit);

/** Revokes a token of the user; false when the user has no such token. */
export const deleteOfUser = async (db: Db, userId: string, id: string) =>
  (
    await db
      .delete(personalAccessTokens)
      .where(and(eq(personalAccessTokens.id, id), eq(personalAccessTokens.userId, userId)))
      .returning({ id: personalAccessTokens.id })
  ).length > 0;

/** Records a use, at most about once a minute (the caller throttles). */
export async function touch(db: Db, id: string): Promise<void> {
  await db.update(personalAccessTokens).set({ lastUsedAt: new Date() }).where(eq(personalAccessTokens.id, id));
}
