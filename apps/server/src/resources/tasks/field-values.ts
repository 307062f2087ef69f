import { codePointLength, FIELD_FILTER_KEY, FIELD_SORT, FIELD_TEXT_MAX, FIELD_URL_MAX, type FieldType, type FieldValue, isStorableText } from '@tasklane/schemas';
import { arrayLiteral, type Db, memberships, projectFields, taskFieldValues } from '@tasklane/db';
import { and, eq, sql } from 'drizzle-orm';
import { membersAmong } from '../policy/access';
import { isId } from '../../platform/ids';
import { type DomainError, invalidField } from '../../platform/errors';
import type { CursorCheck } from '../../platform/paging';
import { rowsOf } from '../../platform/sql';
import { type CompletingTasks, completingTaskIds } from './completing';


/*
 * What a custom field's value is, for the tasks service: the checks of a write's `fields`, the
 * sort column each type uses, and a list's field filters and sort, with the statements they need.
 * Here, beside the tasks service that uses them: the fields service (which changes fields) imports
 * the tasks service, never the other way round.
 */

/** A custom field as stored (the fields service's row). */
export type FieldRow = typeof projectFields.$inferSelect;

/**
 * The fields of the project among `fieldIds` (well-formed ids), each locked FOR KEY SHARE to the
 * end of the caller's (a task write's) transaction, read as they are once any change of their
 * options has committed. Taken before the task's row (the lock order of platform/locks.ts).
 */
export const lockTaskFields = (db: Db, projectId: string, fieldIds: readonly string[]): Promise<FieldRow[]> =>
  db
    .select()
    .from(projectFields)
    .where(and(eq(projectFields.projectId, projectId), sql`${projectFields.id} = any(${arrayLiteral(fieldIds)}::uuid[])`))
    .for('key share')
    .execute();

/** A task's values to write: set (upsert) or cleared. */
export interface StoredValue {
  fieldId: string;
  value: unknown;
  sortText: string | null;
  sortNumber: number | null;
}

/** Writes a task's values (`null` value: the field cleared). */
export async function writeTaskValues(db: Db, taskId: string, writes: (StoredValue | { fieldId: string; value: null })[]): Promise<void> {
  const cleared = writes.filter((write) => write.value === null).map((write) => write.fieldId);
  const set = writes.filter((write): write is StoredValue => write.value !== null);
  if (cleared.length > 0) {
    await db.delete(taskFieldValues).where(and(eq(taskFieldValues.taskId, taskId), sql`${taskFieldValues.fieldId} = any(${arrayLiteral(cleared)}::uuid[])`)).execute();
  }
  if (set.length > 0) {
    await db
      .insert(taskFieldValues)
      .values(set.map((write) => ({ taskId, fieldId: write.fieldId, value: write.value, sortText: write.sortText, sortNumber: write.sortNumber })))
      .onConflictDoUpdate({
        target: [taskFieldValues.taskId, taskFieldValues.fieldId],
        set: { value: sql`excluded.value`, sortText: sql`excluded.sort_text`, sortNumber: sql`excluded.sort_number` },
      })
      .execute();
  }
}
/**
 * The fields the tasks `which` have values of, locked FOR KEY SHARE before the tasks' rows (a
 * completion that may copy them to a next occurrence: copyTaskValues), so no change of their
 * options comes between.
 */
export const lockFieldsOfTasks = async (db: Db, which: CompletingTasks): Promise<string[]> =>
  (
    await db
      .select({ id: projectFields.id })
      .from(projectFields)
      .where(sql`${projectFields.id} in (select ${taskFieldValues.fieldId} from ${taskFieldValues} where ${taskFieldValues.taskId} in (${completingTaskIds(which)}))`)
      .orderBy(projectFields.id)
      .for('key share')
      .execute()
  ).map((row) => row.id);

/**
 * Copies `fromTaskId`'s values of the fields `fieldIds` (locked: lockFieldsOfTask) to `toTaskId`,
 * a new task of the same project (a next occurrence), and returns them as a task shows them. A
 * user field's value whose user is no longer a member of the project is not copied (an option
 * since deleted is gone from the task already: the fields service clears it).
 */
