import { type Db, labels } from '@tasklane/db';
import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import { type ChangeEvent, recordEvent } from '../../events/record';

export type LabelRow = typeof labels.$inferSelect;

/** The order of a project's labels, served by labels_project_name_key: by name regardless of case (names are unique so). */
const sortKey = sql<string>`lower(${labels.name})`;

/**
 * Inserts a new label and records its creation, in the caller's transaction. A name the project
 * already has (in any case) fails with PostgreSQL's unique violation, which the service answers as
 * 409: the unique index decides, so two concurrent creates cannot both succeed.
 */
export const insertLabel = async (tx: Db, label: LabelRow, created: ChangeEvent): Promise<void> => {
  await tx.insert(labels).values(label);
  await recordEvent(tx, created);
};

export const findLabel = async (db: Db, projectId: string, labelId: string, options: { forUpdate?: boolean } = {}): Promise<LabelRow | undefined> => {
  const query = db.select().from(labels).where(and(eq(labels.projectId, projectId), eq(labels.id, labelId))).limit(1);
  return (await (options.forUpdate ? query.for('update') : query))[0];
};

/**
 * A project's labels by name regardless of case, strictly after the cursor's key; each row with its
 * `sortKey`, the name lower-cased as the database does it (and so as the index orders it).
 */
export const listLabels = (db: Db, projectId: string, afterName: string | undefined, limit: number) =>
  db
    .select({ ...getTableColumns(labels), sortKey })
    .from(labels)
    .where(and(eq(labels.projectId, projectId), afterName === undefined ? undefined : sql`${sortKey} > ${afterName}`))
    .orderBy(asc(sortKey))
    .limit(limit);

export const updateLabel = async (db: Db, labelId: string, patch: Partial<Pick<LabelRow, 'name' | 'color' | 'updatedAt'>>) =>
  (await db.update(labels).set(patch).where(eq(labels.id, labelId)).returning())[0];

export const deleteLabel = async (db: Db, projectId: string, labelId: string): Promise<LabelRow | undefined> =>
  (await db.delete(labels).where(and(eq(labels.projectId, projectId), eq(labels.id, labelId))).returning())[0];
