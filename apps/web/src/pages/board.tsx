import {
  DndContext,
  DragOverlay,
  KeyboardSensor,
  MouseSensor,
  TouchSensor,
  useDraggable,
  useDroppable,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type DragStartEvent,
  type KeyboardCoordinateGetter,
} from '@dnd-kit/core';
import type { Label, Member, Task, TaskStatus } from '@tasklane/schemas';
import { useLocation } from 'preact-iso';
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useCurrentUser } from '../current-user';
import { keys, loadLabels, loadMembers, loadTasks, matches, NO_FILTERS, type TaskFilters } from '../data';
import { canEditTasks, formatDay, isOverdue, PRIORITY_LABELS, STATUS_LABELS, STATUSES } from '../format';
import { useQuery } from '../hooks';
import { useProjectEvents } from '../live';
import { client } from '../session';
import { focusTask, useTaskShortcuts } from '../shortcuts';
import { changeTask } from '../task-actions';
import { Avatar, EnumOptions, ErrorNote, Icon, LabelChips, Loading, MemberOptions, Page, SubtaskProgress } from '../ui';
import { NewTaskDialog } from './new-task';
import { TaskList } from './task-list';
import { TaskDetail } from './task-detail';

export type View = 'board' | 'list';

/** The palette's "New task" reaches the open board through this event. */
export const NEW_TASK_EVENT = 'tasklane:new-task';

export function BoardPage({ params, view: shown }: { params: { projectId: string; taskId?: string }; view?: View }) {
  const { projectId, taskId } = params;
  const { route, query } = useLocation();
  // A task opened from the list keeps the list behind its dialog (`?view=list`).
  const view: View = shown ?? (query.view === 'list' ? 'list' : 'board');
  const me = useCurrentUser();
  const project = useQuery(keys.project(projectId), () => client.projects.get({ id: projectId }));
  const members = useQuery(keys.members(projectId), () => loadMembers(projectId));
  const tasks = useQuery(keys.tasks(projectId), () => loadTasks(projectId));
  const labels = useQuery(keys.labels(projectId), () => loadLabels(projectId));
  const [filters, setFilters] = useState<TaskFilters>(NO_FILTERS);
  const [creating, setCreating] = useState<TaskStatus | undefined>(undefined);
  const search = useRef<HTMLInputElement>(null);
  const live = useProjectEvents(projectId);

  const role = project.data?.role;
  const editable = canEditTasks(role);
  const visible = useMemo(() => (tasks.data ?? []).filter((task) => matches(task, filters, me.id)), [tasks.data, filters, me.id]);

  useTaskShortcuts({
    tasks: visible,
    editable,
    onNew: () => setCreating('TODO'),
    onSearch: () => search.current?.focus(),
    // `?edit`: the dialog opens with the title selected (the address carries it across the route change).
    onEdit: (task) => route(`/projects/${projectId}/tasks/${task.id}?edit${view === 'list' ? '&view=list' : ''}`),
    onAssignToMe: (task) => void changeTask(task, { assigneeId: me.id }),
    onStatus: (task, status) => void changeTask(task, { status }),
  });
  useNewTaskEvent(() => editable && setCreating('TODO'));
  useKeepFocus(visible, Boolean(taskId || creating));

  if (project.error) return <Page title="Board"><ErrorNote error={project.error} /></Page>;
  if (!project.data) return <Loading what="the board" />;

  return (
    <Page
      title={project.data.name}
      actions={
        <nav class="row" aria-label="Project">
          <a href={`/projects/${projectId}`} aria-current={view === 'board' ? 'page' : undefined}>
            Board
          </a>
          <a href={`/projects/${projectId}/list`} aria-current={view === 'list' ? 'page' : undefined}>
            List
          </a>
          <a href={`/projects/${projectId}/members`}>Members</a>
          <span class="muted" role="status">
            {live}
          </span>
        </nav>
      }
    >
      <Filters members={members.data ?? []} labels={labels.data ?? []} filters={filters} setFilters={setFilters} search={search} />
      <ErrorNote error={tasks.error} />
      {view === 'board' ? (
        <Board tasks={visible} members={members.data ?? []} labels={labels.data ?? []} editable={editable} loading={tasks.loading} onNew={setCreating} />
      ) : (
        <TaskList tasks={visible} members={members.data ?? []} labels={labels.data ?? []} editable={editable} />
      )}
      {creating && (
        <NewTaskDialog
          projectId={projectId}
          status={creating}
          onClose={(created) => {
            setCreating(undefined);
            if (created) requestAnimationFrame(() => focusTask(created.id));
          }}
        />
      )}
      {taskId && (
        <TaskDetail
          key={taskId}
          taskId={taskId}
          project={project.data}
          members={members.data ?? []}
          labels={labels.data ?? []}
          editFirst={query.edit !== undefined}
          onClose={() => {
            route(new URLSearchParams(window.location.search).get('view') === 'list' ? `/projects/${projectId}/list` : `/projects/${projectId}`);
            requestAnimationFrame(() => focusTask(taskId));
          }}
        />
      )}
    </Page>
  );
}

