import {
  CalendarDateSchema, ESTIMATE_UNITS, EstimateSchema, EXPORT_FILE_FORMAT, EXPORT_FILE_VERSION, FIELD_OPTION_NAME_MAX, FIELD_OPTIONS_MAX, FIELD_TYPES, MinutesSchema, PROJECT_KEY_PATTERN,
  STATE_CATEGORIES, STATE_NAME_MAX, type StateCategory, TIME_ENTRY_NOTE_MAX,
} from '@tasklane/schemas';
import { newId } from '../../../platform/ids';
import {
  clip, clipComment, clipDescription, clipTitle, colorOf, dateOf, formatError, type ImportPlan, type PlannedField, type PlannedPerson, type PlannedTask, type PlannedTimeEntry, type PlannedValue,
  textField, uniqueName,
} from '../plan';
import { arrayOf, isRecord, type JsonKeep, readJson, textOf } from './json';

/** What an export holds is what a project is: every part is read (streamed, as every import). */
const TASKLANE_KEEP: JsonKeep = { format: true, version: true, kind: true, project: true, states: true, labels: true, fields: true, members: true, tasks: true };

const PRIORITIES = new Set(['LOW', 'MEDIUM', 'HIGH', 'URGENT']);
/** A task number kept as it is: far below the integer column's limit, which the project's next numbers count up to. */
const TASK_NUMBER_MAX = 1_000_000_000;

/**
 * `tasklane`: a project as `GET /projects/{id}/export?format=json` wrote it, on this server or
 * another. States keep their keys, names, categories, colours and order; labels their colours;
 * fields their types and options; tasks their status, priority, dates, completion, estimate,
 * recurrence, labels, assignee (by email), parent, comments and time entries (by their authors'
 * emails), relations within the project and field values. Attachments' files are not in the
 * export (only what they were): they are named in a warning.
 */
export async function tasklanePlan(stream: NodeJS.ReadableStream): Promise<ImportPlan> {
  const file = await readJson(stream, "a Tasklane project's export", TASKLANE_KEEP);
  if (!isRecord(file) || file.format !== EXPORT_FILE_FORMAT || file.kind !== 'project' || !isRecord(file.project) || !Array.isArray(file.tasks)) {
    throw formatError(`The file is not a Tasklane project's export: it starts {"format":"${EXPORT_FILE_FORMAT}","version":${EXPORT_FILE_VERSION},"kind":"project"`);
  }
  if (file.version !== EXPORT_FILE_VERSION) throw formatError(`The file is a Tasklane export of version ${String(file.version)}; this server reads version ${EXPORT_FILE_VERSION}`);
  const people = new Map<string, PlannedPerson>();
  for (const member of arrayOf(file.members).filter(isRecord)) {
    const email = textOf(member.email);
    people.set(textOf(member.userId), { name: textOf(member.name) || email, ...(email ? { email } : {}) });
  }
  const estimateUnit = ESTIMATE_UNITS.find((unit) => unit === (file.project as Record<string, unknown>).estimateUnit);
  const key = textOf(file.project.key).toUpperCase();
  // A key as a project may have one (2–10 letters and digits, from a letter); any other is left out, saying so.
  const keyWarning = key && !PROJECT_KEY_PATTERN.test(key) ? [`The project key "${clip(key, 40)}" is not one a project can have: the project gets a key of its own`] : [];
  const plan: ImportPlan = {
    project: {
      name: textOf(file.project.name) || 'Imported project',
      description: textOf(file.project.description),
      ...(estimateUnit ? { estimateUnit } : {}),
      ...(PROJECT_KEY_PATTERN.test(key) ? { key } : {}),
    },
    states: [],
    labels: arrayOf(file.labels).filter(isRecord).map((label) => ({ name: textOf(label.name), color: colorOf(label.color) })),
    fields: [],
    tasks: [],
    warnings: keyWarning,
  };
  const stateName = new Map<string, string>();
  const taken = new Set<string>();
  for (const state of arrayOf(file.states).filter(isRecord).sort((a, b) => Number(a.position) - Number(b.position))) {
    const category = STATE_CATEGORIES.find((value) => value === state.category) as StateCategory | undefined;
    if (!category || stateName.has(textOf(state.key))) continue;
    const name = uniqueName(textOf(state.name), taken, STATE_NAME_MAX, 'State');
    stateName.set(textOf(state.key), name);
    plan.states.push({ name, category, color: colorOf(state.color), key: textOf(state.key) });
  }
  const labelName = new Map(arrayOf(file.labels).filter(isRecord).map((label) => [textOf(label.id), textOf(label.name)]));
  const fieldOf = fieldsOf(arrayOf(file.fields).filter(isRecord), plan, people);
  let attachments = 0;
  for (const task of arrayOf(file.tasks).filter(isRecord)) {
    const fieldValues: Record<string, PlannedValue> = {};
    if (isRecord(task.fields)) {
      for (const [id, value] of Object.entries(task.fields)) {
        const field = fieldOf.get(id);
        const planned = field?.value(value);
        if (field && planned !== undefined) fieldValues[field.name] = planned;
      }
    }
    attachments += arrayOf(task.attachments).length;
    const estimate = EstimateSchema.safeParse(task.estimate ?? null);
    if (!estimate.success) plan.warnings.push(`${textOf(task.title)}: its estimate ${String(task.estimate)} is not one this server keeps (0 to 1000000, two decimals), so it was left out`);
    const recurrence = textOf(task.recurrence).trim();
    const priority = textOf(task.priority);
    const planned: PlannedTask = {
      ref: textOf(task.id),
      title: clipTitle(textOf(task.title)),
      description: clipDescription(textOf(task.description)),
      // A status the file's states lack: the first unstarted state (normalizePlan).
      state: stateName.get(textOf(task.status)) ?? '',
      labels: arrayOf(task.labelIds).map((id) => labelName.get(textOf(id))).filter((name) => name !== undefined),
      comments: arrayOf(task.comments).filter(isRecord).map((comment) => ({
        author: people.get(textOf(comment.authorId)),
        text: clipComment(textOf(comment.text)),
        ...(dateOf(comment.createdAt) ? { createdAt: dateOf(comment.createdAt)! } : {}),
      })),
      relations: arrayOf(task.relations)
        .filter(isRecord)
        .filter((relation) => relation.type === 'blocks' || relation.type === 'relates_to' || relation.type === 'duplicates')
        .map((relation) => ({ type: relation.type as 'blocks' | 'relates_to' | 'duplicates', targetRef: textOf(relation.relatedTaskId) })),
      fields: fieldValues,
      timeEntries: arrayOf(task.timeEntries).filter(isRecord).flatMap((entry): PlannedTimeEntry[] => {
        const minutes = MinutesSchema.safeParse(entry.minutes);
        const date = CalendarDateSchema.safeParse(entry.date);
        if (!minutes.success || !date.success) {
          plan.warnings.push(`${textOf(task.title)}: a time entry of ${String(entry.minutes)} minutes on ${String(entry.date)} is not one this server keeps, so it was left out`);
          return [];
        }
        const createdAt = dateOf(entry.createdAt);
        return [{ author: people.get(textOf(entry.userId)), minutes: minutes.data, date: date.data, note: clip(textOf(entry.note), TIME_ENTRY_NOTE_MAX), ...(createdAt ? { createdAt } : {}) }];
      }),
      ...(estimate.success && estimate.data !== null ? { estimate: estimate.data } : {}),
      ...(recurrence ? { recurrence } : {}),
      ...(dateOf(task.completedAt) ? { completedAt: dateOf(task.completedAt)! } : {}),
      ...(Number.isSafeInteger(task.number) && (task.number as number) >= 1 && (task.number as number) <= TASK_NUMBER_MAX ? { number: task.number as number } : {}),
      ...(PRIORITIES.has(priority) ? { priority: priority as PlannedTask['priority'] } : {}),
      ...(dateOf(task.dueDate) ? { dueDate: dateOf(task.dueDate)! } : {}),
      ...(dateOf(task.startDate) ? { startDate: dateOf(task.startDate)! } : {}),
      ...(textOf(task.parentId) ? { parentRef: textOf(task.parentId) } : {}),
      ...(people.get(textOf(task.assigneeId)) ? { assignee: people.get(textOf(task.assigneeId))! } : {}),
      ...(dateOf(task.createdAt) ? { createdAt: dateOf(task.createdAt)! } : {}),
    };
    plan.tasks.push(planned);
  }
  if (attachments > 0) plan.warnings.push(`${attachments === 1 ? '1 attachment is' : `${attachments} attachments are`} listed in the file, but an export holds what they were, not their files: left out (upload them again)`);
  return plan;
}

