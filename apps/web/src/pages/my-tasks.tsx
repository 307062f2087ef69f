import type { Project, Task } from '@tasklane/schemas';
import { collect } from '../data';
import { formatDay, isOverdue, PRIORITY_LABELS, STATUS_LABELS } from '../format';
import { useLoad } from '../hooks';
import { client } from '../session';
import { ErrorNote, Loading, Page } from '../ui';

async function loadMyTasks(): Promise<{ tasks: Task[]; projects: Map<string, Project> }> {
  const [tasks, projects] = await Promise.all([
    collect(client.paginate(client.tasks.listMine, { assigneeId: 'me', sort: 'dueDate', limit: 500 })),
    collect(client.paginate(client.projects.list, {})),
  ]);
  return { tasks, projects: new Map(projects.map((project) => [project.id, project])) };
}

/** The tasks assigned to me in every project, soonest due first. */
export function MyTasksPage() {
  const mine = useLoad(loadMyTasks, []);
  return (
    <Page title="My tasks">
      <ErrorNote error={mine.error} />
      {!mine.data && !mine.error && <Loading what="your tasks" />}
      {mine.data?.tasks.length === 0 && <p class="muted">Nothing is assigned to you.</p>}
      <ul class="my-tasks">
        {mine.data?.tasks.map((task) => (
          <li key={task.id} class={`card${isOverdue(task) ? ' overdue' : ''}`}>
            <a class="task-title" href={`/projects/${task.projectId}/tasks/${task.id}`}>
              {task.title}
            </a>
            <span class="muted">{mine.data?.projects.get(task.projectId)?.name}</span>
            <span class="status">{STATUS_LABELS[task.status]}</span>
            <span class={`priority priority-${task.priority.toLowerCase()}`}>{PRIORITY_LABELS[task.priority]}</span>
            {task.dueDate && (
              <span class="due">
                {isOverdue(task) ? <strong>Overdue · </strong> : 'Due '}
                {formatDay(task.dueDate)}
              </span>
            )}
          </li>
        ))}
      </ul>
    </Page>
  );
}
