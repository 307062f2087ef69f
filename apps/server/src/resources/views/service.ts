import type { Db } from '@tasklane/db';
import type { CreateViewInput, FieldChange, ListViewsInput, UpdateViewInput, View, ViewPathInput } from '@tasklane/schemas';
import { changedFields } from '../../events/changes';
import { recordEvent } from '../../events/record';
import { transactionIn } from '../../events/scope';
import { DomainError, notFound } from '../../platform/errors';
import { isId, newId } from '../../platform/ids';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { nextVersion, requireVersion } from '../../platform/versions';
import { requireProjectAccess } from '../policy/access';
import { authorize, type ProjectAccess } from '../policy/policy';
import { fieldQueryOf, findFieldsIn } from '../tasks/field-values';
import * as store from './store';

export const toView = (row: store.ViewRow): View => ({
  id: row.id,
  projectId: row.projectId,
  name: row.name,
  layout: row.layout as View['layout'],
  filters: row.filters,
  sort: row.sort,
  shared: row.shared,
  ownerId: row.ownerId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/**
 * A view's custom field filters and field sort, checked as the task list checks them (the field is
 * one of the project's, the value one its type reads), in the write's transaction. The list names
 * the query's key; a view names it under `filters` (or `sort`).
 */
async function checkFieldQuery(tx: Db, projectId: string, filters: Record<string, unknown>, sort: string | null | undefined): Promise<void> {
  try {
    await fieldQueryOf({ ...filters, ...(sort ? { sort } : {}) }, (ids) => findFieldsIn(tx, { projectId }, ids));
  } catch (error) {
    if (!(error instanceof DomainError) || !error.issues) throw error;
    const issues = error.issues.map((issue) => ({ ...issue, path: issue.path[0] === 'sort' ? issue.path : ['filters', ...issue.path] }));
    throw new DomainError(error.code, error.message, error.reason, error.headers, issues);
  }
}

/**
 * Who may change a view they see: their own personal view, always; their own shared one while they
 * may share views (EDITOR and up); another member's shared one, ADMIN and the owner. Making a view
 * shared needs `views.share` as well.
 */
function authorizeChange(access: ProjectAccess, view: store.ViewRow, userId: string, makesShared: boolean): void {
  if (view.shared && view.ownerId !== userId) authorize(access, 'views.manageShared');
  else if (view.shared || makesShared) authorize(access, 'views.share');
}

/**
 * The event of a write to a view, recorded only when the view is or was shared: a personal view is
 * its owner's preference, and its name does not belong in the project's history, webhooks or other
 * members' live streams.
 */
const concernsTeam = (before: store.ViewRow | undefined, after: store.ViewRow | undefined) => before?.shared === true || after?.shared === true;

function changesOf(before: View, after: View): Record<string, FieldChange> | null {
  const changes = changedFields(before, after, ['name', 'layout', 'sort', 'shared']) ?? {};
  if (JSON.stringify(before.filters) !== JSON.stringify(after.filters)) changes.filters = { old: before.filters, new: after.filters };
  return Object.keys(changes).length > 0 ? changes : null;
}

export function createViewsService(db: Db) {
  /** The caller's access, and the view's ids checked: 404 for non-members and malformed view ids. */
  async function accessFor(userId: string, { id: projectId, viewId }: ViewPathInput): Promise<{ access: ProjectAccess; projectId: string }> {
    const access = await requireProjectAccess(db, projectId, userId);
    if (!isId(viewId)) throw notFound('View');
    return { access, projectId: projectId.toLowerCase() };
  }

  return {
    /** The project's shared views and the caller's own, by name regardless of case, paged by cursor. Every member. */
    async list(userId: string, { id: projectId, ...query }: ListViewsInput): Promise<Page<View>> {
      await requireProjectAccess(db, projectId, userId);
      const limit = pageSize(query.limit);
      const [name, id] = decodeCursor(query.cursor, [cursorChecks.text, cursorChecks.id]) ?? [];
      const after = typeof name === 'string' && typeof id === 'string' ? { name, id } : undefined;
      const rows = await store.listViews(db, projectId.toLowerCase(), userId, after, limit + 1);
      return toPage(rows, limit, toView, (row) => [row.sortKey, row.id]);
    },

    /** A shared view, or the caller's own; another member's personal view is a 404, as if it did not exist. */
    async get(userId: string, path: ViewPathInput): Promise<View> {
      const { projectId } = await accessFor(userId, path);
      const row = await store.findView(db, projectId, path.viewId, userId);
      if (!row) throw notFound('View');
      return toView(row);
    },

    /** Any member makes a personal view; a shared one needs `views.share` (EDITOR and up). */
    async create(userId: string, { id, name, layout, filters = {}, sort = null, shared = false }: CreateViewInput): Promise<View> {
      const access = await requireProjectAccess(db, id, userId);
      if (shared) authorize(access, 'views.share');
      const projectId = id.toLowerCase();
      const now = new Date();
      const row: store.ViewRow = { id: newId(), projectId, ownerId: userId, name, layout, filters, sort, shared, createdAt: now, updatedAt: now };
      await transactionIn(db, { projectId }, 'Project', async (tx) => {
        await checkFieldQuery(tx, projectId, filters, sort);
        await store.insertView(tx, row);
        if (concernsTeam(undefined, row)) await recordEvent(tx, { projectId, actorId: userId, type: 'view.created', resource: toView(row) });
      });
      return toView(row);
    },

    async update(userId: string, { name, layout, filters, sort, shared, ...path }: UpdateViewInput, versions?: Date[]): Promise<View> {
      const { access, projectId } = await accessFor(userId, path);
      return transactionIn(db, { projectId }, 'View', async (tx) => {
        const before = requireVersion(await store.findView(tx, projectId, path.viewId, userId, { forUpdate: true }), versions, 'View');
        authorizeChange(access, before, userId, shared === true);
        const patch = {
          ...(name !== undefined ? { name } : {}),
          ...(layout !== undefined ? { layout } : {}),
          ...(filters !== undefined ? { filters } : {}),
          ...(sort !== undefined ? { sort } : {}),
          ...(shared !== undefined ? { shared } : {}),
        };
        const changes = changesOf(toView(before), toView({ ...before, ...patch }));
        if (!changes) return toView(before);
        if (filters !== undefined || sort !== undefined) await checkFieldQuery(tx, projectId, filters ?? before.filters, sort === undefined ? before.sort : sort);
        const row = await store.updateView(tx, before.id, { ...patch, updatedAt: nextVersion(before.updatedAt) });
        if (!row) throw notFound('View');
        const after = toView(row);
        if (concernsTeam(before, row)) await recordEvent(tx, { projectId, actorId: userId, type: 'view.updated', resource: after, changes });
        return after;
      });
    },

    async remove(userId: string, path: ViewPathInput, versions?: Date[]): Promise<{ message: string }> {
      const { access, projectId } = await accessFor(userId, path);
      await transactionIn(db, { projectId }, 'View', async (tx) => {
        const view = requireVersion(await store.findView(tx, projectId, path.viewId, userId, { forUpdate: true }), versions, 'View');
        authorizeChange(access, view, userId, false);
        await store.deleteView(tx, view.id);
        if (concernsTeam(view, undefined)) await recordEvent(tx, { projectId, actorId: userId, type: 'view.deleted', resource: toView(view) });
      });
      return { message: 'View deleted' };
    },
  };
}

export type ViewsService = ReturnType<typeof createViewsService>;