/** Runs `open` when the command palette asks for a new task. */
function useNewTaskEvent(open: () => void) {
  const latest = useRef(open);
  latest.current = open;
  useLayoutEffect(() => {
    const listener = () => latest.current();
    window.addEventListener(NEW_TASK_EVENT, listener);
    return () => window.removeEventListener(NEW_TASK_EVENT, listener);
  }, []);
}

/**
 * Focus is never lost to a live update: when the focused card re-renders elsewhere (it moved column,
 * the list re-sorted) the focus follows it, by task id.
 */
function useKeepFocus(tasks: Task[], dialogOpen: boolean) {
  const focused = useRef<string | undefined>(undefined);
  useLayoutEffect(() => {
    const track = () => {
      const id = (document.activeElement as HTMLElement | null)?.closest?.<HTMLElement>('[data-task-id]')?.dataset.taskId;
      if (id) focused.current = id;
      else if (document.activeElement && document.activeElement !== document.body) focused.current = undefined;
    };
    document.addEventListener('focusin', track);
    return () => document.removeEventListener('focusin', track);
  }, []);
  useLayoutEffect(() => {
    const lost = !document.activeElement || document.activeElement === document.body || !document.activeElement.isConnected;
    if (focused.current && lost && !dialogOpen) focusTask(focused.current);
  });
  void tasks;
}

