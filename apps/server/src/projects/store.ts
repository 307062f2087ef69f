import { type Db, memberships, projects } from '@tasklane/db';
import { and, asc, eq, gt } from 'drizzle-orm';

export type ProjectRow = typeof projects.$inferSelect;

/** The caller's membership of a project and its owner, in one query; undefined for non-members. */
export const findAccess = async (db: Db, projectId: string, userId: string) =>
  (
    await db
      .select({ role: memberships.role, ownerId: projects.ownerId })
      .from(memberships)
      .innerJoin(projects, eq(projects.id, memberships.projectId))
      .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)))
      .limit(1)
  )[0];

export const findProject = async (db: Db, id: string, options: { forUpdate?: boolean } = {}) => {
  const query = db.select().from(projects).where(eq(projects.id, id)).limit(1);
  return (await (options.forUpdate ? query.for('update') : query))[0];
};

/** The projects a user is a member of, in id (creation) order, after `afterId`. */
export const listProjectsOfMember = (db: Db, userId: string, afterId: string | undefined, limit: number) =>
  db
    .select({ project: projects, role: memberships.role })
    .from(memberships)
    .innerJoin(projects, eq(projects.id, memberships.projectId))
    .where(and(eq(memberships.userId, userId), afterId ? gt(memberships.projectId, afterId) : undefined))
    .orderBy(asc(memberships.projectId))
    .limit(limit);

export const insertProject = async (db: Db, project: typeof projects.$inferInsert) =>
  (await db.insert(projects).values(project).returning())[0]!;

export const updateProject = async (db: Db, id: string, patch: { name?: string; description?: string }) =>
  (await db.update(projects).set({ ...patch, updatedAt: new Date() }).where(eq(projects.id, id)).returning())[0];

/** Tasks, comments and memberships go with it through ON DELETE CASCADE; its webhooks are orphaned (see schema). */
export const deleteProject = (db: Db, id: string) => db.delete(projects).where(eq(projects.id, id));
