import { type Db, memberships, users } from '@tasklane/db';
import { and, asc, eq, gt } from 'drizzle-orm';
import { nextVersionSql } from '../../platform/versions';

const memberColumns = {
  id: memberships.id,
  userId: memberships.userId,
  projectId: memberships.projectId,
  role: memberships.role,
  name: users.name,
  email: users.email,
  membershipUpdatedAt: memberships.updatedAt,
  userUpdatedAt: users.updatedAt,
};

export type MemberRow = {
  id: string;
  userId: string;
  projectId: string;
  role: 'VIEWER' | 'EDITOR' | 'ADMIN';
  name: string;
  email: string;
  /** The versions of the two rows a member's answer is made of (see memberVersion). */
  membershipUpdatedAt: Date;
  userUpdatedAt: Date;
};

export const insertMember = async (db: Db, member: typeof memberships.$inferInsert) =>
  (await db.insert(memberships).values(member).returning())[0]!;

/** `forUpdate` locks the membership row only: a write of a member never changes its user. */
export const findMember = async (db: Db, projectId: string, memberId: string, options: { forUpdate?: boolean } = {}): Promise<MemberRow | undefined> => {
  const query = db
    .select(memberColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.projectId, projectId), eq(memberships.id, memberId)))
    .limit(1);
  return (await (options.forUpdate ? query.for('update', { of: memberships }) : query))[0];
};

/** The membership's new version; undefined when the membership is gone. */
export const updateRole = async (db: Db, memberId: string, role: MemberRow['role']): Promise<Date | undefined> =>
  (await db.update(memberships).set({ role, updatedAt: nextVersionSql(memberships.updatedAt) }).where(eq(memberships.id, memberId)).returning({ updatedAt: memberships.updatedAt }))[0]?.updatedAt;

/** A project's members with their names and emails, in membership order, after `afterId`. */
export const listMembers = (db: Db, projectId: string, afterId: string | undefined, limit: number): Promise<MemberRow[]> =>
  db
    .select(memberColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.projectId, projectId), afterId ? gt(memberships.id, afterId) : undefined))
    .orderBy(asc(memberships.id))
    .limit(limit);

export const deleteMember = (db: Db, memberId: string) => db.delete(memberships).where(eq(memberships.id, memberId));

export const setRoleOfUser = (db: Db, projectId: string, userId: string, role: MemberRow['role']) =>
  db
    .update(memberships)
    .set({ role, updatedAt: nextVersionSql(memberships.updatedAt) })
    .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)));

/** The user's membership of the project, if any. */
export const findMemberOfUser = async (db: Db, projectId: string, userId: string): Promise<MemberRow | undefined> =>
  (
    await db
      .select(memberColumns)
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)))
      .limit(1)
  )[0];
