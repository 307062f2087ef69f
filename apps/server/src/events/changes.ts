import type { FieldChange } from '@tasklane/schemas';

/** Equal field values: the same scalar, or arrays of the same scalars in the same order (a task's labelIds). */
const sameValue = (a: unknown, b: unknown): boolean =>
  a === b || (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => item === b[index]));

/** The fields whose values differ between two versions of a resource (an event's `changes`), or null when none do. */
export function changedFields<T extends object>(before: T, after: T, fields: readonly (keyof T & string)[]): Record<string, FieldChange> | null {
  const changes: Record<string, FieldChange> = {};
  for (const field of fields) {
    if (!sameValue(before[field], after[field])) changes[field] = { old: before[field], new: after[field] };
  }
  return Object.keys(changes).length > 0 ? changes : null;
}
