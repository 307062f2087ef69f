import type { Db } from '@tasklane/db';
import { type CreateLabelInput, DEFAULT_LABEL_COLOR, type Label, type LabelPathInput, type ListLabelsInput, type UpdateLabelInput } from '@tasklane/schemas';
import { requireProjectAccess } from '../policy/access';
import { isUniqueViolation } from '../../platform/db-errors';
import { isId, newId } from '../../platform/ids';
import { cursorChecks, decodeCursor, type Page, pageSize, toPage } from '../../platform/paging';
import { nextVersion, requireVersion } from '../../platform/versions';
import { authorize } from '../policy/policy';
import { recordEvent } from '../../events/record';
import { changedFields } from '../../events/changes';
import { transactionIn } from '../../events/scope';
import { removeLabelFromTasks } from '../tasks/service';
import { DomainError, notFound } from '../../platform/errors';
import * as store from './store';

export const toLabel = (row: store.LabelRow): Label => ({
  id: row.id,
  projectId: row.projectId,
  name: row.name,
  color: row.color,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const labelExists = (name: string) => new DomainError('CONFLICT', `The project already has a label named "${name}" (names are compared regardless of case)`, 'LABEL_EXISTS');

/** The write, with a name the project already has (in any case) answered as 409 LABEL_EXISTS. */
async function uniquelyNamed<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw labelExists(name);
    throw error;
  }
}

export function createLabelsService(db: Db) {
  /** The project for a label manager (EDITOR and above); 404 for non-members and malformed label ids. */
  async function requireManager(userId: string, { id: projectId, labelId }: LabelPathInput): Promise<string> {
    authorize(await requireProjectAccess(db, projectId, userId), 'labels.manage');
    if (!isId(labelId)) throw notFound('Label');
    return projectId.toLowerCase();
  }

  return {
    /** Every member; by name regardless of case, paged by cursor. */
    async list(userId: string, { id: projectId, ...query }: ListLabelsInput): Promise<Page<Label>> {
      await requireProjectAccess(db, projectId, userId);
      const limit = pageSize(query.limit);
      const [afterName] = decodeCursor(query.cursor, [cursorChecks.text]) ?? [];
      const rows = await store.listLabels(db, projectId, typeof afterName === 'string' ? afterName : undefined, limit + 1);
      return toPage(rows, limit, toLabel, (row) => [row.sortKey]);
    },

    async get(userId: string, { id: projectId, labelId }: LabelPathInput): Promise<Label> {
      await requireProjectAccess(db, projectId, userId);
      const row = isId(labelId) ? await store.findLabel(db, projectId, labelId) : undefined;
      if (!row) throw notFound('Label');
      return toLabel(row);
    },

    async create(userId: string, { id, name, color }: CreateLabelInput): Promise<Label> {
      authorize(await requireProjectAccess(db, id, userId), 'labels.manage');
      const now = new Date();
      const projectId = id.toLowerCase();
      const row: store.LabelRow = { id: newId(), projectId, name, color: color ?? DEFAULT_LABEL_COLOR, createdAt: now, updatedAt: now };
      const label = toLabel(row);
      await uniquelyNamed(name, () =>
        transactionIn(db, { projectId }, 'Project', (tx) => store.insertLabel(tx, row, { projectId, actorId: userId, type: 'label.created', resource: label })),
      );
      return label;
    },

    async update(userId: string, { name, color, ...path }: UpdateLabelInput, versions?: Date[]): Promise<Label> {
      const projectId = await requireManager(userId, path);
      return uniquelyNamed(name ?? '', () =>
        transactionIn(db, { projectId }, 'Label', async (tx) => {
          const before = requireVersion(await store.findLabel(tx, projectId, path.labelId, { forUpdate: true }), versions, 'Label');
          const patch = { ...(name !== undefined ? { name } : {}), ...(color !== undefined ? { color } : {}) };
          const changes = changedFields(toLabel(before), toLabel({ ...before, ...patch }), ['name', 'color']);
          if (!changes) return toLabel(before);
          const row = await store.updateLabel(tx, before.id, { ...patch, updatedAt: nextVersion(before.updatedAt) });
          if (!row) throw notFound('Label');
          const after = toLabel(row);
          await recordEvent(tx, { projectId, actorId: userId, type: 'label.updated', resource: after, changes });
          return after;
        }),
      );
    },

    /**
     * Takes the label off its tasks (each a recorded task update) and deletes it, in one
     * transaction. The label's row is locked first (the DELETE): a task write naming it waits for
     * the deletion and then finds it gone (tasks/store.ts), so no task keeps a deleted label.
     */
    async remove(userId: string, path: LabelPathInput, versions?: Date[]): Promise<{ message: string }> {
      const projectId = await requireManager(userId, path);
      await transactionIn(db, { projectId }, 'Label', async (tx) => {
        if (versions) requireVersion(await store.findLabel(tx, projectId, path.labelId, { forUpdate: true }), versions, 'Label');
        const label = await store.deleteLabel(tx, projectId, path.labelId);
        if (!label) throw notFound('Label');
        await removeLabelFromTasks(tx, projectId, label.id, userId);
        await recordEvent(tx, { projectId, actorId: userId, type: 'label.deleted', resource: toLabel(label) });
      });
      return { message: 'Label deleted' };
    },
  };
}

export type LabelsService = ReturnType<typeof createLabelsService>;
