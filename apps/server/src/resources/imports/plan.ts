import { COMMENT_TEXT_MAX, IMPORT_WARNINGS_MAX, LABEL_NAME_MAX, STATE_NAME_MAX, storableText, TASK_DESCRIPTION_MAX, TASK_LABELS_MAX, TASK_TITLE_MAX, type StateCategory } from '@tasklane/schemas';
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
  /** Custom field name → value (text fields). */
  fields: Record<string, string>;
  createdAt?: Date;
}

export interface ImportPlan {
  project: { name: string; description: string };
  /** In board order; `key` keeps a state's key (a Tasklane file's), else one is made from the name. */
  states: { name: string; category: StateCategory; color?: string; key?: string }[];
  labels: { name: string; color: string }[];
  /** Text custom fields the tasks fill. */
  fields: string[];
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

/** Warnings kept to IMPORT_WARNINGS_MAX, the rest counted. */
export function boundedWarnings(warnings: string[]): string[] {
  if (warnings.length <= IMPORT_WARNINGS_MAX) return warnings;
  return [...warnings.slice(0, IMPORT_WARNINGS_MAX - 1), `… and ${warnings.length - IMPORT_WARNINGS_MAX + 1} more warnings`];
}

/**
 * Labels named by tasks, each once regardless of case (the first spelling wins), with their colour;
 * a task keeps at most TASK_LABELS_MAX of them, the rest dropped with a warning.
 */
export function collectLabels(plan: ImportPlan): void {
  const known = new Map(plan.labels.map((label) => [label.name.toLowerCase(), label.name]));
  for (const task of plan.tasks) {
    const names: string[] = [];
    for (const raw of task.labels) {
      const name = clipName(raw);
      if (!name) continue;
      const existing = known.get(name.toLowerCase());
      if (existing === undefined) {
        known.set(name.toLowerCase(), name);
        plan.labels.push({ name, color: colorOf(undefined) });
      }
      const spelled = existing ?? name;
      if (!names.includes(spelled)) names.push(spelled);
    }
    if (names.length > TASK_LABELS_MAX) plan.warnings.push(`${task.title}: kept ${TASK_LABELS_MAX} of its ${names.length} labels`);
    task.labels = names.slice(0, TASK_LABELS_MAX);
  }
}
