import { type CsvMapping, STATE_NAME_MAX } from '@tasklane/schemas';
import { clipDescription, clipTitle, dateOf, formatError, type ImportPlan, type PlannedTask, textField, uniqueName } from '../plan';
import { readCsv } from './csv-table';
import { categoryOfName } from './states';
import { ensureCategory } from './trello';

const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const;

/**
 * `csv`: any CSV with a header row, read through `mapping` (which column holds the title, the
 * description, the status, the priority, the due date, the assignee's email, the labels — comma
 * separated — and custom fields). Each distinct status becomes a state, in the order first seen,
 * its category guessed from its name.
 */
export async function csvPlan(file: NodeJS.ReadableStream, mapping: CsvMapping | undefined): Promise<ImportPlan> {
  if (!mapping) throw formatError('A csv import needs a `mapping` part: JSON naming the column of each field, at least {"title": "<column>"}');
  const table = await readCsv(file, 'a CSV file');
  const columns = [mapping.title, mapping.description, mapping.status, mapping.priority, mapping.dueDate, mapping.assigneeEmail, mapping.labels, ...Object.values(mapping.fields ?? {})].filter((name) => name !== undefined);
  const missing = columns.filter((name) => table.columns(name).length === 0);
  if (missing.length > 0) throw formatError(`The mapping names columns the file does not have: ${missing.map((name) => `"${name}"`).join(', ')} (its columns: ${table.header.map((name) => `"${name}"`).join(', ')})`);
  const plan: ImportPlan = { project: { name: 'Imported CSV', description: '' }, states: [], labels: [], fields: Object.keys(mapping.fields ?? {}).map(textField), tasks: [], warnings: [] };
  const stateOf = new Map<string, string>();
  const taken = new Set<string>();
  for (const row of table.rows) {
    const status = mapping.status ? table.cell(row, mapping.status) : '';
    if (!status || stateOf.has(status.toLowerCase())) continue;
    const name = uniqueName(status, taken, STATE_NAME_MAX, 'Status');
    stateOf.set(status.toLowerCase(), name);
    plan.states.push({ name, category: categoryOfName(name, plan.states.length === 0 ? 'unstarted' : 'started') });
  }
  const firstOpen = ensureCategory(plan, 'unstarted', 'To do');
  ensureCategory(plan, 'completed', 'Done');
  table.rows.forEach((row, index) => {
    const title = table.cell(row, mapping.title);
    if (!title) {
      plan.warnings.push(`Row ${index + 2}: no title in "${mapping.title}", so it was left out`);
      return;
    }
    const priorityText = mapping.priority ? table.cell(row, mapping.priority).toUpperCase() : '';
    const priority = PRIORITIES.find((value) => value === priorityText);
    if (priorityText && !priority) plan.warnings.push(`Row ${index + 2}: priority "${priorityText}" is none of ${PRIORITIES.join(', ')}, so it is MEDIUM`);
    const email = mapping.assigneeEmail ? table.cell(row, mapping.assigneeEmail) : '';
    const dueText = mapping.dueDate ? table.cell(row, mapping.dueDate) : '';
    const dueDate = dateOf(dueText);
    if (dueText && !dueDate) plan.warnings.push(`Row ${index + 2}: "${dueText}" is not a date, so it has no due date`);
    const fields: Record<string, string> = {};
    for (const [field, column] of Object.entries(mapping.fields ?? {})) {
      const value = table.cell(row, column);
      if (value) fields[field] = value;
    }
    const task: PlannedTask = {
      ref: String(index),
      title: clipTitle(title),
      description: clipDescription(mapping.description ? table.cell(row, mapping.description) : ''),
      state: (mapping.status ? stateOf.get(table.cell(row, mapping.status).toLowerCase()) : undefined) ?? firstOpen,
      labels: mapping.labels ? table.cells(row, mapping.labels).flatMap((cell) => cell.split(',')).map((label) => label.trim()).filter(Boolean) : [],
      comments: [],
      relations: [],
      fields,
      ...(priority ? { priority } : {}),
      ...(dueDate ? { dueDate } : {}),
      ...(email ? { assignee: { name: email, email } } : {}),
    };
    plan.tasks.push(task);
  });
  return plan;
}
