import type { Db } from '@tasklane/db';
import { isId } from './lib/ids';
import type { ProjectAccess } from './policy';
import { findAccess } from './projects/store';
import { notFound } from './errors';

/** The caller's access to a project; 404 for a malformed id, an unknown project or a non-member alike. */
export async function requireProjectAccess(db: Db, projectId: string, userId: string): Promise<ProjectAccess> {
  const row = isId(projectId) ? await findAccess(db, projectId, userId) : undefined;
  if (!row) throw notFound('Project');
  return { projectId, role: row.role, isOwner: row.ownerId === userId };
}
