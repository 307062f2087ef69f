import { STATE_NAME_MAX, type StateCategory } from '@tasklane/schemas';
import { clipComment, clipDescription, clipTitle, dateOf, type ImportPlan, type PlannedTask, textField, uniqueName } from '../plan';
import { readCsv, requireColumns } from './csv-table';
import { categoryOfName } from './states';
import { ensureCategory } from './trello';

const JIRA_KEY = 'Jira key';
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** A date as Jira's CSV writes it ("12/Mar/24 3:15 PM", the default format), or any ISO date. */
export function jiraDate(text: string): Date | undefined {
  const match = /^(\d{1,2})\/([A-Za-z]{3})\/(\d{2,4})(?:\s+(\d{1,2}):(\d{2})(?:\s*([AP]M))?)?$/i.exec(text.trim());
  if (!match) return dateOf(text);
  const [, day, month, year, hours, minutes, half] = match;
  const monthIndex = MONTHS.indexOf(month!.toLowerCase());
  const clock = Number(hours ?? 0);
  if (monthIndex < 0 || Number(day) < 1 || Number(day) > 31 || Number(minutes ?? 0) > 59 || (half ? clock < 1 || clock > 12 : clock > 23)) return undefined;
  const hour = half ? (clock % 12) + (half.toUpperCase() === 'PM' ? 12 : 0) : clock;
  const fullYear = year!.length === 2 ? 2000 + Number(year) : Number(year);
  // Through dateOf: the API's range of years (1–9999).
  return dateOf(Date.UTC(fullYear, monthIndex, Number(day), hour, Number(minutes ?? 0)));
}

const PRIORITY: Record<string, PlannedTask['priority']> = { highest: 'URGENT', blocker: 'URGENT', critical: 'URGENT', high: 'HIGH', major: 'HIGH', medium: 'MEDIUM', low: 'LOW', minor: 'LOW', lowest: 'LOW', trivial: 'LOW' };
const CATEGORY: Record<string, StateCategory> = { 'to do': 'unstarted', 'in progress': 'started', done: 'completed' };

/**
 * `jira`: the CSV Jira's issue search exports (Export → CSV). Statuses become states in their
 * Jira category (the "Status Category" column when the export has it, else the name's); sub-tasks
 * become subtasks of their parent (Parent id, or Parent as a key); "Outward issue link (Blocks)"
 * becomes `blocks`; the repeated Labels and Comment columns become labels and comments (a comment
 * cell is "date;author;text"); the issue key stays in a text field named "Jira key".
 */
export async function jiraPlan(file: NodeJS.ReadableStream): Promise<ImportPlan> {
  const table = await readCsv(file, "Jira's CSV export");
  requireColumns(table, ['Summary', 'Issue key', 'Status'], "Jira's CSV export");
  const plan: ImportPlan = { project: { name: 'Jira', description: '' }, states: [], labels: [], fields: [textField(JIRA_KEY)], tasks: [], warnings: [] };
  const keyOfId = new Map<string, string>();
  for (const row of table.rows) {
    const id = table.cell(row, 'Issue id');
    if (id) keyOfId.set(id, table.cell(row, 'Issue key'));
  }
  // Comments name their authors by account id: the file's people columns tell their names.
  const nameOfAccount = new Map<string, string>();
  for (const row of table.rows) {
    for (const [name, id] of [['Assignee', 'Assignee Id'], ['Reporter', 'Reporter Id'], ['Creator', 'Creator Id'], ['Project lead', 'Project lead id'], ['Watchers', 'Watchers Id']]) {
      const names = table.columns(name!).map((i) => (row[i] ?? '').trim());
      const ids = table.columns(id!).map((i) => (row[i] ?? '').trim());
      ids.forEach((account, i) => account && names[i] && nameOfAccount.set(account, names[i]!));
    }
  }
  const projects = new Set<string>();
  const stateOf = new Map<string, string>();
  const stateNames = new Set<string>();
  for (const row of table.rows) {
    const key = table.cell(row, 'Issue key');
    if (!key) continue;
    const projectName = table.cell(row, 'Project name');
    if (projectName) projects.add(projectName);
    const status = table.cell(row, 'Status') || 'To Do';
    if (!stateOf.has(status.toLowerCase())) {
      const name = uniqueName(status, stateNames, STATE_NAME_MAX, 'Status');
      stateOf.set(status.toLowerCase(), name);
      const category = CATEGORY[table.cell(row, 'Status Category').toLowerCase()] ?? categoryOfName(name, 'unstarted');
      plan.states.push({ name, category: categoryOfName(name, category) === 'cancelled' ? 'cancelled' : category });
    }
    const parent = table.cell(row, 'Parent id') || table.cell(row, 'Parent');
    const parentRef = keyOfId.get(parent) ?? (parent || undefined);
    const assignee = table.cell(row, 'Assignee');
    const assigneeEmail = table.cell(row, 'Assignee Email') || table.cell(row, 'Assignee email');
    const priority = PRIORITY[table.cell(row, 'Priority').toLowerCase()];
    const dueDate = jiraDate(table.cell(row, 'Due date') || table.cell(row, 'Due Date'));
    const createdAt = jiraDate(table.cell(row, 'Created'));
    const resolvedAt = jiraDate(table.cell(row, 'Resolved'));
    plan.tasks.push({
      ref: key,
      title: clipTitle(table.cell(row, 'Summary')),
      description: clipDescription(table.cell(row, 'Description')),
      state: stateOf.get(status.toLowerCase())!,
      labels: table.cells(row, 'Labels').flatMap((cell) => cell.split(/\s+/)).filter(Boolean),
      comments: table.cells(row, 'Comment').map((cell) => {
        // "12/Mar/24 3:15 PM;<author>;text": the text may hold semicolons of its own.
        const [date, author, ...text] = cell.split(';');
        const when = text.length > 0 ? jiraDate(date ?? '') : undefined;
        // Mentions are account ids in Jira's markup ("[~accountid:…]"): named here as people read them.
        const body = text.join(';').replace(/\[~accountid:([^\]]+)\]/g, (mention, id: string) => (nameOfAccount.has(id) ? `@${nameOfAccount.get(id)}` : mention));
        return text.length > 0
          ? { author: author ? { name: nameOfAccount.get(author) ?? author } : undefined, text: clipComment(body.trim()), ...(when ? { createdAt: when } : {}) }
          : { author: undefined, text: clipComment(cell) };
      }),
      relations: table.cells(row, 'Outward issue link (Blocks)').flatMap((cell) => cell.split(/[\s,]+/)).filter(Boolean).map((targetRef) => ({ type: 'blocks' as const, targetRef })),
      fields: { [JIRA_KEY]: key },
      ...(parentRef && parentRef !== key ? { parentRef } : {}),
      ...(priority ? { priority } : {}),
      ...(dueDate ? { dueDate } : {}),
      ...(createdAt ? { createdAt } : {}),
      ...(resolvedAt ? { completedAt: resolvedAt } : {}),
      ...(assignee || assigneeEmail ? { assignee: { name: assignee || assigneeEmail, ...(assigneeEmail ? { email: assigneeEmail } : {}) } } : {}),
    });
  }
  ensureCategory(plan, 'unstarted', 'To Do');
  ensureCategory(plan, 'completed', 'Done');
  if (projects.size === 1) plan.project.name = [...projects][0]!;
  // Oldest first (Jira lists newest first), parents before their sub-tasks.
  plan.tasks.reverse();
  return plan;
}
