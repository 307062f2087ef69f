import type { Db } from '@tasklane/db';
import {
  type CreateProjectInput,
  type Project,
  type ProjectDetail,
  type Role,
  type TransferOwnershipInput,
  type UpdateProjectInput,
} from '@tasklane/schemas';
import { isMember, requireProjectAccess } from '../policy/access';
import { forgetProjectActivity } from '../activity/service';
import { detachProjectWebhooks } from '../webhooks/service';
import { isId, newId } from '../../platform/ids';
import { decodeIdCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { nextVersion, requireVersion } from '../../platform/versions';
import { addOwnerMembership, makeOwnerAdmin } from '../members/service';
import { addDefaultStates } from '../states/service';
import { authorize, currentGrant, grantedProjects, requireReach } from '../policy/policy';
import { recordEvent } from '../../events/record';
import { changedFields } from '../../events/changes';
import { DomainError, notFound } from '../../platform/errors';
import * as store from './store';

/** The project as events and history report it: the same for every reader, so without a caller's role. */
export const projectResource = (row: store.ProjectRow): Omit<Project, 'role'> => ({
  id: row.id,
  key: row.key,
  name: row.name,
  description: row.description,
  ownerId: row.ownerId,
  estimateUnit: row.estimateUnit,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** Every project response carries the caller's role, so a client can show only the controls it may use. */
export const toProject = (row: store.ProjectRow, role: Role): Project => ({ ...projectResource(row), role });

/**
 * `requested` in upper case, if no project but `projectId` has or had it (409 PROJECT_KEY_TAKEN):
 * a key stays with its project for good, so an old task key never finds another project's task.
 * Under store.lockProjectKeys, so no other claim comes between the check and the caller's claim.
 */
async function requireFreeKey(tx: Db, requested: string, projectId?: string): Promise<string> {
  const key = requested.toUpperCase();
  const owner = await store.findKeyOwner(tx, key);
  if (owner !== undefined && owner !== projectId) throw new DomainError('CONFLICT', `The project key ${key} is taken`, 'PROJECT_KEY_TAKEN');
  return key;
}

/** Whether no project has or had `key` (upper case). */
const keyIsFree = async (handle: Db, key: string): Promise<boolean> => (await store.findKeyOwner(handle, key)) === undefined;

export function createProjectsService(db: Db) {
  return {
    async list(userId: string, query: { limit?: number; cursor?: string }): Promise<Page<Project>> {
      const limit = pageSize(query.limit);
      const rows = await store.listProjectsOfMember(db, userId, decodeIdCursor(query.cursor), limit + 1, grantedProjects(currentGrant()));
      return toPage(rows, limit, ({ project, role }) => toProject(project, role), ({ project }) => [project.id]);
    },

    /**
     * The creator becomes owner and an ADMIN member, and the project gets the default states, in one
     * transaction; its key is the one asked for, or derived from its name. `preferredKey` (an
     * import's: the key the project had on another server) is taken when free, else the key is derived.
     */
    async create(userId: string, input: CreateProjectInput, options: { preferredKey?: string } = {}): Promise<Project> {
      const row = await db.transaction(async (tx) => {
        await store.lockProjectKeys(tx);
        const preferred = options.preferredKey?.toUpperCase();
        const key = input.key ? await requireFreeKey(tx, input.key) : preferred && (await keyIsFree(tx, preferred)) ? preferred : await store.freeDerivedKey(tx, input.name);
        const project = await store.insertProject(tx, {
          id: newId(),
          name: input.name,
          description: input.description ?? '',
          ownerId: userId,
          key,
        });
        await store.claimKey(tx, project.id, key);
        await addOwnerMembership(tx, project.id, userId);
        await addDefaultStates(tx, project.id);
        await recordEvent(tx, { projectId: project.id, actorId: userId, type: 'project.created', resource: projectResource(project) });
        return project;
      });
      return toProject(row, 'ADMIN');
    },

    /** Whether no project has or had `key` (any case): a project made now could have it. */
    keyIsFree: (key: string): Promise<boolean> => keyIsFree(db, key.toUpperCase()),

    /** The project with its task counts by state key, so a client needs no second call. */
    async get(userId: string, projectId: string): Promise<ProjectDetail> {
      requireReach(projectId);
      // Membership, project and counts in one query: a non-member gets the same 404 as an unknown id.
      const found = isId(projectId) ? await store.findProjectForMember(db, projectId, userId) : undefined;
      if (!found) throw notFound('Project');
      return { ...toProject(found.project, found.role), taskCounts: found.taskCounts, storageBytes: found.storageBytes, estimateTotals: found.estimateTotals };
    },

    /** `versions` comes from If-Match: checked under the row lock, so the check and the write are one. */
    async update(userId: string, { id, ...patch }: UpdateProjectInput, versions?: Date[]): Promise<Project> {
      const access = await requireProjectAccess(db, id, userId);
      authorize(access, 'project.update');
      const row = await db.transaction(async (tx) => {
        const before = requireVersion(await store.findProject(tx, id, { lock: 'no key update' }), versions, 'Project');
        const key = patch.key?.toUpperCase();
        if (key !== undefined && key !== before.key) {
          await store.lockProjectKeys(tx);
          // A key the project had before is its own again; any other project's (current or former) is taken.
          await requireFreeKey(tx, key, id);
          await store.claimKey(tx, id, key);
        }
        const after = await store.updateProject(tx, id, { ...patch, ...(key !== undefined ? { key } : {}), updatedAt: nextVersion(before.updatedAt) });
        if (!after) throw notFound('Project');
        const changes = changedFields(projectResource(before), projectResource(after), ['name', 'description', 'key', 'estimateUnit']);
        if (changes) await recordEvent(tx, { projectId: id, actorId: userId, type: 'project.updated', resource: projectResource(after), changes });
        return after;
      });
      return toProject(row, access.role);
    },

    async remove(userId: string, projectId: string, versions?: Date[]): Promise<{ message: string }> {
      authorize(await requireProjectAccess(db, projectId, userId), 'project.delete');
      await db.transaction(async (tx) => {
        // FOR UPDATE, first: it waits for the writes in flight in the project and holds off later ones (the lock order of platform/locks.ts).
        const project = requireVersion(await store.findProject(tx, projectId, { lock: 'update' }), versions, 'Project');
        await forgetProjectActivity(tx, projectId);
        await detachProjectWebhooks(tx, projectId);
        await store.deleteProject(tx, projectId);
        // Last: the event is the transaction's last statement (events/record.ts).
        await recordEvent(tx, { projectId, actorId: userId, type: 'project.deleted', resource: projectResource(project) });
      });
      return { message: 'Project deleted' };
    },

    /** Owner only: an existing member becomes owner (and ADMIN); the former owner stays an ADMIN member. */
    async transferOwnership(userId: string, { id: projectId, userId: newOwnerId }: TransferOwnershipInput): Promise<Project> {
      authorize(await requireProjectAccess(db, projectId, userId), 'project.transferOwnership');
      const row = await db.transaction(async (tx) => {
        const before = await store.findProject(tx, projectId, { lock: 'no key update' });
        if (!before) throw notFound('Project');
        // Checked again under the lock: a concurrent transfer may have moved ownership already.
        if (before.ownerId !== userId) throw new DomainError('FORBIDDEN', 'Only the owner may transfer ownership');
        if (!isId(newOwnerId) || !(await isMember(tx, projectId, newOwnerId))) {
          throw new DomainError('BAD_REQUEST', 'The new owner must be a member of the project', 'NOT_A_MEMBER');
        }
        await makeOwnerAdmin(tx, projectId, newOwnerId);
        const after = await store.updateProject(tx, projectId, { ownerId: newOwnerId, updatedAt: nextVersion(before.updatedAt) });
        if (!after) throw notFound('Project');
        const changes = changedFields(projectResource(before), projectResource(after), ['ownerId']);
        if (changes) await recordEvent(tx, { projectId, actorId: userId, type: 'project.updated', resource: projectResource(after), changes });
        return after;
      });
      return toProject(row, 'ADMIN');
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
