import type { Project, Task } from '@tasklane/schemas';
import { collect, keys, loadProjects } from '../data';
import { formatDay, isOverdue, priorityLabel } from '../format';
import { closedKeys, humanizeKey } from '../states';
import { useQuery } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { EmptyState, ErrorNote, Loading, Page } from '../ui';

async function loadMyTasks(): Promise<{ tasks: Task[]; projects: Map<string, Project> }> {
  const [tasks, projects] = await Promise.all([
    collect(client.paginate(client.tasks.listMine, { assigneeId: 'me', sort: 'dueDate', limit: 500 })),
    loadProjects(),
  ]);
  return { tasks, projects: new Map(projects.map((project) => [project.id, project])) };
}

/** Across projects, without each one's states: a completed task, or one in a default closing state, is not overdue. */
const CLOSED = closedKeys(undefined);

const DAY = 86_400_000;
/** Soonest first; each is also its heading's key in the catalogue (myTasks.groups). */
const GROUPS = ['overdue', 'today', 'tomorrow', 'thisWeek', 'later', 'noDueDate'] as const;
type Group = (typeof GROUPS)[number];

/** Which heading a task falls under, by its due date in the browser's time zone. */
function groupOf(task: Task, now = new Date()): Group {
  if (!task.dueDate) return 'noDueDate';
  if (isOverdue(task, CLOSED, now.getTime())) return 'overdue';
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const due = Date.parse(task.dueDate);
  if (due < today + DAY) return 'today';
  if (due < today + 2 * DAY) return 'tomorrow';
  if (due < today + 7 * DAY) return 'thisWeek';
  return 'later';
}

/** The tasks assigned to me in every project, grouped by when they are due, soonest first. */
export function MyTasksPage() {
  const mine = useQuery(keys.myTasks, loadMyTasks);
  const groups = new Map<Group, Task[]>();
  for (const task of mine.data?.tasks ?? []) {
    const group = groupOf(task);
    groups.set(group, [...(groups.get(group) ?? []), task]);
  }
  return (
    <Page title={t('myTasks.title')} narrow>
      <ErrorNote error={mine.error} />
      {!mine.data && !mine.error && <Loading what={t('myTasks.loadingWhat')} />}
      {mine.data?.tasks.length === 0 && (
        <EmptyState title={t('myTasks.empty')} hint={t('myTasks.emptyHint')} action={<a href="/">{t('myTasks.emptyAction')}</a>} />
      )}
      {GROUPS.filter((group) => groups.has(group)).map((group) => (
        <section key={group} class="due-group" aria-labelledby={`due-${group}`}>
          <h2 id={`due-${group}`}>
            {t(`myTasks.groups.${group}`)} <span class="count">{groups.get(group)!.length}</span>
          </h2>
          <ul class="my-tasks">
            {groups.get(group)!.map((task) => (
              <li key={task.id} class={`card${isOverdue(task, CLOSED) ? ' overdue' : ''}`} data-task-id={task.id}>
                <a class="task-title" href={`/projects/${task.projectId}/tasks/${task.id}`}>
                  {task.title}
                </a>
                <span class="muted">{mine.data?.projects.get(task.projectId)?.name}</span>
                <span class="status">{humanizeKey(task.status)}</span>
                <span class={`priority priority-${task.priority.toLowerCase()}`}>{priorityLabel(task.priority)}</span>
                {task.dueDate && (
                  <span class="due">
                    {isOverdue(task, CLOSED) ? <strong>{t('myTasks.overdue')}</strong> : t('myTasks.due')}
                    {formatDay(task.dueDate)}
                  </span>
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </Page>
  );
}
