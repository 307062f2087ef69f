import type { Activity, Member, State, TaskPriority } from '@tasklane/schemas';
import type { HistoryEntry } from '../data';
import { useCurrentUser } from '../current-user';
import { formatDay, formatTime, PRIORITIES, priorityLabel } from '../format';
import { t } from '../i18n';
import { describeRule } from '../recurrence';
import { stateName } from '../states';
import type { Loaded } from '../hooks';
import { ErrorNote } from '../ui';

/**
 * The fields whose change has a sentence of its own (each language words each field its own way).
 * The English of the fields after `recurrence` names them by their API names, as this page always did.
 */
const CHANGED_FIELDS = ['title', 'description', 'status', 'priority', 'dueDate', 'assigneeId', 'recurrence', 'startDate', 'completedAt', 'labelIds', 'parentId', 'position', 'estimate', 'fields'] as const;
type ChangedField = (typeof CHANGED_FIELDS)[number];
const isChangedField = (field: string): field is ChangedField => (CHANGED_FIELDS as readonly string[]).includes(field);

/** The catalogue key (under `taskHistory.happened`) of each event said in words. */
const WHAT_HAPPENED: Partial<Record<Activity['type'], 'taskCreated' | 'taskDeleted' | 'commentCreated' | 'commentUpdated' | 'commentDeleted'>> = {
  'task.created': 'taskCreated',
  'task.deleted': 'taskDeleted',
  'comment.created': 'commentCreated',
  'comment.updated': 'commentUpdated',
  'comment.deleted': 'commentDeleted',
};

/** An attachment's event names the file (its resource is the Attachment). */
function describe(entry: HistoryEntry): string {
  const filename = (entry.resource as { filename?: unknown } | null)?.filename;
  if (typeof filename === 'string' && entry.type === 'attachment.created') return t('taskHistory.attached', { filename });
  if (typeof filename === 'string' && entry.type === 'attachment.deleted') return t('taskHistory.deletedFile', { filename });
  const happened = WHAT_HAPPENED[entry.type];
  return happened ? t(`taskHistory.happened.${happened}`) : entry.type;
}

/** The task's history, newest first: who changed what, from what to what. */
export function TaskHistory({ history, members, states }: { history: Loaded<HistoryEntry[]>; members: Member[]; states: readonly State[] | undefined }) {
  const me = useCurrentUser();
  const nameOf = (userId: unknown) =>
    typeof userId !== 'string'
      ? t('taskHistory.nobody')
      : userId === me.id
        ? me.name
        : (members.find((member) => member.userId === userId)?.name ?? t('taskHistory.formerMember'));

  const valueOf = (field: string, value: unknown): string => {
    if (value === null || value === undefined || value === '') return t('taskHistory.nothing');
    if (field === 'status') return stateName(states, String(value));
    if (field === 'priority') return PRIORITIES.includes(value as TaskPriority) ? priorityLabel(value as TaskPriority) : String(value);
    if (field === 'dueDate') return formatDay(String(value));
    if (field === 'assigneeId') return nameOf(value);
    if (field === 'description') return t('taskHistory.newText');
    if (field === 'recurrence') return describeRule(String(value));
    return t('taskHistory.quoted', { value: String(value) });
  };

  return (
    <section aria-labelledby="history-title">
      <h3 id="history-title">{t('taskHistory.title')}</h3>
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
                    {isChangedField(field)
                      ? t(`taskHistory.changed.${field}`, { from: valueOf(field, change?.old), to: valueOf(field, change?.new) })
                      : t('taskHistory.changed.other', { field, from: valueOf(field, change?.old), to: valueOf(field, change?.new) })}
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