function Filters(props: {
  members: Member[];
  labels: Label[];
  filters: TaskFilters;
  setFilters: (update: (current: TaskFilters) => TaskFilters) => void;
  search: { current: HTMLInputElement | null };
}) {
  const { filters, setFilters } = props;
  const set = (key: keyof TaskFilters) => (event: Event) => {
    const value = (event.currentTarget as HTMLInputElement | HTMLSelectElement).value;
    setFilters((current) => ({ ...current, [key]: value }));
  };
  return (
    <form class="filters" role="search" aria-label="Filter tasks" onSubmit={(event) => event.preventDefault()}>
      <label>
        Assignee
        <select value={filters.assigneeId} onChange={set('assigneeId')}>
          <option value="">Anyone</option>
          <option value="me">Me</option>
          <option value="none">Unassigned</option>
          <MemberOptions members={props.members} />
        </select>
      </label>
      <label>
        Priority
        <select value={filters.priority} onChange={set('priority')}>
          <option value="">Any</option>
          <EnumOptions labels={PRIORITY_LABELS} />
        </select>
      </label>
      {props.labels.length > 0 && (
        <label>
          Label
          <select value={filters.labelId} onChange={set('labelId')}>
            <option value="">Any</option>
            {props.labels.map((label) => (
              <option key={label.id} value={label.id}>
                {label.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <label class="grow">
        <span>
          Search <kbd aria-hidden="true">/</kbd>
        </span>
        <input
          ref={props.search}
          type="search"
          value={filters.text}
          onInput={set('text')}
          onKeyDown={(event) => {
            // Esc clears the search and hands the keys back to the board.
            if (event.key !== 'Escape') return;
            event.preventDefault();
            setFilters((current) => ({ ...current, text: '' }));
            event.currentTarget.blur();
          }}
          placeholder="Title or description"
        />
      </label>
    </form>
  );
}

/**
 * Arrow keys while a card is lifted jump to the next or previous column (Right/Down, Left/Up). The
 * column aimed at is counted here, so quick presses never depend on the drop target having caught up.
 */
function useColumnJump() {
  const aimed = useRef(0);
  const getter: KeyboardCoordinateGetter = (event, { context: { droppableRects, collisionRect } }) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.code];
    if (!step || !collisionRect) return undefined;
    event.preventDefault();
    aimed.current = Math.max(0, Math.min(STATUSES.length - 1, aimed.current + step));
    const rect = droppableRects.get(STATUSES[aimed.current]!);
    if (!rect) return undefined;
    return { x: rect.left + (rect.width - collisionRect.width) / 2, y: rect.top + 8 };
  };
  return { getter, start: (status: TaskStatus) => (aimed.current = STATUSES.indexOf(status)) };
}

function Board(props: { tasks: Task[]; members: Member[]; labels: Label[]; editable: boolean; loading: boolean; onNew: (status: TaskStatus) => void }) {
  const { tasks, members, labels, editable } = props;
  const [dragged, setDragged] = useState<Task | undefined>(undefined);
  const jump = useColumnJump();
  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: 6 } }),
    // A short press lifts a card on a touch screen; a swipe before it scrolls as usual.
    useSensor(TouchSensor, { activationConstraint: { delay: 200, tolerance: 8 } }),
    useSensor(KeyboardSensor, { coordinateGetter: jump.getter, keyboardCodes: { start: ['Space'], cancel: ['Escape'], end: ['Space', 'Enter'] } }),
  );
  const byStatus = useMemo(() => {
    const columns = new Map<TaskStatus, Task[]>(STATUSES.map((status) => [status, []]));
    for (const task of tasks) columns.get(task.status)?.push(task);
    return columns;
  }, [tasks]);
  const titleOf = (id: unknown) => tasks.find((task) => task.id === id)?.title ?? 'the task';
  const columnOf = (id: unknown) => STATUS_LABELS[id as TaskStatus] ?? 'no column';
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Lifted “${titleOf(active.id)}”. Arrow keys move it between columns; Space drops it, Escape cancels.`,
    onDragOver: ({ active, over }) => `“${titleOf(active.id)}” is over ${columnOf(over?.id)}.`,
    onDragEnd: ({ active, over }) => (over ? `“${titleOf(active.id)}” dropped in ${columnOf(over.id)}.` : `“${titleOf(active.id)}” dropped back.`),
    onDragCancel: ({ active }) => `Moving “${titleOf(active.id)}” cancelled.`,
  };
  // While a card is lifted the board's shortcuts stand aside (`data-dragging`). It is set a tick
  // after the lift, once dnd-kit's keyboard sensor listens (it starts listening in a timeout too).
  const lifted = useRef(false);
  const lift = (task: Task | undefined) => {
    lifted.current = Boolean(task);
    setDragged(task);
    if (!task) delete document.body.dataset.dragging;
    else setTimeout(() => lifted.current && (document.body.dataset.dragging = 'true'));
  };
  const end = ({ active, over }: DragEndEvent) => {
    lift(undefined);
    const task = tasks.find((item) => item.id === active.id);
    const status = over?.id as TaskStatus | undefined;
    if (task && status && status !== task.status) void changeTask(task, { status });
  };
  return (
    <DndContext
      sensors={sensors}
      accessibility={{ announcements, screenReaderInstructions: { draggable: 'Press Space to lift the card, arrow keys to move it to another column, Space to drop it, Escape to cancel.' } }}
      onDragStart={({ active }: DragStartEvent) => {
        const task = tasks.find((item) => item.id === active.id);
        if (task) jump.start(task.status);
        lift(task);
      }}
      onDragEnd={end}
      onDragCancel={() => lift(undefined)}
    >
      <div class="board" aria-busy={props.loading}>
        {STATUSES.map((status) => (
          <Column key={status} status={status} tasks={byStatus.get(status) ?? []} members={members} labels={labels} editable={editable} onNew={props.onNew} />
        ))}
      </div>
      <DragOverlay>{dragged ? <CardFace task={dragged} members={members} labels={labels} /> : null}</DragOverlay>
    </DndContext>
  );
}

function Column(props: { status: TaskStatus; tasks: Task[]; members: Member[]; labels: Label[]; editable: boolean; onNew: (status: TaskStatus) => void }) {
  const { status, editable } = props;
  const { setNodeRef, isOver } = useDroppable({ id: status, disabled: !editable });
  const headingId = `column-${status}`;
  return (
    <section ref={setNodeRef} class={`column${isOver ? ' drop-target' : ''}`} aria-labelledby={headingId} data-status={status}>
      <div class="column-head">
        <h2 id={headingId}>
          {STATUS_LABELS[status]} <span class="count">{props.tasks.length}</span>
        </h2>
        {editable && (
          <button type="button" class="icon" onClick={() => props.onNew(status)} aria-label={`New task in ${STATUS_LABELS[status]}`} title="New task">
            +
          </button>
        )}
      </div>
      <ul class="cards">
        {props.tasks.map((task) => (
          <Card key={task.id} task={task} members={props.members} labels={props.labels} editable={editable} />
        ))}
      </ul>
    </section>
  );
}

/** What a card shows: key, title, labels, priority, due date, comment count, subtask progress, assignee. */
function CardFace({ task, members, labels, link = false }: { task: Task; members: Member[]; labels: Label[]; link?: boolean }) {
  const overdue = isOverdue(task);
  const assignee = task.assigneeId ? (members.find((member) => member.userId === task.assigneeId)?.name ?? 'A former member') : undefined;
  const comments = task.commentCount;
  return (
    <>
      <span class="task-key">{task.key}</span>
      {link ? (
        <a class="task-title" href={`/projects/${task.projectId}/tasks/${task.id}`} draggable={false}>
          {task.title}
        </a>
      ) : (
        <span class="task-title">{task.title}</span>
      )}
      <LabelChips ids={task.labelIds} labels={labels} />
      <div class="meta">
        <span class={`priority priority-${task.priority.toLowerCase()}`}>{PRIORITY_LABELS[task.priority]}</span>
        {task.dueDate && (
          <span class="due">
            {overdue ? <strong>Overdue · </strong> : 'Due '}
            <time dateTime={task.dueDate}>{formatDay(task.dueDate)}</time>
          </span>
        )}
        {comments ? (
          <span class="comment-count" title={`${comments} comment${comments === 1 ? '' : 's'}`}>
            <Icon name="comment" />
            {comments}
            <span class="visually-hidden"> comment{comments === 1 ? '' : 's'}</span>
          </span>
        ) : null}
        <SubtaskProgress task={task} />
        <span class="spacer" />
        {assignee ? <Avatar name={assignee} /> : <span class="visually-hidden">Unassigned</span>}
      </div>
    </>
  );
}

function Card({ task, members, labels, editable }: { task: Task; members: Member[]; labels: Label[]; editable: boolean }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, isDragging } = useDraggable({ id: task.id, disabled: !editable });
  const { role: _role, ...handleAttributes } = attributes; // the handle is a <button> already
  return (
    <li
      ref={setNodeRef}
      class={`task-card${isOverdue(task) ? ' overdue' : ''}${isDragging ? ' lifted' : ''}`}
      data-task-id={task.id}
      {...(editable ? listeners : {})}
    >
      <CardFace task={task} members={members} labels={labels} link />
      {editable && (
        <div class="card-tools">
          <button type="button" ref={setActivatorNodeRef} class="drag-handle" {...handleAttributes} aria-label={`Move ${task.title}`}>
            ⠿
          </button>
          <CardMenu task={task} />
        </div>
      )}
    </li>
  );
}

/** The card's menu: its status (what dragging does), and assign to me. */
function CardMenu({ task }: { task: Task }) {
  const me = useCurrentUser();
  const [open, setOpen] = useState(false);
  const id = `menu-${task.id}`;
  const choose = (patch: Parameters<typeof changeTask>[1]) => {
    setOpen(false);
    void changeTask(task, patch);
  };
  return (
    <div
      class="card-menu"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && open) {
          event.stopPropagation();
          setOpen(false);
        }
      }}
      onFocusOut={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button type="button" class="icon" aria-expanded={open} aria-controls={id} aria-label={`Actions for ${task.title}`} onClick={() => setOpen(!open)}>
        ⋯
      </button>
      {open && (
        <div class="menu-popup" id={id} role="group" aria-label={`Actions for ${task.title}`}>
          <p class="small muted">Status</p>
          {STATUSES.map((status) => (
            <button key={status} type="button" aria-pressed={task.status === status} onClick={() => choose({ status })}>
              {STATUS_LABELS[status]}
            </button>
          ))}
          {task.assigneeId !== me.id && (
            <button type="button" onClick={() => choose({ assigneeId: me.id })}>
              Assign to me
            </button>
          )}
        </div>
      )}
    </div>
  );
}
