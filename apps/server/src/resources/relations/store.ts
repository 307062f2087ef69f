import { type Db, taskRelations } from '@tasklane/db';
import { and, asc, eq, getTableColumns, or, sql } from 'drizzle-orm';
import { RELATION_BLOCKS_LOCK_CLASS } from '../../platform/locks';
import { rowsOf } from '../../platform/sql';

export type RelationRow = typeof taskRelations.$inferSelect;

/**
 * Makes the caller's transaction the only one checking and inserting a `blocks` relation until it
 * ends (platform/locks.ts): the cycle check then sees every `blocks` relation that can commit
 * before this one, so two inserts closing a cycle together cannot both pass it.
 */
export const lockBlocksInsertion = (tx: Db) => tx.execute(sql`select pg_advisory_xact_lock(${RELATION_BLOCKS_LOCK_CLASS}, 0)`);

/**
 * Whether `from` already blocks `to`, directly or through a chain of `blocks` relations: then
 * `to` blocking `from` would close a cycle. A walk from `from` along task_relations_outgoing_key;
 * UNION (not UNION ALL) drops a task already reached, so the walk ends even on a cycle.
 */
export async function blocksReach(db: Db, from: string, to: string): Promise<boolean> {
  const [row] = rowsOf<{ reaches: boolean }>(
    await db.execute(sql`
      with recursive reached(task_id) as (
        select ${from}::uuid
        union
        select relation.related_task_id
        from task_relations as relation join reached on relation.task_id = reached.task_id
        where relation.type = 'blocks'
      )
      select exists (select 1 from reached where task_id = ${to}::uuid) as reaches`),
  );
  return row?.reaches === true;
}

/** Inserts a relation; one already there (the same, or `relates_to` the other way) fails with PostgreSQL's unique violation. */
export const insertRelation = (db: Db, row: RelationRow) => db.insert(taskRelations).values(row).execute();

/** A task's relations, both ways, oldest first (task_relations_outgoing_key and task_relations_incoming_idx). */
export const listRelationsOf = (db: Db, taskId: string): Promise<RelationRow[]> =>
  db
    .select()
    .from(taskRelations)
    .where(or(eq(taskRelations.taskId, taskId), eq(taskRelations.relatedTaskId, taskId)))
    .orderBy(asc(taskRelations.createdAt), asc(taskRelations.id));

/**
 * Deletes a relation of the task (either side), returned with the project of its other task;
 * undefined when the task has no relation of that id.
 */
export const deleteRelationOf = async (db: Db, taskId: string, relationId: string) =>
  (
    await db
      .delete(taskRelations)
      .where(and(eq(taskRelations.id, relationId), or(eq(taskRelations.taskId, taskId), eq(taskRelations.relatedTaskId, taskId))))
      .returning({
        ...getTableColumns(taskRelations),
        otherProjectId: sql<string>`(select other.project_id from tasks as other where other.id = (case when "task_relations"."task_id" = ${taskId}::uuid then "task_relations"."related_task_id" else "task_relations"."task_id" end))`,
      })
  )[0];
