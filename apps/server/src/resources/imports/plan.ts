import { COMMENT_TEXT_MAX, DEFAULT_STATES, FIELD_NAME_MAX, FIELD_TEXT_MAX, FIELDS_MAX, IMPORT_LABELS_MAX, IMPORT_PEOPLE_MAX, IMPORT_WARNINGS_MAX, LABEL_NAME_MAX, type FieldType, REQUIRED_STATE_CATEGORIES, STATE_NAME_MAX, STATES_MAX, storableText, TASK_DESCRIPTION_MAX, TASK_LABELS_MAX, TASK_TITLE_MAX, type StateCategory } from '@tasklane/schemas';
import { DomainError } from '../../platform/errors';

/**
 * What a source's file says, in Tasklane's terms, before anything is written: each source
 * (sources/*.ts) reads its file into one plan, and the import writes a plan (store.ts) the same
 * way whatever it came from. Tasks refer to each other by `ref`, the file's own id.
 */
export interface PlannedPerson {
  email?: string;
  name: string;
}

export interface PlannedComment {
  author: PlannedPerson | undefined;
  text: string;
  createdAt?: Date;
}

/** Time logged on a task; by someone not registered here, it is the importer's, saying whose it was. */
export interface PlannedTimeEntry {
  author: PlannedPerson | undefined;
  minutes: number;
  /** YYYY-MM-DD. */
  date: string;
  note: string;
  createdAt?: Date;
}

/** A custom field: a text field, or (a Tasklane file's) any type, its options with the ids values name. */
export interface PlannedField {
  name: string;
  type: FieldType;
  options: { id: string; name: string; color: string }[];
}

/**
 * A task's value of a field, as FieldValue says for its type, but a `user` field's is the person's
 * email until the plan is settled (write.ts), which makes it their id.
 */
export type PlannedValue = string | number | boolean | string[];

export const textField = (name: string): PlannedField => ({ name, type: 'text', options: [] });

export interface PlannedTask {
  ref: string;
  title: string;
  description: string;
  /** The name of one of the plan's states. */
  state: string;
  priority?: 'LOW' | 'MEDIUM' | 'HIGH' | 'URGENT' | undefined;
  dueDate?: Date;
  startDate?: Date;
  assignee?: PlannedPerson;
  /** Names of the plan's labels. */
  labels: string[];
  parentRef?: string;
  comments: PlannedComment[];
  /** Tasks this one blocks (`blocks` relations), or relates to. */
  relations: { type: 'blocks' | 'relates_to' | 'duplicates'; targetRef: string }[];
  /** Custom field name → value. */
  fields: Record<string, PlannedValue>;
  /** In the project's estimate unit. */
  estimate?: number;
  /** An RRULE, checked when the plan is settled; kept only with a due date. */
  recurrence?: string;
  timeEntries?: PlannedTimeEntry[];
  /** Its number in its project (a Tasklane file's), kept when every task of the file has its own. */
  number?: number;
  /** When a task of a completed state was completed (else the import's time). */
  completedAt?: Date;
  createdAt?: Date;
}

export interface ImportPlan {
  /** `key`: the project's key on the server that exported it (a Tasklane file's), kept when free here. */
  project: { name: string; description: string; estimateUnit?: 'points' | 'hours'; key?: string };
  /** In board order; `key` keeps a state's key (a Tasklane file's), else one is made from the name. */
  states: { name: string; category: StateCategory; color?: string; key?: string }[];
  labels: { name: string; color: string }[];
  /** Custom fields the tasks fill. */
  fields: PlannedField[];
  tasks: PlannedTask[];
  warnings: string[];
}

/** The file is not what its source says it is, or cannot be read: a 400 naming why. */
export const formatError = (message: string) => new DomainError('BAD_REQUEST', message, 'IMPORT_FORMAT');

/** Text PostgreSQL can store (no U+0000, no unpaired surrogate), cut to what a field takes, on a code point boundary. */
export function clip(text: string, max: number): string {
  const clean = storableText(text);
  if (clean.length <= max) return clean;
  // Lengths count code points (docs/api.md, "Text"): cut there, never inside a pair.
  return Array.from(clean).slice(0, max).join('');
}
export const clipTitle = (text: string) => clip(text.replace(/\s+/g, ' ').trim(), TASK_TITLE_MAX) || '(untitled)';
export const clipDescription = (text: string) => clip(text, TASK_DESCRIPTION_MAX);
export const clipComment = (text: string) => clip(text, COMMENT_TEXT_MAX);
export const clipName = (text: string, max = LABEL_NAME_MAX) => clip(text.replace(/\s+/g, ' ').trim(), max);
export const clipStateName = (text: string) => clipName(text, STATE_NAME_MAX);

