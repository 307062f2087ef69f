import type { Activity, Member, State, TaskPriority } from '@tasklane/schemas';
import type { HistoryEntry } from '../data';
import { useCurrentUser } from '../current-user';
import { formatDay, formatTime, PRIORITY_LABELS } from '../format';
import { describeRule } from '../recurrence';
import { stateName } from '../states';
import type { Loaded } from '../hooks';
import { ErrorNote } from '../ui';

const FIELD_NAMES: Record<string, string> = {
  title: 'title',
  description: 'description',
  status: 'status',
  priority: 'priority',
  dueDate: 'due date',
  assigneeId: 'assignee',
  recurrence: 'repeat',
};

const WHAT_HAPPENED: Partial<Record<Activity['type'], string>> = {
  'task.created': 'created the task',
  'task.deleted': 'deleted the task',
  'comment.created': 'commented',
  'comment.updated': 'edited a comment',
  'comment.deleted': 'deleted a comment',
};

/** An attachment's event names the file (its resource is the Attachment). */
function describe(entry: HistoryEntry): string {
  const filename = (entry.resource as { filename?: unknown } | null)?.filename;
  if (typeof filename === 'string' && entry.type === 'attachment.created') return `attached “${filename}”`;
  if (typeof filename === 'string' && entry.type === 'attachment.deleted') return `deleted the file “${filename}”`;
  return WHAT_HAPPENED[entry.type] ?? entry.type;
}

/** The task's history, newest first: who changed what, from what to what. */
export function TaskHistory({ history, members, states }: { history: Loaded<HistoryEntry[]>; members: Member[]; states: readonly State[] | undefined }) {
  const me = useCurrentUser();
  const nameOf = (userId: unknown) =>
    typeof userId !== 'string' ? 'nobody' : userId === me.id ? me.name : (members.find((member) => member.userId === userId)?.name ?? 'a former member');

  const valueOf = (field: string, value: unknown): string => {
    if (value === null || value === undefined || value === '') return 'nothing';
    if (field === 'status') return stateName(states, String(value));
    if (field === 'priority') return PRIORITY_LABELS[value as TaskPriority] ?? String(value);
    if (field === 'dueDate') return formatDay(String(value));
    if (field === 'assigneeId') return nameOf(value);
    if (field === 'description') return 'a new text';
    if (field === 'recurrence') return describeRule(String(value));
    return `“${String(value)}”`;
  };

  return (
    <section aria-labelledby="history-title">
      <h3 id="history-title">History</h3>
      <ErrorNote error={history.error} />
      <ol class="history">
        {history.data?.map((entry) => (
          <li key={entry.id}>
            <p class="small muted">
              {nameOf(entry.actorId)} · <time dateTime={entry.time}>{formatTime(entry.time)}</time>
            </p>
            {entry.changes ? (
              <ul>
                {Object.entries(entry.changes).map(([field, change]) => (
                  <li key={field}>
                    changed the {FIELD_NAMES[field] ?? field} from {valueOf(field, change?.old)} to {valueOf(field, change?.new)}
                  </li>
                ))}
              </ul>
            ) : (
              <p>{describe(entry)}</p>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
