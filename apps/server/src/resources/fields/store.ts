import { arrayLiteral, type Db, projectFields, taskFieldValues, tasks } from '@tasklane/db';
import { and, asc, between, eq, sql } from 'drizzle-orm';
import { nextVersionSql } from '../../platform/versions';

export type FieldRow = typeof projectFields.$inferSelect;
export type FieldValueRow = typeof taskFieldValues.$inferSelect;

/** A project's fields in order. */
export const listFields = (db: Db, projectId: string): Promise<FieldRow[]> =>
  db.select().from(projectFields).where(eq(projectFields.projectId, projectId)).orderBy(asc(projectFields.position)).execute();

export const findField = async (db: Db, projectId: string, fieldId: string): Promise<FieldRow | undefined> =>
  (await db.select().from(projectFields).where(and(eq(projectFields.projectId, projectId), eq(projectFields.id, fieldId))).limit(1).execute())[0];

/**
 * Every field of the project, locked FOR NO KEY UPDATE to the end of the caller's transaction, in
 * order: a change of a project's fields takes this first, so two such changes run one after the
 * other and each checks names, the limit and positions against the fields as they are.
 */
export const lockFields = (db: Db, projectId: string): Promise<FieldRow[]> =>
  db.select().from(projectFields).where(eq(projectFields.projectId, projectId)).orderBy(asc(projectFields.position)).for('no key update').execute();

/**
 * Locks the field's row FOR UPDATE, as a change of its options or its deletion does: it waits for
 * every task write that named the field (FOR KEY SHARE: lockTaskFields) to commit, so the values
 * read after it are all there are, and a later task write reads the field as changed.
 */
export const lockFieldForChange = (db: Db, fieldId: string) => db.select({ id: projectFields.id }).from(projectFields).where(eq(projectFields.id, fieldId)).for('update').execute();

export const insertField = (db: Db, row: FieldRow) => db.insert(projectFields).values(row).execute();

export const updateField = async (db: Db, fieldId: string, patch: Partial<Pick<FieldRow, 'name' | 'position' | 'options' | 'updatedAt'>>) =>
  (await db.update(projectFields).set(patch).where(eq(projectFields.id, fieldId)).returning())[0];

/** Moves the fields at positions `from`…`to` (inclusive) by `by` places (a new version each). */
export const shiftFields = (db: Db, projectId: string, from: number, to: number, by: 1 | -1) =>
  db
    .update(projectFields)
    .set({ position: sql`${projectFields.position} + ${by}`, updatedAt: nextVersionSql(projectFields.updatedAt) })
    .where(and(eq(projectFields.projectId, projectId), between(projectFields.position, from, to)))
    .execute();

export const deleteField = (db: Db, fieldId: string) => db.delete(projectFields).where(eq(projectFields.id, fieldId)).execute();

/** The ids of the tasks holding a value of the field, each row locked FOR NO KEY UPDATE, in id order; with `optionIds`, only those holding any of them. */
export const lockTasksWithField = async (db: Db, fieldId: string, optionIds?: readonly string[]): Promise<string[]> =>
  (
    await db
      .select({ id: tasks.id })
      .from(tasks)
      .innerJoin(taskFieldValues, eq(taskFieldValues.taskId, tasks.id))
      .where(and(eq(taskFieldValues.fieldId, fieldId), optionIds ? sql`(${taskFieldValues.value} ?| ${arrayLiteral(optionIds)}::text[] or ${taskFieldValues.sortText} = any(${arrayLiteral(optionIds)}::text[]))` : undefined))
      .orderBy(asc(tasks.id))
      .for('no key update', { of: tasks })
      .execute()
  ).map((row) => row.id);

/**
 * The sort value of each of the field's values again, after its options were reordered: a
 * select's or multi_select's sort_number is the place of its (first) option.
 */
export const resortOptionValues = (db: Db, fieldId: string, optionIds: readonly string[]) =>
  db.execute(sql`
    update ${taskFieldValues} set sort_number = (
      select min(place) from unnest(${arrayLiteral(optionIds)}::text[]) with ordinality as option(id, place)
      where ${taskFieldValues.value} ? option.id or ${taskFieldValues.sortText} = option.id
    )
    where ${taskFieldValues.fieldId} = ${fieldId}::uuid`);


/** Every value of the field gone (its deletion). */
export const clearValues = (db: Db, fieldId: string) => db.delete(taskFieldValues).where(eq(taskFieldValues.fieldId, fieldId)).execute();

/**
 * The deleted options taken off the field's values: a select's value holding one is removed, a
 * multi_select's loses them (and is removed when none is left).
 */
export async function removeOptions(db: Db, fieldId: string, optionIds: readonly string[]): Promise<void> {
  const removed = sql`${arrayLiteral(optionIds)}::text[]`;
  await db.execute(sql`
    update ${taskFieldValues} set value = ${taskFieldValues.value} - ${removed}
    where ${taskFieldValues.fieldId} = ${fieldId}::uuid and jsonb_typeof(${taskFieldValues.value}) = 'array' and ${taskFieldValues.value} ?| ${removed}`);
  await db.execute(sql`
    delete from ${taskFieldValues}
    where ${taskFieldValues.fieldId} = ${fieldId}::uuid
      and (${taskFieldValues.sortText} = any(${removed}) or ${taskFieldValues.value} = '[]'::jsonb)`);
}
