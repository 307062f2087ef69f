import { type Db, oneTimeCodes, revokedTokens, sessions, users } from '@tasklane/db';
import { and, desc, eq, gt, lt, ne, sql } from 'drizzle-orm';
import { nextVersionSql } from '../../platform/versions';

export const findUserByEmail = async (db: Db, email: string) =>
  (await db.select().from(users).where(eq(users.email, email)).limit(1))[0];

export const findUserById = async (db: Db, id: string) =>
  (await db.select().from(users).where(eq(users.id, id)).limit(1))[0];

export const insertUser = async (db: Db, user: { id: string; name: string; email: string; passwordHash: string | null }) =>
  (await db.insert(users).values(user).returning())[0]!;

/** A new password hash; bumping the token version revokes every token issued before. */
export const replacePassword = async (db: Db, id: string, passwordHash: string) =>
  (await db.update(users).set({ passwordHash, tokenVersion: sql`${users.tokenVersion} + 1` }).where(eq(users.id, id)).returning())[0];

/**
 * What authentication needs of a login token's user, in one query: the token version, whether the
 * token was revoked (tokens from before sessions), and whether its session is still signed in.
 */
export const findTokenState = async (db: Db, userId: string, jti: string, sessionId: string | undefined) =>
  (
    await db
      .select({
        tokenVersion: users.tokenVersion,
        revoked: sql<boolean>`exists (select 1 from ${revokedTokens} where ${revokedTokens.jti} = ${jti})`,
        signedIn: sessionId
          ? // The outer column written in full: drizzle leaves a one-table select's columns unqualified.
            sql<boolean>`exists (select 1 from ${sessions} as s where s.id = ${sessionId} and s.user_id = "users"."id")`
          : sql<boolean>`false`,
      })
      .from(users)
      .where(eq(users.id, userId))
      .limit(1)
  )[0];

/**
 * Name, email, password and language; a new password also bumps the token version, revoking every
 * earlier token. Any change moves `updatedAt`, which members' ETags are made of.
 */
export const updateUser = async (db: Db, id: string, patch: { name?: string; email?: string; passwordHash?: string; locale?: string | null }) =>
  (
    await db
      .update(users)
      .set({
        ...patch,
        ...(patch.passwordHash ? { tokenVersion: sql`${users.tokenVersion} + 1` } : {}),
        // A member's ETag is made of this version too (members/service.ts), so it only moves forward.
        updatedAt: nextVersionSql(users.updatedAt),
      })
      .where(eq(users.id, id))
      .returning()
  )[0];

/** Revokes one token; expired revocations are dropped on the way, as those tokens no longer verify anyway. */
export async function revokeToken(db: Db, token: { jti: string; userId: string; expiresAt: Date }): Promise<void> {
  await db.delete(revokedTokens).where(lt(revokedTokens.expiresAt, new Date()));
  await db.insert(revokedTokens).values(token).onConflictDoNothing();
}

export type SessionRow = typeof sessions.$inferSelect;

/** A new session; the user's expired ones are dropped on the way, so the table stays small. */
export async function insertSession(db: Db, session: typeof sessions.$inferInsert): Promise<void> {
  await db.delete(sessions).where(and(eq(sessions.userId, session.userId), lt(sessions.expiresAt, new Date())));
  await db.insert(sessions).values(session);
}

/** A user's live sessions, newest first, after the cursor's id. */
export const listSessions = (db: Db, userId: string, beforeId: string | undefined, limit: number) =>
  db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, new Date()), beforeId ? lt(sessions.id, beforeId) : undefined))
    .orderBy(desc(sessions.id))
    .limit(limit);

/** Signs one session out; false when the user has no such session. */
export const deleteSession = async (db: Db, userId: string, id: string) =>
  (await db.delete(sessions).where(and(eq(sessions.id, id), eq(sessions.userId, userId))).returning({ id: sessions.id })).length > 0;

/** Signs every session of the user out but `keepId` (all, when undefined); returns their ids. */
export const deleteSessionsOf = async (db: Db, userId: string, keepId?: string) =>
  (
    await db
      .delete(sessions)
      .where(and(eq(sessions.userId, userId), keepId ? ne(sessions.id, keepId) : undefined))
      .returning({ id: sessions.id })
  ).map((row) => row.id);

/** Records a use of the session, at most about once a minute (the caller throttles). */
export async function touchSession(db: Db, id: string): Promise<void> {
  await db.update(sessions).set({ lastUsedAt: new Date() }).where(eq(sessions.id, id));
}

/** What a single-use code is for: a reset link, or the hand-off of a single sign-on to the web app. */
export type CodePurpose = 'password-reset' | 'sso-handoff';

export async function insertOneTimeCode(db: Db, code: typeof oneTimeCodes.$inferInsert): Promise<void> {
  await db.delete(oneTimeCodes).where(lt(oneTimeCodes.expiresAt, new Date()));
  await db.insert(oneTimeCodes).values(code);
}

/** Whether an unexpired code of this purpose exists (without using it). */
export const findOneTimeCode = async (db: Db, id: string, purpose: string) =>
  (
    await db
      .select({ userId: oneTimeCodes.userId })
      .from(oneTimeCodes)
      .where(and(eq(oneTimeCodes.id, id), eq(oneTimeCodes.purpose, purpose), gt(oneTimeCodes.expiresAt, new Date())))
      .limit(1)
  )[0];

/** Uses a code: deletes it and returns its user, once; undefined when unknown, used or expired. */
export const consumeOneTimeCode = async (db: Db, id: string, purpose: string) =>
  (
    await db
      .delete(oneTimeCodes)
      .where(and(eq(oneTimeCodes.id, id), eq(oneTimeCodes.purpose, purpose), gt(oneTimeCodes.expiresAt, new Date())))
      .returning({ userId: oneTimeCodes.userId })
  )[0];

/** What a new password ends: every session of the user, and every reset link issued before it. */
export async function endSignInsOf(db: Db, userId: string): Promise<void> {
  await deleteSessionsOf(db, userId);
  const purpose: CodePurpose = 'password-reset';
  await db.delete(oneTimeCodes).where(and(eq(oneTimeCodes.userId, userId), eq(oneTimeCodes.purpose, purpose)));
}

/** A new password, every earlier login token revoked, every session signed out and every reset link ended: run it in a transaction. */
export async function replacePasswordSigningOut(db: Db, id: string, passwordHash: string) {
  const row = await replacePassword(db, id, passwordHash);
  await endSignInsOf(db, id);
  return row;
}