export async function copyTaskValues(db: Db, fromTaskId: string, toTaskId: string, fieldIds: readonly string[]): Promise<Record<string, FieldValue>> {
  if (fieldIds.length === 0) return {};
  const rows = rowsOf<{ field_id: string; value: string }>(
    await db.execute(sql`
      insert into ${taskFieldValues} (task_id, field_id, value, sort_text, sort_number)
      select ${toTaskId}::uuid, source.field_id, source.value, source.sort_text, source.sort_number
      from ${taskFieldValues} as source join ${projectFields} as field on field.id = source.field_id
      where source.task_id = ${fromTaskId}::uuid and source.field_id = any(${arrayLiteral(fieldIds)}::uuid[])
        and (field.type <> 'user' or exists (
          select 1 from ${memberships} as member where member.project_id = field.project_id and member.user_id = (source.value #>> '{}')::uuid))
      returning field_id, value::text as value`),
  );
  // Returned as text: the drivers differ in whether a raw statement's jsonb comes parsed.
  return Object.fromEntries(rows.map((row) => [row.field_id, JSON.parse(row.value) as FieldValue]));
}

/** The project's tasks whose user fields name `userId` (from task_field_values_text_idx: a user value's sort_text is its id), in id order. */
export const tasksWithUserValue = async (db: Db, projectId: string, userId: string): Promise<string[]> =>
  (
    await db
      .selectDistinct({ taskId: taskFieldValues.taskId })
      .from(taskFieldValues)
      .innerJoin(projectFields, eq(projectFields.id, taskFieldValues.fieldId))
      .where(and(eq(projectFields.projectId, projectId), eq(projectFields.type, 'user'), eq(taskFieldValues.sortText, userId)))
      .orderBy(taskFieldValues.taskId)
      .execute()
  ).map((row) => row.taskId);

/** Clears the project's user field values naming `userId` (a member who left). */
export const clearUserValues = (db: Db, projectId: string, userId: string) =>
  db
    .delete(taskFieldValues)
    .where(
      and(
        eq(taskFieldValues.sortText, userId),
        sql`${taskFieldValues.fieldId} in (select ${projectFields.id} from ${projectFields} where ${and(eq(projectFields.projectId, projectId), eq(projectFields.type, 'user'))})`,
      ),
    )
    .execute();

/** Of `fieldIds`, the fields of the project, or (`memberId`) of any project the user is a member of. */
export const findFieldsIn = (db: Db, scope: { projectId: string } | { memberId: string }, fieldIds: readonly string[]): Promise<FieldRow[]> =>
  db
    .select()
    .from(projectFields)
    .where(
      and(
        sql`${projectFields.id} = any(${arrayLiteral(fieldIds)}::uuid[])`,
        'projectId' in scope
          ? eq(projectFields.projectId, scope.projectId)
          : sql`${projectFields.projectId} in (select ${memberships.projectId} from ${memberships} where ${eq(memberships.userId, scope.memberId)})`,
      ),
    )
    .execute();

/** Which sort column of task_field_values a type's values use (migration 0015). */
export const sortColumnOf = (type: FieldType): 'text' | 'number' =>
  type === 'number' || type === 'checkbox' || type === 'select' || type === 'multi_select' ? 'number' : 'text';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `value` is a `YYYY-MM-DD` date that exists (not 2026-02-30), year 1 to 9999. */
export function isDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return year >= 1 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A write of one value: set (with its sort columns) or cleared (`value` null). */
export type ValueWrite = StoredValue | { fieldId: string; value: null };

