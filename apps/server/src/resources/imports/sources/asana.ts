import { STATE_NAME_MAX } from '@tasklane/schemas';
import { clipDescription, clipTitle, dateOf, type ImportPlan, uniqueName } from '../plan';
import { readCsv, requireColumns } from './csv-table';
import { categoryOfName } from './states';
import { ensureCategory } from './trello';

/**
 * `asana`: the CSV Asana's project export writes (Export/Print → CSV). Sections become states in
 * the order they first appear; a task with "Completed At" is done; tags become labels; "Parent
 * task" (the parent's name) makes a subtask of the task of that name; the assignee is matched by
 * "Assignee Email".
 */
export async function asanaPlan(file: NodeJS.ReadableStream): Promise<ImportPlan> {
  const table = await readCsv(file, "Asana's CSV export");
  requireColumns(table, ['Task ID', 'Name'], "Asana's CSV export");
  const plan: ImportPlan = { project: { name: 'Asana', description: '' }, states: [], labels: [], fields: [], tasks: [], warnings: [] };
  const projects = new Set<string>();
  const idOfName = new Map<string, string>();
  for (const row of table.rows) {
    const id = table.cell(row, 'Task ID');
    const name = table.cell(row, 'Name');
    if (id && name && !idOfName.has(name)) idOfName.set(name, id);
  }
  const sectionStates = new Map<string, string>();
  const taken = new Set<string>();
  for (const row of table.rows) {
    const section = table.cell(row, 'Section/Column');
    if (!section || sectionStates.has(section.toLowerCase())) continue;
    const name = uniqueName(section, taken, STATE_NAME_MAX, 'Section');
    sectionStates.set(section.toLowerCase(), name);
    plan.states.push({ name, category: categoryOfName(name, plan.states.length === 0 ? 'unstarted' : 'started') });
  }
  const firstOpen = ensureCategory(plan, 'unstarted', 'To do');
  const done = ensureCategory(plan, 'completed', 'Done');
  for (const row of table.rows) {
    const id = table.cell(row, 'Task ID');
    if (!id) continue;
    const project = table.cell(row, 'Projects');
    if (project) projects.add(project);
    const parentName = table.cell(row, 'Parent task');
    const parentRef = parentName ? idOfName.get(parentName) : undefined;
    if (parentName && !parentRef) plan.warnings.push(`${table.cell(row, 'Name')}: its parent task "${parentName}" is not in the file, so it is a task of its own`);
    const email = table.cell(row, 'Assignee Email');
    const assignee = table.cell(row, 'Assignee');
    const dueDate = dateOf(table.cell(row, 'Due Date'));
    const startDate = dateOf(table.cell(row, 'Start Date'));
    const createdAt = dateOf(table.cell(row, 'Created At'));
    const completedAt = dateOf(table.cell(row, 'Completed At'));
    plan.tasks.push({
      ref: id,
      title: clipTitle(table.cell(row, 'Name')),
      description: clipDescription(table.cell(row, 'Notes')),
      state: table.cell(row, 'Completed At') ? done : (sectionStates.get(table.cell(row, 'Section/Column').toLowerCase()) ?? firstOpen),
      labels: table.cells(row, 'Tags').flatMap((cell) => cell.split(',')).map((tag) => tag.trim()).filter(Boolean),
      comments: [],
      relations: [],
      fields: {},
      ...(parentRef && parentRef !== id ? { parentRef } : {}),
      ...(email || assignee ? { assignee: { name: assignee || email, ...(email ? { email } : {}) } } : {}),
      ...(dueDate ? { dueDate } : {}),
      ...(startDate && (!dueDate || startDate <= dueDate) ? { startDate } : {}),
      ...(createdAt ? { createdAt } : {}),
      ...(completedAt ? { completedAt } : {}),
    });
  }
  if (projects.size === 1) plan.project.name = [...projects][0]!;
  return plan;
}