/** A date the file gives, or undefined for an empty or unreadable one. */
export function dateOf(value: unknown): Date | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  if (typeof value === 'string' && value.trim() === '') return undefined;
  const date = new Date(value);
  const time = date.getTime();
  // The API's range of dates (years 1–9999).
  return Number.isFinite(time) && date.getUTCFullYear() >= 1 && date.getUTCFullYear() <= 9999 ? date : undefined;
}

const PALETTE: Record<string, string> = {
  green: '#16a34a', yellow: '#ca8a04', orange: '#ea580c', red: '#dc2626', purple: '#9333ea', blue: '#2563eb',
  sky: '#0284c7', lime: '#65a30d', pink: '#db2777', black: '#374151', gray: '#6b7280', grey: '#6b7280',
};

/** A label colour from a name ("green", "red_dark") or a hex code ("d73a4a", "#D73A4A"); grey otherwise. */
export function colorOf(value: unknown): string {
  if (typeof value !== 'string') return PALETTE.gray!;
  const hex = /^#?([0-9a-f]{6})$/i.exec(value.trim());
  if (hex) return `#${hex[1]!.toLowerCase()}`;
  const base = value.toLowerCase().split(/[_\s-]/)[0] ?? '';
  return PALETTE[base] ?? PALETTE.gray!;
}

/** Warnings kept to IMPORT_WARNINGS_MAX (the rest counted), as text PostgreSQL stores. */
export function boundedWarnings(warnings: string[]): string[] {
  const kept = warnings.length <= IMPORT_WARNINGS_MAX ? warnings : [...warnings.slice(0, IMPORT_WARNINGS_MAX - 1), `… and ${warnings.length - IMPORT_WARNINGS_MAX + 1} more warnings`];
  return kept.map((warning) => clip(warning, 1000));
}

/**
 * `raw` cut to `max` characters and made unique regardless of case among `taken` (which it joins):
 * "Review", then "Review (2)", the suffix always fitting within `max`.
 */
export function uniqueName(raw: string, taken: Set<string>, max: number, fallback: string): string {
  const base = clipName(raw, max) || fallback;
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n += 1) name = `${clipName(base, max - String(n).length - 3)} (${n})`;
  taken.add(name.toLowerCase());
  return name;
}

/** An email as matched: text PostgreSQL stores, trimmed, lower case, as the API keeps them. */
const normalEmail = (email: string | undefined) => (email ? storableText(email).trim().toLowerCase() || undefined : undefined);

/**
 * What every source's plan is made to satisfy before it is settled, whatever the file held: refs
 * unique, state and field names unique regardless of case and within their lengths, the required
 * state categories present and at most STATES_MAX states, at most FIELDS_MAX fields (values within
 * FIELD_TEXT_MAX), emails normalised and at most IMPORT_PEOPLE_MAX of them, no start after the due
 * date. A file past a limit is a 400; anything else is mended, with a warning where it loses something.
 */
