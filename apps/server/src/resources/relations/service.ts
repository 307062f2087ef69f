import type { Db } from '@tasklane/db';
import type { CreateRelationInput, ListRelationsInput, Relation, RelationPathInput, TaskRelation } from '@tasklane/schemas';
import { isUniqueViolation } from '../../platform/db-errors';
import { isId, newId } from '../../platform/ids';
import { authorize } from '../policy/policy';
import { recordEvent } from '../../events/record';
import { lockTaskScope } from '../../events/scope';
import type { TasksService } from '../tasks/service';
import { DomainError, invalidField, notFound } from '../../platform/errors';
import * as store from './store';

export const toRelation = (row: store.RelationRow): Relation => ({
  id: row.id,
  type: row.type,
  taskId: row.taskId,
  relatedTaskId: row.relatedTaskId,
  createdAt: row.createdAt.toISOString(),
});

const relationExists = () => new DomainError('CONFLICT', 'The tasks are already related so (relates_to counts either way)', 'RELATION_EXISTS');
const relationCycle = () => new DomainError('CONFLICT', 'The relation would close a cycle of blocks relations', 'RELATION_CYCLE');

/**
 * A relation's event, on the task it was written from (its history, its project's webhooks and live
 * streams); one event per write. The other task's history lists it too when both are in one project
 * (the event's `relatedTaskId`); in another project it does not, as that project's members may not
 * see the event's.
 */
const relationEvent = (projectId: string, otherProjectId: string, taskId: string, relation: Relation) => ({
  projectId,
  taskId,
  ...(otherProjectId === projectId ? { relatedTaskId: relation.taskId === taskId ? relation.relatedTaskId : relation.taskId } : {}),
  resource: relation,
});

export function createRelationsService(db: Db, tasks: TasksService) {
  return {
    /**
     * One transaction, in the lock order of platform/locks.ts: the path task's project and row
     * (the tasks service's inTaskTransaction), the caller's access checked; then the other task's
     * project and row (a second lockTaskScope), so neither task can go before the commit; for `blocks`, the blocks lock,
     * then the cycle check; the insert and its record.
     */
    async create(userId: string, { id: taskId, type, taskId: otherId }: CreateRelationInput): Promise<Relation> {
      try {
        return await tasks.inTaskTransaction(taskId, { lockTask: 'key share' }, async (tx, projectId) => {
          const { task, access } = await tasks.loadTask(userId, taskId, { tx });
          authorize(access, 'relations.manage');
          if (otherId.toLowerCase() === task.id) throw invalidField(['taskId'], 'A task cannot be related to itself', 'RELATION_TO_SELF');
          // The other task's project and row, found and locked as the path task's were; what the caller may not see of it is the same 404 (loadTask).
          if (!isId(otherId) || !(await lockTaskScope(tx, otherId, { lockTask: 'key share' }))) throw notFound('Task');
          const { task: other } = await tasks.loadTask(userId, otherId, { tx });
          if (type === 'blocks') {
            await store.lockBlocksInsertion(tx);
            if (await store.blocksReach(tx, other.id, task.id)) throw relationCycle();
          }
          const row: store.RelationRow = { id: newId(), type, taskId: task.id, relatedTaskId: other.id, createdBy: userId, createdAt: new Date() };
          const relation = toRelation(row);
          await store.insertRelation(tx, row);
          await recordEvent(tx, { ...relationEvent(projectId, other.projectId, task.id, relation), actorId: userId, type: 'relation.created' });
          return relation;
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw relationExists();
        throw error;
      }
    },

    /** Any member of the task's project; relations to tasks the caller cannot see are left out. */
    async list(userId: string, { id: taskId }: ListRelationsInput): Promise<TaskRelation[]> {
      const { task } = await tasks.loadTask(userId, taskId);
      const rows = await store.listRelationsOf(db, task.id);
      const otherOf = (row: store.RelationRow) => (row.taskId === task.id ? row.relatedTaskId : row.taskId);
      const visible = await tasks.visibleSummaries(userId, rows.map(otherOf));
      return rows.flatMap((row) => {
        const other = visible.get(otherOf(row));
        return other ? [{ id: row.id, type: row.type, direction: row.taskId === task.id ? 'outgoing' : 'incoming', task: other }] : [];
      });
    },

    /**
     * From either side: EDITOR and above of the path task's project, whether or not they can see
     * the other task (the relation is the path task's too). One transaction: the task's project
     * and row, the access check, the relation deleted (404 when it does not touch the task), recorded.
     */
    async remove(userId: string, { id: taskId, relationId }: RelationPathInput): Promise<{ message: string }> {
      await tasks.inTaskTransaction(taskId, { lockTask: 'key share' }, async (tx, projectId) => {
        const { task, access } = await tasks.loadTask(userId, taskId, { tx });
        authorize(access, 'relations.manage');
        const row = isId(relationId) ? await store.deleteRelationOf(tx, task.id, relationId) : undefined;
        if (!row) throw notFound('Relation');
        await recordEvent(tx, { ...relationEvent(projectId, row.otherProjectId, task.id, toRelation(row)), actorId: userId, type: 'relation.deleted' });
      });
      return { message: 'Relation deleted' };
    },
  };
}

export type RelationsService = ReturnType<typeof createRelationsService>;
