import { type Db, memberships, users } from '@tasklane/db';
import { and, asc, eq, gt } from 'drizzle-orm';

const memberColumns = {
  id: memberships.id,
  userId: memberships.userId,
  projectId: memberships.projectId,
  role: memberships.role,
  name: users.name,
  email: users.email,
};

export type MemberRow = { id: string; userId: string; projectId: string; role: 'VIEWER' | 'EDITOR' | 'ADMIN'; name: string; email: string };

export const insertMember = async (db: Db, member: typeof memberships.$inferInsert) =>
  (await db.insert(memberships).values(member).returning())[0]!;

export const findMember = async (db: Db, projectId: string, memberId: string): Promise<MemberRow | undefined> =>
  (
    await db
      .select(memberColumns)
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.projectId, projectId), eq(memberships.id, memberId)))
      .limit(1)
  )[0];

/** False when the membership is gone. */
export const updateRole = async (db: Db, memberId: string, role: MemberRow['role']) =>
  (await db.update(memberships).set({ role, updatedAt: new Date() }).where(eq(memberships.id, memberId)).returning({ id: memberships.id })).length > 0;

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
    .set({ role, updatedAt: new Date() })
    .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)));
