import { EXPORT_FILE_FORMAT, EXPORT_FILE_VERSION, STATE_CATEGORIES, STATE_NAME_MAX, type StateCategory } from '@tasklane/schemas';
import { clipComment, clipDescription, clipTitle, colorOf, dateOf, formatError, type ImportPlan, type PlannedPerson, type PlannedTask, uniqueName } from '../plan';
import { arrayOf, isRecord, parseJson, textOf } from './json';

const PRIORITIES = new Set(['LOW', 'MEDIUM', 'HIGH', 'URGENT']);

/**
 * `tasklane`: a project as `GET /projects/{id}/export?format=json` wrote it, on this server or
 * another. States keep their keys, names, categories, colours and order; labels their colours;
 * tasks their status, priority, dates, labels, assignee (by email), parent, comments (by their
 * authors' emails), relations within the project and custom field values (as text: a field's type
 * and options are not carried yet).
 */
export function tasklanePlan(bytes: Buffer): ImportPlan {
  const file = parseJson(bytes, "a Tasklane project's export");
  if (!isRecord(file) || file.format !== EXPORT_FILE_FORMAT || file.kind !== 'project' || !isRecord(file.project) || !Array.isArray(file.tasks)) {
    throw formatError(`The file is not a Tasklane project's export: it starts {"format":"${EXPORT_FILE_FORMAT}","version":${EXPORT_FILE_VERSION},"kind":"project"`);
  }
  if (file.version !== EXPORT_FILE_VERSION) throw formatError(`The file is a Tasklane export of version ${String(file.version)}; this server reads version ${EXPORT_FILE_VERSION}`);
  const people = new Map<string, PlannedPerson>();
  for (const member of arrayOf(file.members).filter(isRecord)) {
    const email = textOf(member.email);
    people.set(textOf(member.userId), { name: textOf(member.name) || email, ...(email ? { email } : {}) });
  }
  const plan: ImportPlan = {
    project: { name: textOf(file.project.name) || 'Imported project', description: textOf(file.project.description) },
    states: [],
    labels: arrayOf(file.labels).filter(isRecord).map((label) => ({ name: textOf(label.name), color: colorOf(label.color) })),
    fields: [],
    tasks: [],
    warnings: [],
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
  const fields = arrayOf(file.fields).filter(isRecord);
  const fieldById = new Map(fields.map((field) => [textOf(field.id), field]));
  plan.fields = fields.map((field) => textOf(field.name)).filter(Boolean);
  const fieldText = (field: Record<string, unknown>, value: unknown): string => {
    const optionName = (id: unknown) => textOf(arrayOf(field.options).filter(isRecord).find((option) => option.id === id)?.name) || textOf(id);
    if (field.type === 'select') return optionName(value);
    if (field.type === 'multi_select') return arrayOf(value).map(optionName).join(', ');
    if (field.type === 'user') return people.get(textOf(value))?.email ?? textOf(value);
    return typeof value === 'boolean' ? String(value) : textOf(value);
  };
  for (const task of arrayOf(file.tasks).filter(isRecord)) {
    const fieldValues: Record<string, string> = {};
    if (isRecord(task.fields)) {
      for (const [id, value] of Object.entries(task.fields)) {
        const field = fieldById.get(id);
        const text = field ? fieldText(field, value) : '';
        if (field && text) fieldValues[textOf(field.name)] = text;
      }
    }
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
      ...(PRIORITIES.has(priority) ? { priority: priority as PlannedTask['priority'] } : {}),
      ...(dateOf(task.dueDate) ? { dueDate: dateOf(task.dueDate)! } : {}),
      ...(dateOf(task.startDate) ? { startDate: dateOf(task.startDate)! } : {}),
      ...(textOf(task.parentId) ? { parentRef: textOf(task.parentId) } : {}),
      ...(people.get(textOf(task.assigneeId)) ? { assignee: people.get(textOf(task.assigneeId))! } : {}),
      ...(dateOf(task.createdAt) ? { createdAt: dateOf(task.createdAt)! } : {}),
    };
    plan.tasks.push(planned);
  }
  return plan;
}
