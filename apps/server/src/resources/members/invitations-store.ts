import { type Db, invitations, projects, users } from '@tasklane/db';
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { nextVersionSql } from '../../platform/versions';

export type InvitationRow = typeof invitations.$inferSelect;

/** How long a link works, counted by the database's clock (as the expiry check is). */
const TTL = sql`now() + interval '7 days'`;

/**
 * A new invitation, or the renewal of the project's invitation of the same email (expired or not):
 * same id, the new role, token and expiry, so the earlier link stops working at once.
 */
export const upsertInvitation = async (db: Db, invitation: { id: string; projectId: string; email: string; role: InvitationRow['role']; tokenDigest: string }): Promise<InvitationRow> =>
  (
    await db
      .insert(invitations)
      .values({ ...invitation, expiresAt: TTL })
      .onConflictDoUpdate({
        target: [invitations.projectId, invitations.email],
        set: { role: invitation.role, tokenDigest: invitation.tokenDigest, expiresAt: TTL, updatedAt: nextVersionSql(invitations.updatedAt) },
      })
      .returning()
  )[0]!;

/** A project's unexpired invitations, oldest id first, after `afterId`. */
export const listPending = (db: Db, projectId: string, afterId: string | undefined, limit: number): Promise<InvitationRow[]> =>
  db
    .select()
    .from(invitations)
    .where(and(eq(invitations.projectId, projectId), gt(invitations.expiresAt, sql`now()`), afterId ? gt(invitations.id, afterId) : undefined))
    .orderBy(asc(invitations.id))
    .limit(limit);

/** The project's invitation, expired or not (an expired one may still be revoked). */
export const findInvitation = async (db: Db, projectId: string, invitationId: string): Promise<InvitationRow | undefined> =>
  (await db.select().from(invitations).where(and(eq(invitations.projectId, projectId), eq(invitations.id, invitationId))).limit(1))[0];

/** The unexpired invitation of a token's digest, locked for the accept in `db`'s transaction. */
export const lockUsable = async (db: Db, tokenDigest: string): Promise<InvitationRow | undefined> =>
  (
    await db
      .select()
      .from(invitations)
      .where(and(eq(invitations.tokenDigest, tokenDigest), gt(invitations.expiresAt, sql`now()`)))
      .limit(1)
      .for('update')
  )[0];

/** The unexpired invitation of a token's digest, with its project's name (for the mail and the link's page). */
export const findUsable = async (db: Db, tokenDigest: string) =>
  (
    await db
      .select({ invitation: invitations, projectName: projects.name })
      .from(invitations)
      .innerJoin(projects, eq(projects.id, invitations.projectId))
      .where(and(eq(invitations.tokenDigest, tokenDigest), gt(invitations.expiresAt, sql`now()`)))
      .limit(1)
  )[0];

/** Whether the row was there to delete. */
export const deleteInvitation = async (db: Db, invitationId: string): Promise<boolean> =>
  (await db.delete(invitations).where(eq(invitations.id, invitationId)).returning({ id: invitations.id })).length > 0;

/** The inviter's name and language, as the invitation's email needs them. */
export const inviterOf = async (db: Db, userId: string): Promise<{ name: string; locale: string | null } | undefined> =>
  (await db.select({ name: users.name, locale: users.locale }).from(users).where(eq(users.id, userId)).limit(1))[0];

export const nameOfProject = async (db: Db, projectId: string): Promise<string | undefined> =>
  (await db.select({ name: projects.name }).from(projects).where(eq(projects.id, projectId)).limit(1))[0]?.name;
