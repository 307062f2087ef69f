import type { Member, Role, Task, TaskPriority } from '@tasklane/schemas';
import { dateFormat, numberFormat, t } from './i18n';
import { isClosed } from './states';

/** In rank order (lowest first), as the server sorts them. */
export const PRIORITIES: readonly TaskPriority[] = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'];
const ROLES: readonly Role[] = ['VIEWER', 'EDITOR', 'ADMIN'];

/** A priority's name in the language now. */
export const priorityLabel = (priority: TaskPriority) => t(`format.priority.${priority}`);
/** A role's name in the language now. */
export const roleLabel = (role: Role) => t(`format.role.${role}`);
/** Every priority's name (for a menu of them), in rank order. */
export const priorityLabels = () => Object.fromEntries(PRIORITIES.map((priority) => [priority, priorityLabel(priority)])) as Record<TaskPriority, string>;
/** Every role's name (for a menu of them), least first. */
export const roleLabels = () => Object.fromEntries(ROLES.map((role) => [role, roleLabel(role)])) as Record<Role, string>;

/** What a role may do, as the server's policy table says (the server still decides). */
/** A member's name by user id; someone who has left the project since is "a former member". */
export const memberName = (members: readonly Member[], userId: string) => members.find((member) => member.userId === userId)?.name ?? t('common.formerMember');

export const canEditTasks = (role: Role | undefined) => role === 'EDITOR' || role === 'ADMIN';
export const canAdminister = (role: Role | undefined) => role === 'ADMIN';

/** `closed`: the keys of the project's closing states (states.ts closedKeys). */
export const isOverdue = (task: Pick<Task, 'dueDate' | 'status' | 'completedAt'>, closed: ReadonlySet<string>, now = Date.now()) =>
  task.dueDate !== null && !isClosed(task, closed) && Date.parse(task.dueDate) < now;

export const formatDay = (iso: string) => dateFormat({ day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(iso));
export const formatTime = (iso: string) => dateFormat({ dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

/** A due date is a day: the end of that day in the user's time zone, sent as a UTC date-time. */
export const dueDateFromDay = (day: string): string | null => (day ? new Date(`${day}T23:59:59.999`).toISOString() : null);
export function dayFromDueDate(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A file's size for people: "820 bytes", "1.4 MB" (powers of 1000, as file managers show them). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return t('format.bytes', { count: bytes });
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${numberFormat({ maximumFractionDigits: 1 }).format(value)} ${units[unit]}`;
}
