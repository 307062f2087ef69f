import { type Db, memberships, projects } from '@tasklane/db';
import type { Role } from '@tasklane/schemas';
import { type SQL, type SQLWrapper, and, eq, inArray, sql } from 'drizzle-orm';
import { isId } from '../../platform/ids';
import { type ProjectAccess, requireReach } from './policy';
import { notFound } from '../../platform/errors';

/**
 * The role of `userId` (the caller; by default the statement's `userId` placeholder) in the project
 * `projectIdOfRow` names — a column of the outer query, written in full because drizzle leaves a
 * one-table select's columns unqualified — as a scalar subquery; null for a non-member. A subquery
 * rather than a join: the same work on PostgreSQL (prepared, planned once), but PGlite plans every
 * query anew, and a join cost it more to plan (~1.5 ms for the task read) than to run (~0.2 ms).
 */
export const callerRoleIn = (projectIdOfRow: SQL, userId: string | SQLWrapper = sql.placeholder('userId')) =>
  sql<Role | null>`(select m.role from ${memberships} as m where m.project_id = ${projectIdOfRow} and m.user_id = ${userId})`;

/** The caller's membership of a project and its owner, in one query; undefined for non-members. */
export async function findAccess(db: Db, projectId: string, userId: string) {
  const [found] = await db
    .select({ role: callerRoleIn(sql.raw('"projects"."id"'), userId), ownerId: projects.ownerId })
    .from(projects)
    .where(eq(projects.id, projectId))
    .limit(1);
  return found?.role ? { role: found.role, ownerId: found.ownerId } : undefined;
}

export const isMember = async (db: Db, projectId: string, userId: string): Promise<boolean> =>
  (
    await db
      .select({ id: memberships.id })
      .from(memberships)
      .where(and(eq(memberships.projectId, projectId), eq(memberships.userId, userId)))
      .limit(1)
  ).length > 0;

/** Which of `userIds` (well-formed ids) are members of the project. */
export const membersAmong = async (db: Db, projectId: string, userIds: readonly string[]): Promise<Set<string>> =>
  userIds.length === 0
    ? new Set()
    : new Set(
        (
          await db
            .select({ userId: memberships.userId })
            .from(memberships)
            .where(and(eq(memberships.projectId, projectId), inArray(memberships.userId, [...userIds])))
        ).map((row) => row.userId),
      );

/**
 * Who owns the project (undefined: no such project). With `lock`, its row stays locked to the end
 * of the caller's transaction, so ownership cannot move meanwhile.
 */
export async function findProjectOwner(db: Db, projectId: string, options: { lock?: boolean } = {}): Promise<string | undefined> {
  const query = db.select().from(projects).where(eq(projects.id, projectId)).limit(1);
  return (await (options.lock ? query.for('update') : query))[0]?.ownerId;
}

/**
 * The caller's access to a project; 404 for a malformed id, an unknown project or a non-member alike,
 * and for a project the request's access token does not reach.
 */
export async function requireProjectAccess(db: Db, projectId: string, userId: string): Promise<ProjectAccess> {
  requireReach(projectId);
  const row = isId(projectId) ? await findAccess(db, projectId, userId) : undefined;
  if (!row) throw notFound('Project');
  return { projectId, role: row.role, isOwner: row.ownerId === userId };
}
