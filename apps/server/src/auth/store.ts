import { type Db, revokedTokens, users } from '@tasklane/db';
import { eq, lt, sql } from 'drizzle-orm';

export const findUserByEmail = async (db: Db, email: string) =>
  (await db.select().from(users).where(eq(users.email, email)).limit(1))[0];

export const findUserById = async (db: Db, id: string) =>
  (await db.select().from(users).where(eq(users.id, id)).limit(1))[0];

export const insertUser = async (db: Db, user: { id: string; name: string; email: string; passwordHash: string }) =>
  (await db.insert(users).values(user).returning())[0]!;

/** A new password hash; bumping the token version revokes every token issued before. */
export const replacePassword = async (db: Db, id: string, passwordHash: string) =>
  (await db.update(users).set({ passwordHash, tokenVersion: sql`${users.tokenVersion} + 1` }).where(eq(users.id, id)).returning())[0];

/** What authentication needs of a token's user, in one query: the token version and whether the token was revoked. */
export const findTokenState = async (db: Db, userId: string, jti: string) =>
  (
    await db
      .select({
        tokenVersion: users.tokenVersion,
        revoked: sql<boolean>`exists (select 1 from ${revokedTokens} where ${revokedTokens.jti} = ${jti})`,
      })
      .from(users)
      .where(eq(users.id, userId))
      .limit(1)
  )[0];

/** Name, email and password; a new password also bumps the token version, revoking every earlier token. */
export const updateUser = async (db: Db, id: string, patch: { name?: string; email?: string; passwordHash?: string }) =>
  (
    await db
      .update(users)
      .set({
        ...patch,
        ...(patch.passwordHash ? { tokenVersion: sql`${users.tokenVersion} + 1` } : {}),
        updatedAt: new Date(),
      })
      .where(eq(users.id, id))
      .returning()
  )[0];

/** Revokes one token; expired revocations are dropped on the way, as those tokens no longer verify anyway. */
export async function revokeToken(db: Db, token: { jti: string; userId: string; expiresAt: Date }): Promise<void> {
  await db.delete(revokedTokens).where(lt(revokedTokens.expiresAt, new Date()));
  await db.insert(revokedTokens).values(token).onConflictDoNothing();
}
