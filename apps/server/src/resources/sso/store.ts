import { type Db, userIdentities } from '@tasklane/db';
import { and, eq } from 'drizzle-orm';

/** The user an account of the provider (issuer, subject) is linked to. */
export const findLinkedUser = async (db: Db, issuer: string, subject: string) =>
  (
    await db
      .select({ userId: userIdentities.userId })
      .from(userIdentities)
      .where(and(eq(userIdentities.issuer, issuer), eq(userIdentities.subject, subject)))
      .limit(1)
  )[0]?.userId;

export async function link(db: Db, identity: { issuer: string; subject: string; userId: string }): Promise<void> {
  await db.insert(userIdentities).values(identity).onConflictDoNothing();
}
