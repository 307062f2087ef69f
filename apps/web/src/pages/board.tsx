import type { Member, Project, Task, TaskStatus } from '@tasklane/schemas';
import { useLocation } from 'preact-iso';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { loadMembers, loadTasks, NO_FILTERS, type TaskFilters } from '../data';
import { canEditTasks, formatDay, isOverdue, PRIORITY_LABELS, STATUS_LABELS, STATUSES } from '../format';
import { useAction, useLoad } from '../hooks';
import { useProjectEvents } from '../live';
import { client } from '../session';
import { EnumOptions, ErrorNote, Loading, MemberOptions, Page } from '../ui';
import { TaskDetail } from './task-detail';

const DRAG_TYPE = 'application/x-tasklane-task';

export function BoardPage({ params }: { params: { projectId: string; taskId?: string } }) {
  const { projectId, taskId } = params;
  const { route } = useLocation();
  const project = useLoad(() => client.projects.get({ id: projectId }), [projectId]);
  const members = useLoad(() => loadMembers(projectId), [projectId]);
  const [filters, setFilters] = useState<TaskFilters>(NO_FILTERS);
  const [text, setText] = useState('');
  const tasks = useLoad(() => loadTasks(projectId, filters), [projectId, filters]);
  const move = useAction();

  // Typing filters after a short pause, so each keystroke is not a request.
  useEffect(() => {
    const timer = setTimeout(() => setFilters((current) => (current.text === text ? current : { ...current, text })), 250);
    return () => clearTimeout(timer);
  }, [text]);

  const [taskChanges, setTaskChanges] = useState(0);
  const live = useProjectEvents(projectId, (event) => {
    if (event.type.startsWith('task.')) tasks.reload();
    if (taskId && event.taskId === taskId) setTaskChanges((count) => count + 1);
    if (event.type.startsWith('member.')) {
      members.reload();
      project.reload();
    }
    if (event.type === 'project.updated') project.reload();
  });

  const role = project.data?.role;
  const editable = canEditTasks(role);
  const byStatus = useMemo(() => {
    const columns = new Map<TaskStatus, Task[]>(STATUSES.map((status) => [status, []]));
    for (const task of tasks.data ?? []) columns.get(task.status)?.push(task);
    return columns;
  }, [tasks.data]);

  const moveTask = async (id: string, status: TaskStatus) => {
    const task = tasks.data?.find((item) => item.id === id);
    if (!task || task.status === status) return;
    tasks.setData((list) => list?.map((item) => (item.id === id ? { ...item, status } : item)));
    const updated = await move.run(() => client.tasks.update({ id, status }));
    if (!updated) tasks.reload();
  };

  if (project.error) return <Page title="Board"><ErrorNote error={project.error} /></Page>;
  if (!project.data) return <Loading what="the board" />;

  return (
    <Page
      title={project.data.name}
      actions={
        <nav class="row" aria-label="Project">
          <a href={`/projects/${projectId}/members`}>Members</a>
          <span class="muted" role="status">{live}</span>
        </nav>
      }
    >
      <Filters members={members.data ?? []} filters={filters} text={text} setText={setText} setFilters={setFilters} />
      <ErrorNote error={tasks.error ?? move.error} />
      <div class="board" aria-busy={tasks.loading}>
        {STATUSES.map((status) => (
          <Column
            key={status}
            status={status}
            tasks={byStatus.get(status) ?? []}
            members={members.data ?? []}
            projectId={projectId}
            editable={editable}
            onMove={moveTask}
            onCreated={(task) => tasks.setData((list) => [...(list ?? []), task])}
          />
        ))}
      </div>
      {taskId && (
        <TaskDetail
          key={taskId}
          taskId={taskId}
          project={project.data as Project}
          members={members.data ?? []}
          liveChanges={taskChanges}
          onClose={() => route(`/projects/${projectId}`)}
          onChanged={tasks.reload}
        />
      )}
    </Page>
  );
}