export function normalizePlan(plan: ImportPlan): void {
  // States: unique names (a task names the first of several), the required categories, the limit.
  const stateNames = new Set<string>();
  const renamed = new Map<string, string>();
  plan.states = plan.states.filter((state) => {
    const name = clipName(state.name, STATE_NAME_MAX);
    if (stateNames.has(name.toLowerCase())) return false;
    stateNames.add(name.toLowerCase());
    renamed.set(state.name, name);
    state.name = name;
    return true;
  });
  for (const category of REQUIRED_STATE_CATEGORIES) {
    if (plan.states.some((state) => state.category === category)) continue;
    const fallback = DEFAULT_STATES.find((state) => state.category === category)!;
    plan.states.push({ name: uniqueName(fallback.name, stateNames, STATE_NAME_MAX, fallback.name), category, key: fallback.key });
  }
  if (plan.states.length > STATES_MAX) throw formatError(`The file has ${plan.states.length} workflow states (lists, statuses or sections); a project has at most ${STATES_MAX}`);
  const stateOf = new Map(plan.states.map((state) => [state.name.toLowerCase(), state.name]));
  const firstOpen = plan.states.find((state) => state.category === 'unstarted')!.name;

  // Fields: unique names within their length, at most FIELDS_MAX.
  const fieldNames = new Map<string, PlannedField>();
  for (const field of plan.fields) {
    const name = clipName(field.name, FIELD_NAME_MAX);
    if (name && !fieldNames.has(name.toLowerCase())) fieldNames.set(name.toLowerCase(), { ...field, name });
  }
  if (fieldNames.size > FIELDS_MAX) throw formatError(`The file fills ${fieldNames.size} custom fields; a project has at most ${FIELDS_MAX}`);
  plan.fields = [...fieldNames.values()];

  const refs = new Set<string>();
  const people = new Set<string>();
  plan.tasks.forEach((task, index) => {
    if (refs.has(task.ref)) {
      plan.warnings.push(`${task.title}: its id (${task.ref}) is another task's too; it is kept as a task of its own`);
      task.ref = `${task.ref}#${index}`;
    }
    refs.add(task.ref);
    task.state = stateOf.get(clipName(renamed.get(task.state) ?? task.state, STATE_NAME_MAX).toLowerCase()) ?? firstOpen;
    const fields: Record<string, PlannedValue> = {};
    for (const [name, value] of Object.entries(task.fields)) {
      const field = fieldNames.get(clipName(name, FIELD_NAME_MAX).toLowerCase());
      // A text value is mended to fit, an email normalised; any other is checked against its type when the plan is settled.
      const mended = typeof value !== 'string' ? value : field?.type === 'text' ? clip(value, FIELD_TEXT_MAX) : field?.type === 'user' ? (normalEmail(value) ?? '') : value;
      if (field?.type === 'user' && typeof mended === 'string' && mended) people.add(mended);
      if (field && !(typeof mended === 'string' && mended.trim() === '')) fields[field.name] = mended;
    }
    task.fields = fields;
    if (task.startDate && task.dueDate && task.startDate > task.dueDate) delete task.startDate;
    for (const person of [task.assignee, ...task.comments.map((comment) => comment.author), ...(task.timeEntries ?? []).map((entry) => entry.author)]) {
      if (!person) continue;
      const email = normalEmail(person.email);
      if (email) {
        person.email = email;
        people.add(email);
      } else delete person.email;
      person.name = clipName(person.name, 200) || email || 'someone';
    }
  });
  // Numbers kept only when every task has its own; else all are numbered 1…n in file order.
  const numbers = new Set(plan.tasks.map((task) => task.number));
  if (plan.tasks.some((task) => task.number !== undefined) && (numbers.has(undefined) || numbers.size < plan.tasks.length)) {
    plan.warnings.push('Some tasks have no number or share one, so the tasks are numbered 1, 2, 3 … in file order');
    for (const task of plan.tasks) delete task.number;
  }
  if (people.size > IMPORT_PEOPLE_MAX) throw formatError(`The file names ${people.size} people by email; an import matches at most ${IMPORT_PEOPLE_MAX}`);
}

/**
 * Labels named by tasks, each once regardless of case (the first spelling wins), with their colour;
 * a task keeps at most TASK_LABELS_MAX of them, the rest dropped with a warning.
 */
export function collectLabels(plan: ImportPlan): void {
  const known = new Map<string, string>();
  // The file's own labels first, each once regardless of case, within their length.
  plan.labels = plan.labels.flatMap((label) => {
    const name = clipName(label.name);
    if (!name || known.has(name.toLowerCase())) return [];
    known.set(name.toLowerCase(), name);
    return [{ name, color: label.color }];
  });
  if (plan.labels.length > IMPORT_LABELS_MAX) throw formatError(`The file has more than ${IMPORT_LABELS_MAX} labels; an import makes at most ${IMPORT_LABELS_MAX}`);
  for (const task of plan.tasks) {
    const names = new Set<string>();
    for (const raw of task.labels) {
      const name = clipName(raw);
      if (!name) continue;
      const existing = known.get(name.toLowerCase());
      if (existing === undefined) {
        known.set(name.toLowerCase(), name);
        plan.labels.push({ name, color: colorOf(undefined) });
        if (plan.labels.length > IMPORT_LABELS_MAX) throw formatError(`The file has more than ${IMPORT_LABELS_MAX} labels; an import makes at most ${IMPORT_LABELS_MAX}`);
      }
      names.add(existing ?? name);
    }
    if (names.size > TASK_LABELS_MAX) plan.warnings.push(`${task.title}: kept ${TASK_LABELS_MAX} of its ${names.size} labels`);
    task.labels = [...names].slice(0, TASK_LABELS_MAX);
  }
}
