import type { Db } from '@tasklane/db';
import {
  type CreateFieldInput,
  DEFAULT_OPTION_COLOR,
  type Field,
  type FieldOption,
  type FieldPathInput,
  FIELDS_MAX,
  type ListFieldsInput,
  type UpdateFieldInput,
} from '@tasklane/schemas';
import { requireProjectAccess } from '../policy/access';
import { isUniqueViolation } from '../../platform/db-errors';
import { isId, newId } from '../../platform/ids';
import { nextVersion, requireVersion } from '../../platform/versions';
import { authorize } from '../policy/policy';
import { recordEvent } from '../../events/record';
import { changedFields } from '../../events/changes';
import { transactionIn } from '../../events/scope';
import { changeFieldValuesOf } from '../tasks/service';
import { DomainError, invalidField, notFound } from '../../platform/errors';
import * as store from './store';

export const toField = (row: store.FieldRow): Field => ({
  id: row.id,
  projectId: row.projectId,
  name: row.name,
  type: row.type,
  options: row.options,
  position: row.position,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const fieldExists = (name: string) => new DomainError('CONFLICT', `The project already has a field named "${name}"`, 'FIELD_EXISTS');

const hasOptions = (type: Field['type']) => type === 'select' || type === 'multi_select';

/** Refuses (400 naming `options`) two options of one name, regardless of case. */
function requireDistinctNames(options: readonly { name: string }[]): void {
  const names = options.map((option) => option.name.toLowerCase());
  const twice = names.findIndex((name, index) => names.indexOf(name) !== index);
  if (twice >= 0) throw invalidField(['options', twice, 'name'], `Two options are named "${options[twice]!.name}"`);
}

export function createFieldsService(db: Db) {
  /**
   * A change of one of the project's fields, in one transaction: the project's row, the caller's
   * access ('fields.manage'), every field of the project locked (store.lockFields) and the one the
   * path names (404 when none) locked FOR UPDATE, so the task writes that name it have committed.
   */
  async function changing<T>(userId: string, { id: projectId, fieldId }: FieldPathInput, change: (tx: Db, fields: store.FieldRow[], field: store.FieldRow) => Promise<T>): Promise<T> {
    authorize(await requireProjectAccess(db, projectId, userId), 'fields.manage');
    const project = projectId.toLowerCase();
    return transactionIn(db, { projectId: project }, 'Project', async (tx) => {
      const fields = await store.lockFields(tx, project);
      const field = isId(fieldId) ? fields.find((candidate) => candidate.id === fieldId.toLowerCase()) : undefined;
      if (!field) throw notFound('Field');
      await store.lockFieldForChange(tx, field.id);
      return change(tx, fields, field);
    });
  }

  return {
    /** Every member; the project's fields in order. */
    async list(userId: string, { id: projectId }: ListFieldsInput): Promise<Field[]> {
      await requireProjectAccess(db, projectId, userId);
      return (await store.listFields(db, projectId.toLowerCase())).map(toField);
    },

    /** Every member; one field. */
    async get(userId: string, { id: projectId, fieldId }: FieldPathInput): Promise<Field> {
      await requireProjectAccess(db, projectId, userId);
      const row = isId(fieldId) ? await store.findField(db, projectId.toLowerCase(), fieldId.toLowerCase()) : undefined;
      if (!row) throw notFound('Field');
      return toField(row);
    },

    /** Appended to the project's fields; its options (select, multi_select only) each get an id. */
    async create(userId: string, { id, name, type, options = [] }: CreateFieldInput): Promise<Field> {
      authorize(await requireProjectAccess(db, id, userId), 'fields.manage');
      if (!hasOptions(type) && options.length > 0) throw invalidField(['options'], `A ${type} field has no options`);
      requireDistinctNames(options);
      const projectId = id.toLowerCase();
      try {
        return await transactionIn(db, { projectId }, 'Project', async (tx) => {
          const fields = await store.lockFields(tx, projectId);
          if (fields.some((field) => field.name.toLowerCase() === name.toLowerCase())) throw fieldExists(name);
          if (fields.length >= FIELDS_MAX) throw new DomainError('CONFLICT', `A project has at most ${FIELDS_MAX} fields`, 'FIELD_LIMIT');
          const now = new Date();
          const row: store.FieldRow = {
            id: newId(),
            projectId,
            name,
            type,
            options: options.map((option) => ({ id: newId(), name: option.name, color: option.color ?? DEFAULT_OPTION_COLOR })),
            position: fields.length,
            createdAt: now,
            updatedAt: now,
          };
          await store.insertField(tx, row);
          const field = toField(row);
          await recordEvent(tx, { projectId, actorId: userId, type: 'field.created', resource: field });
          return field;
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw fieldExists(name);
        throw error;
      }
    },

    /**
     * Name, position and options (all of them, in order: one with an id keeps it, one without is
     * new, one left out is deleted and cleared from every task, each such task's change recorded).
     */
    async update(userId: string, { name, position, options, ...path }: UpdateFieldInput, versions?: Date[]): Promise<Field> {
      try {
        return await changing(userId, path, async (tx, fields, field) => {
          const before = requireVersion(field, versions, 'Field');
          if (name !== undefined && fields.some((other) => other.id !== before.id && other.name.toLowerCase() === name.toLowerCase())) throw fieldExists(name);
          let nextOptions: FieldOption[] = before.options;
          if (options !== undefined) {
            if (!hasOptions(before.type)) throw invalidField(['options'], `A ${before.type} field has no options`);
            requireDistinctNames(options);
            nextOptions = options.map((option, index) => {
              if (option.id === undefined) return { id: newId(), name: option.name, color: option.color ?? DEFAULT_OPTION_COLOR };
              const kept = isId(option.id) ? before.options.find((candidate) => candidate.id === option.id!.toLowerCase()) : undefined;
              if (!kept) throw invalidField(['options', index, 'id'], `The field has no option with the id "${option.id}"`);
              return { id: kept.id, name: option.name, color: option.color ?? kept.color };
            });
            const ids = nextOptions.map((option) => option.id);
            if (new Set(ids).size !== ids.length) throw invalidField(['options'], 'An option is named twice by its id');
          }
          const to = position === undefined ? before.position : Math.min(position, fields.length - 1);
          if (to < before.position) await store.shiftFields(tx, before.projectId, to, before.position - 1, 1);
          if (to > before.position) await store.shiftFields(tx, before.projectId, before.position + 1, to, -1);
          const patch = { ...(name !== undefined ? { name } : {}), options: nextOptions, position: to };
          const beforeField = toField(before);
          const afterField = toField({ ...before, ...patch });
          const changes = changedFields(beforeField, afterField, ['name', 'position']);
          const optionsChanged = JSON.stringify(before.options) !== JSON.stringify(nextOptions);
          if (!changes && !optionsChanged) return beforeField;
          const removed = before.options.filter((option) => !nextOptions.some((kept) => kept.id === option.id)).map((option) => option.id);
          if (removed.length > 0) {
            const taskIds = await store.lockTasksWithField(tx, before.id, removed);
            await changeFieldValuesOf(tx, before.projectId, taskIds, userId, () => store.removeOptions(tx, before.id, removed));
          }
          if (optionsChanged) await store.resortOptionValues(tx, before.id, nextOptions.map((option) => option.id));
          const row = await store.updateField(tx, before.id, { ...patch, updatedAt: nextVersion(before.updatedAt) });
          if (!row) throw notFound('Field');
          const after = toField(row);
          const allChanges = { ...changes, ...(optionsChanged ? { options: { old: before.options, new: nextOptions } } : {}) };
          await recordEvent(tx, { projectId: before.projectId, actorId: userId, type: 'field.updated', resource: after, changes: allChanges });
          return after;
        });
      } catch (error) {
        if (isUniqueViolation(error) && name !== undefined) throw fieldExists(name);
        throw error;
      }
    },

    /** Deletes the field and its values (each task that had one: a recorded `task.updated` of its fields). */
    async remove(userId: string, path: FieldPathInput, versions?: Date[]): Promise<{ message: string }> {
      return changing(userId, path, async (tx, fields, field) => {
        requireVersion(field, versions, 'Field');
        const taskIds = await store.lockTasksWithField(tx, field.id);
        await changeFieldValuesOf(tx, field.projectId, taskIds, userId, () => store.clearValues(tx, field.id));
        await store.deleteField(tx, field.id);
        await store.shiftFields(tx, field.projectId, field.position + 1, fields.length, -1);
        await recordEvent(tx, { projectId: field.projectId, actorId: userId, type: 'field.deleted', resource: toField(field) });
        return { message: 'Field deleted' };
      });
    },
  };
}

export type FieldsService = ReturnType<typeof createFieldsService>;