function Filters(props: {
  members: Member[];
  filters: TaskFilters;
  text: string;
  setText: (text: string) => void;
  setFilters: (update: (current: TaskFilters) => TaskFilters) => void;
}) {
  const { filters, setFilters } = props;
  return (
    <form class="filters" role="search" aria-label="Filter tasks" onSubmit={(event) => event.preventDefault()}>
      <label>
        Assignee
        <select value={filters.assigneeId} onChange={(e) => setFilters((current) => ({ ...current, assigneeId: e.currentTarget.value }))}>
          <option value="">Anyone</option>
          <option value="me">Me</option>
          <option value="none">Unassigned</option>
          <MemberOptions members={props.members} />
        </select>
      </label>
      <label>
        Priority
        <select
          value={filters.priority}
          onChange={(e) => setFilters((current) => ({ ...current, priority: e.currentTarget.value as TaskFilters['priority'] }))}
        >
          <option value="">Any</option>
          <EnumOptions labels={PRIORITY_LABELS} />
        </select>
      </label>
      <label class="grow">
        Search
        <input type="search" value={props.text} onInput={(e) => props.setText(e.currentTarget.value)} placeholder="Title or description" />
      </label>
    </form>
  );
}

function Column(props: {
  status: TaskStatus;
  tasks: Task[];
  members: Member[];
  projectId: string;
  editable: boolean;
  onMove: (id: string, status: TaskStatus) => void;
  onCreated: (task: Task) => void;
}) {
  const { status, editable } = props;
  const [over, setOver] = useState(false);
  const headingId = `column-${status}`;
  const dropHandlers = editable
    ? {
        onDragOver: (event: DragEvent) => {
          if (!event.dataTransfer?.types.includes(DRAG_TYPE)) return;
          event.preventDefault();
          event.dataTransfer.dropEffect = 'move';
          setOver(true);
        },
        onDragLeave: () => setOver(false),
        onDrop: (event: DragEvent) => {
          event.preventDefault();
          setOver(false);
          const id = event.dataTransfer?.getData(DRAG_TYPE);
          if (id) props.onMove(id, status);
        },
      }
    : {};
  return (
    <section class={`column${over ? ' drop-target' : ''}`} aria-labelledby={headingId} data-status={status} {...dropHandlers}>
      <h2 id={headingId}>
        {STATUS_LABELS[status]} <span class="count">{props.tasks.length}</span>
      </h2>
      <ul class="cards">
        {props.tasks.map((task) => (
          <Card key={task.id} task={task} members={props.members} editable={editable} onMove={props.onMove} />
        ))}
      </ul>
      {editable && <NewTask projectId={props.projectId} status={status} onCreated={props.onCreated} />}
    </section>
  );
}

function Card({ task, members, editable, onMove }: { task: Task; members: Member[]; editable: boolean; onMove: (id: string, status: TaskStatus) => void }) {
  const overdue = isOverdue(task);
  const assignee = task.assigneeId ? (members.find((member) => member.userId === task.assigneeId)?.name ?? 'A former member') : undefined;
  return (
    <li
      class={`task-card${overdue ? ' overdue' : ''}`}
      data-task-id={task.id}
      draggable={editable}
      onDragStart={(event) => {
        event.dataTransfer?.setData(DRAG_TYPE, task.id);
        if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
      }}
    >
      {editable && <span class="drag-handle" aria-hidden="true" title="Drag to another column">⠿</span>}
      <a class="task-title" href={`/projects/${task.projectId}/tasks/${task.id}`}>
        {task.title}
      </a>
      <div class="meta">
        <span class={`priority priority-${task.priority.toLowerCase()}`}>{PRIORITY_LABELS[task.priority]}</span>
        {assignee && <span class="assignee">{assignee}</span>}
        {task.dueDate && (
          <span class="due">
            {overdue ? <strong>Overdue · </strong> : 'Due '}
            <time dateTime={task.dueDate}>{formatDay(task.dueDate)}</time>
          </span>
        )}
      </div>
      {editable && (
        <label class="move">
          <span class="visually-hidden">Status of {task.title}</span>
          <select value={task.status} onChange={(e) => onMove(task.id, e.currentTarget.value as TaskStatus)}>
            <EnumOptions labels={STATUS_LABELS} />
          </select>
        </label>
      )}
    </li>
  );
}

function NewTask({ projectId, status, onCreated }: { projectId: string; status: TaskStatus; onCreated: (task: Task) => void }) {
  const [title, setTitle] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const task = await run(() => client.tasks.create({ projectId, title, status }));
    if (!task) return;
    onCreated(task);
    setTitle('');
  };
  return (
    <form class="new-task" onSubmit={submit}>
      <label>
        <span class="visually-hidden">New task in {STATUS_LABELS[status]}</span>
        <input value={title} onInput={(e) => setTitle(e.currentTarget.value)} placeholder="Add a task…" required maxLength={500} />
      </label>
      <button type="submit" disabled={busy} aria-label={`Add task to ${STATUS_LABELS[status]}`}>
        Add
      </button>
      <ErrorNote error={error} />
    </form>
  );
}
