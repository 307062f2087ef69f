import type { Db } from '@tasklane/db';
import type { CreateProjectInput, Project, Role, UpdateProjectInput } from '@tasklane/schemas';
import { requireProjectAccess } from '../access';
import { changedFields, recordActivity } from '../activity/service';
import { deleteProjectActivity } from '../activity/store';
import { isId, newId } from '../lib/ids';
import { decodeCursor, type Page, pageSize, toPage } from '../lib/paging';
import { insertMember } from '../members/store';
import { authorize } from '../policy';
import { notFound } from '../trpc/errors';
import * as store from './store';

/** The project as events and history report it: the same for every reader, so without a caller's role. */
export const projectResource = (row: store.ProjectRow): Omit<Project, 'role'> => ({
  id: row.id,
  name: row.name,
  description: row.description,
  ownerId: row.ownerId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** Every project response carries the caller's role, so a client can show only the controls it may use. */
export const toProject = (row: store.ProjectRow, role: Role): Project => ({ ...projectResource(row), role });

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
        await recordActivity(tx, { projectId: project.id, actorId: userId, type: 'project.created', resource: projectResource(project) });
        return project;
      });
      return toProject(row, 'ADMIN');
    },

    async get(userId: string, projectId: string): Promise<Project> {
      // Membership and project in one query: a non-member gets the same 404 as an unknown id.
      const found = isId(projectId) ? await store.findProjectForMember(db, projectId, userId) : undefined;
      if (!found) throw notFound('Project');
      return toProject(found.project, found.role);
    },

    async update(userId: string, { id, ...patch }: UpdateProjectInput): Promise<Project> {
      const access = await requireProjectAccess(db, id, userId);
      authorize(access, 'project.update');
      const row = await db.transaction(async (tx) => {
        const before = await store.findProject(tx, id, { forUpdate: true });
        const after = before && (await store.updateProject(tx, id, patch));
        if (!before || !after) throw notFound('Project');
        const changes = changedFields(projectResource(before), projectResource(after), ['name', 'description']);
        if (changes) await recordActivity(tx, { projectId: id, actorId: userId, type: 'project.updated', resource: projectResource(after), changes });
        return after;
      });
      return toProject(row, access.role);
    },

    async remove(userId: string, projectId: string): Promise<{ message: string }> {
      authorize(await requireProjectAccess(db, projectId, userId), 'project.delete');
      await db.transaction(async (tx) => {
        const project = await store.findProject(tx, projectId, { forUpdate: true });
        if (!project) throw notFound('Project');
        await deleteProjectActivity(tx, projectId);
        await recordActivity(tx, { projectId, actorId: userId, type: 'project.deleted', resource: projectResource(project) });
        await store.deleteProject(tx, projectId);
      });
      return { message: 'Project deleted' };
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
