import type { Db } from '@tasklane/db';
import type { CreateProjectInput, Project, Role, UpdateProjectInput } from '@tasklane/schemas';
import { requireProjectAccess } from '../access';
import { newId } from '../lib/ids';
import { decodeCursor, type Page, pageSize, toPage } from '../lib/paging';
import { insertMember } from '../members/store';
import { authorize } from '../policy';
import { notFound } from '../trpc/errors';
import * as store from './store';

/** Every project response carries the caller's role, so a client can show only the controls it may use. */
export const toProject = (row: store.ProjectRow, role: Role): Project => ({
  id: row.id,
  name: row.name,
  description: row.description,
  ownerId: row.ownerId,
  role,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export function createProjectsService(db: Db) {
  return {
    async list(userId: string, query: { limit?: string; cursor?: string }): Promise<Page<Project>> {
      const limit = pageSize(query.limit);
      const [afterId] = decodeCursor(query.cursor, 1) ?? [];
      const rows = await store.listProjectsOfMember(db, userId, typeof afterId === 'string' ? afterId : undefined, limit + 1);
      return toPage(rows, limit, ({ project, role }) => toProject(project, role), ({ project }) => [project.id]);
    },

    /** The creator becomes owner and an ADMIN member, in one transaction. */
    async create(userId: string, input: CreateProjectInput): Promise<Project> {
      const row = await db.transaction(async (tx) => {
        const project = await store.insertProject(tx, {
          id: newId(),
          name: input.name,
          description: input.description ?? '',
          ownerId: userId,
        });
        await insertMember(tx, { id: newId(), projectId: project.id, userId, role: 'ADMIN' });
        return project;
      });
      return toProject(row, 'ADMIN');
    },

    async get(userId: string, projectId: string): Promise<Project> {
      const access = await requireProjectAccess(db, projectId, userId);
      const row = await store.findProject(db, projectId);
      if (!row) throw notFound('Project');
      return toProject(row, access.role);
    },

    async update(userId: string, { id, ...patch }: UpdateProjectInput): Promise<Project> {
      const access = await requireProjectAccess(db, id, userId);
      authorize(access, 'project.update');
      const row = await store.updateProject(db, id, patch);
      if (!row) throw notFound('Project');
      return toProject(row, access.role);
    },

    async remove(userId: string, projectId: string): Promise<{ message: string }> {
      authorize(await requireProjectAccess(db, projectId, userId), 'project.delete');
      await store.deleteProject(db, projectId);
      return { message: 'Project deleted' };
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
