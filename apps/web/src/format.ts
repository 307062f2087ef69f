import type { Role, Task, TaskPriority } from '@tasklane/schemas';
import { isClosed } from './states';

/** In rank order (lowest first), as the server sorts them. */
export const PRIORITY_LABELS = { LOW: 'Low', MEDIUM: 'Medium', HIGH: 'High', URGENT: 'Urgent' } as const satisfies Record<TaskPriority, string>;
export const PRIORITIES = Object.keys(PRIORITY_LABELS) as TaskPriority[];

export const ROLE_LABELS = { VIEWER: 'Viewer', EDITOR: 'Editor', ADMIN: 'Admin' } as const satisfies Record<Role, string>;

/** What a role may do, as the server's policy table says (the server still decides). */
export const canEditTasks = (role: Role | undefined) => role === 'EDITOR' || role === 'ADMIN';
export const canAdminister = (role: Role | undefined) => role === 'ADMIN';

/** `closed`: the keys of the project's closing states (states.ts closedKeys). */
export const isOverdue = (task: Pick<Task, 'dueDate' | 'status' | 'completedAt'>, closed: ReadonlySet<string>, now = Date.now()) =>
  task.dueDate !== null && !isClosed(task, closed) && Date.parse(task.dueDate) < now;

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

const sizeFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
/** A file's size for people: "820 bytes", "1.4 MB" (powers of 1000, as file managers show them). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${sizeFormat.format(value)} ${units[unit]}`;
}
