import type { Db } from '@tasklane/db';
import { isId } from './lib/ids';
import { type ProjectAccess, requireReach } from './policy';
import { findAccess } from './projects/store';
import { notFound } from './errors';

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
