import { type Db, views } from '@tasklane/db';
import { and, asc, eq, getTableColumns, or, sql } from 'drizzle-orm';

export type ViewRow = typeof views.$inferSelect;

/** The order of a project's views, served by views_project_name_idx: by name regardless of case, then id (names repeat). */
const sortKey = sql<string>`lower(${views.name})`;

/** The views `userId` sees: the project's shared ones and their own. */
const visibleTo = (userId: string) => or(eq(views.shared, true), eq(views.ownerId, userId));

export const insertView = async (tx: Db, view: ViewRow): Promise<void> => {
  await tx.insert(views).values(view);
};

/** A view of the project that `userId` sees (a shared one, or their own); undefined for another member's personal view. */
export const findView = async (db: Db, projectId: string, viewId: string, userId: string, options: { forUpdate?: boolean } = {}): Promise<ViewRow | undefined> => {
  const query = db.select().from(views).where(and(eq(views.projectId, projectId), eq(views.id, viewId), visibleTo(userId))).limit(1);
  return (await (options.forUpdate ? query.for('update') : query))[0];
};

/** The views `userId` sees in the project, strictly after the cursor's (name, id), each with its `sortKey`. */
export const listViews = (db: Db, projectId: string, userId: string, after: { name: string; id: string } | undefined, limit: number) =>
  db
    .select({ ...getTableColumns(views), sortKey })
    .from(views)
    .where(and(eq(views.projectId, projectId), visibleTo(userId), after ? sql`(${sortKey}, ${views.id}) > (${after.name}, ${after.id}::uuid)` : undefined))
    .orderBy(asc(sortKey), asc(views.id))
    .limit(limit);

export const updateView = async (tx: Db, viewId: string, patch: Partial<Pick<ViewRow, 'name' | 'layout' | 'filters' | 'sort' | 'shared' | 'updatedAt'>>) =>
  (await tx.update(views).set(patch).where(eq(views.id, viewId)).returning())[0];

export const deleteView = async (tx: Db, viewId: string): Promise<void> => {
  await tx.delete(views).where(eq(views.id, viewId));
};