/** The value a write (or an import) stores for `field`, with its sort columns, or the message of its 400. */
export function storedValue(field: Pick<FieldRow, 'id' | 'type' | 'options'>, value: FieldValue): StoredValue | string {
  const stored = (value: unknown, sortText: string | null, sortNumber: number | null): StoredValue => ({ fieldId: field.id, value, sortText, sortNumber });
  const optionIndex = (id: unknown) => (typeof id === 'string' ? field.options.findIndex((option) => option.id === id.toLowerCase()) : -1);
  switch (field.type) {
    case 'text':
      if (typeof value !== 'string' || value === '') return 'a text field takes a non-empty string (null clears it)';
      if (!isStorableText(value)) return 'Text may not contain U+0000 or an unpaired surrogate';
      return codePointLength(value) > FIELD_TEXT_MAX ? `a text field holds at most ${FIELD_TEXT_MAX} characters` : stored(value, value, null);
    case 'url':
      if (typeof value !== 'string' || value.length > FIELD_URL_MAX || !isWebUrl(value)) return `a url field takes an http or https URL of at most ${FIELD_URL_MAX} characters`;
      // The URL parser takes what PostgreSQL cannot store (it would be a 500): refused as text is.
      if (!isStorableText(value)) return 'Text may not contain U+0000 or an unpaired surrogate';
      return stored(value, value, null);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? stored(value, null, value) : 'a number field takes a finite number';
    case 'date':
      return typeof value === 'string' && isDate(value) ? stored(value, value, null) : 'a date field takes a date as YYYY-MM-DD';
    case 'checkbox':
      return typeof value === 'boolean' ? stored(value, null, value ? 1 : 0) : 'a checkbox field takes true or false';
    case 'user':
      return typeof value === 'string' && isId(value) ? stored(value.toLowerCase(), value.toLowerCase(), null) : 'a user field takes the id of a member of the project';
    case 'select': {
      const index = optionIndex(value);
      return index < 0 ? "a select field takes the id of one of the field's options" : stored(field.options[index]!.id, field.options[index]!.id, index);
    }
    case 'multi_select': {
      if (!Array.isArray(value) || value.length === 0) return "a multi_select field takes a non-empty array of ids of the field's options (null clears it)";
      const indexes = [...new Set(value.map(optionIndex))].sort((a, b) => a - b);
      if (indexes.includes(-1) || indexes.length !== value.length) return "a multi_select field takes ids of the field's options, each once";
      return stored(indexes.map((index) => field.options[index]!.id), null, indexes[0]!);
    }
  }
}

/**
 * The writes of a task write's `fields`, checked under the fields' locks (lockTaskFields),
 * in `tx`; or the refusal (a 400 naming `["fields", id]`), returned for the caller to throw after
 * its access check, as tasks/service.ts's other in-project checks are.
 */
export async function planFieldWrites(tx: Db, projectId: string, input: Record<string, FieldValue | null>): Promise<{ writes: ValueWrite[] } | { refusal: DomainError }> {
  const entries = Object.entries(input);
  const ids = entries.map(([id]) => id).filter(isId).map((id) => id.toLowerCase());
  const fields = ids.length > 0 ? await lockTaskFields(tx, projectId, ids) : [];
  const writes: ValueWrite[] = [];
  const users = new Map<string, string>();
  for (const [id, value] of entries) {
    const field = isId(id) ? fields.find((candidate) => candidate.id === id.toLowerCase()) : undefined;
    if (!field) return { refusal: invalidField(['fields', id], `The project has no field with the id "${id}" (GET /projects/{id}/fields lists them)`, 'UNKNOWN_FIELD') };
    if (value === null) {
      writes.push({ fieldId: field.id, value: null });
      continue;
    }
    const write = storedValue(field, value);
    if (typeof write === 'string') return { refusal: invalidField(['fields', id], `${field.name}: ${write}`, 'INVALID_FIELD_VALUE') };
    if (field.type === 'user') users.set(write.value as string, id);
    writes.push(write);
  }
  if (users.size > 0) {
    const members = await membersAmong(tx, projectId, [...users.keys()]);
    const stranger = [...users].find(([userId]) => !members.has(userId));
    if (stranger) return { refusal: invalidField(['fields', stranger[1]], 'a user field takes the id of a member of the project', 'INVALID_FIELD_VALUE') };
  }
  return { writes };
}

/** A task's field values after `writes`: merged into `before`, the cleared ones gone. */
export function mergeFieldValues(before: Record<string, FieldValue>, writes: readonly ValueWrite[]): Record<string, FieldValue> {
  const after = { ...before };
  for (const write of writes) {
    if (write.value === null) delete after[write.fieldId];
    else after[write.fieldId] = write.value as FieldValue;
  }
  return after;
}

/** The fields whose values differ, as one `fields` change: the old and new value of each (null: none). */
export function fieldValueChanges(before: Readonly<Record<string, FieldValue | undefined>>, after: Readonly<Record<string, FieldValue | undefined>>): { old: Record<string, FieldValue | null>; new: Record<string, FieldValue | null> } | undefined {
  const old: Record<string, FieldValue | null> = {};
  const next: Record<string, FieldValue | null> = {};
  for (const id of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[id] ?? null) !== JSON.stringify(after[id] ?? null)) {
      old[id] = before[id] ?? null;
      next[id] = after[id] ?? null;
    }
  }
  return Object.keys(old).length > 0 ? { old, new: next } : undefined;
}

