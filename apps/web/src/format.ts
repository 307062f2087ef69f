import type { Role, Task, TaskPriority, TaskStatus } from '@tasklane/schemas';

/** Board columns, in workflow order; `satisfies` keeps them in step with the API's statuses. */
export const STATUS_LABELS = {
  TODO: 'To do',
  IN_PROGRESS: 'In progress',
  IN_REVIEW: 'In review',
  DONE: 'Done',
  CANCELLED: 'Cancelled',
} as const satisfies Record<TaskStatus, string>;
export const STATUSES = Object.keys(STATUS_LABELS) as TaskStatus[];

/** In rank order (lowest first), as the server sorts them. */
export const PRIORITY_LABELS = { LOW: 'Low', MEDIUM: 'Medium', HIGH: 'High', URGENT: 'Urgent' } as const satisfies Record<TaskPriority, string>;
export const PRIORITIES = Object.keys(PRIORITY_LABELS) as TaskPriority[];

export const ROLE_LABELS = { VIEWER: 'Viewer', EDITOR: 'Editor', ADMIN: 'Admin' } as const satisfies Record<Role, string>;

/** What a role may do, as the server's policy table says (the server still decides). */
export const canEditTasks = (role: Role | undefined) => role === 'EDITOR' || role === 'ADMIN';
export const canAdminister = (role: Role | undefined) => role === 'ADMIN';

const CLOSED: TaskStatus[] = ['DONE', 'CANCELLED'];
export const isOverdue = (task: Pick<Task, 'dueDate' | 'status'>, now = Date.now()) =>
  task.dueDate !== null && !CLOSED.includes(task.status) && Date.parse(task.dueDate) < now;

const dayFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const formatDay = (iso: string) => dayFormat.format(new Date(iso));
export const formatTime = (iso: string) => timeFormat.format(new Date(iso));

/** A due date is a day: the end of that day in the user's time zone, sent as a UTC date-time. */
export const dueDateFromDay = (day: string): string | null => (day ? new Date(`${day}T23:59:59.999`).toISOString() : null);
export function dayFromDueDate(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
