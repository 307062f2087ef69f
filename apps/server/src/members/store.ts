import { type Db, memberships, users } from '@tasklane/db';
import { and, eq } from 'drizzle-orm';

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

export const isMember = async (db: Db, projectId: string, userId: string): Promise<boolean> =>
  (
    await db
      .select({ id: memberships.id })
      .from(memberships)
      .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)))
      .limit(1)
  ).length > 0;

export const updateRole = (db: Db, memberId: string, role: MemberRow['role']) =>
  db.update(memberships).set({ role, updatedAt: new Date() }).where(eq(memberships.id, memberId));