/** One field filter of a list, as the tasks store applies it. */
export interface FieldFilter {
  fieldId: string;
  column: 'text' | 'number';
  /** `any`: the sort column is one of `values`; `overlaps`: a multi_select value holds any of `values`. */
  op: 'eq' | 'gte' | 'lte' | 'any' | 'overlaps';
  values: (string | number)[];
}

/** A list's sort by a field. */
export interface FieldSort {
  fieldId: string;
  column: 'text' | 'number';
  descending: boolean;
}

const UUIDS = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A filter value as the field's type reads it, or undefined (a 400). */
function filterOf(field: FieldRow, op: 'eq' | 'gte' | 'lte', raw: string): FieldFilter | undefined {
  const column = sortColumnOf(field.type);
  const of = (op: FieldFilter['op'], values: (string | number)[]): FieldFilter => ({ fieldId: field.id, column, op, values });
  if (op !== 'eq' && field.type !== 'number' && field.type !== 'date') return undefined;
  switch (field.type) {
    case 'number': {
      const number = raw.trim() === '' ? Number.NaN : Number(raw);
      return Number.isFinite(number) ? of(op, [number]) : undefined;
    }
    case 'date':
      return isDate(raw) ? of(op, [raw]) : undefined;
    case 'checkbox':
      return raw === 'true' || raw === 'false' ? of('eq', [raw === 'true' ? 1 : 0]) : undefined;
    case 'user':
      return UUIDS.test(raw) ? of('eq', [raw.toLowerCase()]) : undefined;
    case 'select':
    case 'multi_select': {
      const ids = [...new Set(raw.split(',').map((id) => id.trim().toLowerCase()))];
      if (ids.length === 0 || ids.length > 100 || !ids.every((id) => UUIDS.test(id))) return undefined;
      // A select's option id is its sort_text; a multi_select's ids are in its value.
      return field.type === 'select' ? { fieldId: field.id, column: 'text', op: 'any', values: ids.sort() } : of('overlaps', ids.sort());
    }
    default:
      return raw === '' ? undefined : of('eq', [raw]);
  }
}

/**
 * A list query's field filters (its `field.<id>…` keys) and field sort, each field found among
 * those `findFields` gives (the project's, or those of the caller's projects); an unknown field is
 * a 400 naming the key (UNKNOWN_FIELD), a value its type cannot read a 400 naming it too.
 */
export async function fieldQueryOf(
  query: Record<string, unknown>,
  findFields: (ids: string[]) => Promise<FieldRow[]>,
): Promise<{ filters: FieldFilter[]; sort: FieldSort | undefined }> {
  const keys = Object.keys(query).filter((key) => FIELD_FILTER_KEY.test(key));
  const sortMatch = typeof query.sort === 'string' ? FIELD_SORT.exec(query.sort) : null;
  if (keys.length === 0 && !sortMatch) return { filters: [], sort: undefined };
  const ids = [...new Set([...keys.map((key) => FIELD_FILTER_KEY.exec(key)![1]!), ...(sortMatch ? [sortMatch[1]!] : [])].map((id) => id.toLowerCase()))];
  const fields = await findFields(ids);
  const fieldOf = (id: string, key: string) => {
    const field = fields.find((candidate) => candidate.id === id.toLowerCase());
    if (!field) throw invalidField([key], `No field of the project has the id "${id}"`, 'UNKNOWN_FIELD');
    return field;
  };
  const filters = keys.sort().map((key) => {
    const [, id, op] = FIELD_FILTER_KEY.exec(key)!;
    const field = fieldOf(id!, key);
    const raw = query[key];
    const filter = typeof raw === 'string' ? filterOf(field, (op as 'gte' | 'lte' | undefined) ?? 'eq', raw) : undefined;
    if (!filter) throw invalidField([key], op ? `${key}: only number and date fields take .${op}, with a value of their type` : `${key}: not a value of the field's type (${field.type})`, 'INVALID_FIELD_VALUE');
    return filter;
  });
  const sortField = sortMatch ? fieldOf(sortMatch[1]!, 'sort') : undefined;
  const sort = sortField ? { fieldId: sortField.id, column: sortColumnOf(sortField.type), descending: (query.sort as string).startsWith('-') } : undefined;
  return { filters, sort };
}

/** The cursor check of a page sorted by a field: the sort value of the column (null for a task without one), then the id. */
export const fieldCursorCheck = (column: 'text' | 'number'): CursorCheck => (value) =>
  value === null || (column === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === 'string' && !value.includes('\u0000'));