/**
 * The file's fields as the plan makes them, by their id in the file, each with how it reads a
 * task's value: an option by the id it had (options get new ids here), a user by their email. A
 * type this server does not know becomes a text field holding the value as text.
 */
function fieldsOf(fields: Record<string, unknown>[], plan: ImportPlan, people: Map<string, PlannedPerson>) {
  const byId = new Map<string, { name: string; value: (value: unknown) => PlannedValue | undefined }>();
  for (const field of fields) {
    const name = textOf(field.name);
    if (!name) continue;
    const type = FIELD_TYPES.find((known) => known === field.type);
    const planned: PlannedField = type ? { name, type, options: [] } : textField(name);
    const optionId = new Map<string, string>();
    if (type === 'select' || type === 'multi_select') {
      const taken = new Set<string>();
      for (const option of arrayOf(field.options).filter(isRecord)) {
        const optionName = uniqueName(textOf(option.name), taken, FIELD_OPTION_NAME_MAX, 'Option');
        if (planned.options.length === FIELD_OPTIONS_MAX) {
          plan.warnings.push(`${name}: kept ${FIELD_OPTIONS_MAX} of its options; values naming the others were left out`);
          break;
        }
        const id = newId();
        planned.options.push({ id, name: optionName, color: colorOf(option.color) });
        optionId.set(textOf(option.id), id);
      }
    }
    // A value the file holds wrongly (an option it lacks, a number as text) is passed on as it is:
    // settling the plan checks it as a task write would, and leaves it out with a warning.
    const value = (raw: unknown): PlannedValue | undefined => {
      if (!type) return (typeof raw === 'boolean' ? String(raw) : Array.isArray(raw) ? raw.map(textOf).join(', ') : textOf(raw)) || undefined;
      if (type === 'select') return optionId.get(textOf(raw)) ?? textOf(raw);
      if (type === 'multi_select') return [...new Set(arrayOf(raw).map((id) => optionId.get(textOf(id)) ?? textOf(id)))];
      if (type === 'text') return (typeof raw === 'boolean' ? String(raw) : textOf(raw)) || undefined;
      if (type === 'user') return people.get(textOf(raw))?.email ?? textOf(raw);
      return typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? raw : undefined;
    };
    plan.fields.push(planned);
    byId.set(textOf(field.id), { name, value });
  }
  return byId;
}
