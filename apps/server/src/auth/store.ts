import { type Db, users } from '@tasklane/db';
import { eq, sql } from 'drizzle-orm';

export const findUserByEmail = async (db: Db, email: string) =>
  (await db.select().from(users).where(eq(users.email, email)).limit(1))[0];

export const findUserById = async (db: Db, id: string) =>
  (await db.select().from(users).where(eq(users.id, id)).limit(1))[0];

export const insertUser = async (db: Db, user: { id: string; name: string; email: string; passwordHash: string }) =>
  (await db.insert(users).values(user).returning())[0]!;

/** A new password hash; bumping the token version revokes every token issued before. */
export const replacePassword = async (db: Db, id: string, passwordHash: string) =>
  (await db.update(users).set({ passwordHash, tokenVersion: sql`${users.tokenVersion} + 1` }).where(eq(users.id, id)).returning())[0];
