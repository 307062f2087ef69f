import { DndContext, DragOverlay, MouseSensor, pointerWithin, TouchSensor, useDraggable, useDroppable, useSensor, useSensors, type DragEndEvent, type DragStartEvent } from '@dnd-kit/core';
import type { Task } from '@tasklane/schemas';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { calendarKeys, collect, keys, type UndatedTasks } from '../data';
import { canEditTasks, dayFromDueDate, dueDateFromDay, priorityLabel } from '../format';
import { useAction, useQuery } from '../hooks';
import { dateFormat, t } from '../i18n';
import { useProjectEvents } from '../live';
import { client } from '../session';
import { focusTask } from '../shortcuts';
import { changeTask } from '../task-actions';
import { ErrorNote, Loading, Page } from '../ui';
import { ViewsMenu } from '../views';

export type CalendarMode = 'month' | 'week';

/** One request reads one page of this many tasks; the next page is asked for only when needed. */
const DUE_PAGE = 100;
/** The side list's page of tasks without a due date ("Show more" reads the next). */
export const UNDATED_PAGE = 20;

// Days are the browser's local days, as the task dialog's due date is: `YYYY-MM-DD`.
const pad = (value: number) => String(value).padStart(2, '0');
const dayOf = (date: Date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
function dateOf(day: string): Date {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, date);
}
const addDays = (day: string, days: number) => {
  const date = dateOf(day);
  date.setDate(date.getDate() + days);
  return dayOf(date);
};
/** Weeks start on Monday. */
const weekStart = (day: string) => addDays(day, -((dateOf(day).getDay() + 6) % 7));

/** The days the grid shows: a month's whole weeks, or one week. */
function visibleDays(mode: CalendarMode, anchor: string): string[] {
  const first = mode === 'week' ? weekStart(anchor) : weekStart(`${anchor.slice(0, 8)}01`);
  let count = 7;
  if (mode === 'month') {
    const date = dateOf(anchor);
    const last = dayOf(new Date(date.getFullYear(), date.getMonth() + 1, 0));
    count = Math.round((dateOf(weekStart(last)).getTime() - dateOf(first).getTime()) / 86_400_000) + 7;
  }
  return Array.from({ length: count }, (_, index) => addDays(first, index));
}

/** The step of previous/next: a month (kept on day 1, so 31 January → February) or a week. */
function step(mode: CalendarMode, anchor: string, direction: 1 | -1): string {
  if (mode === 'week') return addDays(anchor, 7 * direction);
  const date = dateOf(anchor);
  return dayOf(new Date(date.getFullYear(), date.getMonth() + direction, 1));
}

// Formats of the language now (dateFormat makes each once per language), so month and weekday names follow it.
const longDay = () => dateFormat({ weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const monthTitle = () => dateFormat({ month: 'long', year: 'numeric' });
const shortDay = () => dateFormat({ day: 'numeric', month: 'short', year: 'numeric' });
const weekdayName = () => dateFormat({ weekday: 'short' });
const weekdayLong = () => dateFormat({ weekday: 'long' });
const describeDay = (day: string) => longDay().format(dateOf(day));

/**
 * A task's due date moved to `day`, keeping its time of day (in the browser's time zone); a task
 * without one gets the end of that day, as the dialog gives a due date.
 */
export function movedDueDate(dueDate: string | null, day: string): string | null {
  if (!dueDate) return dueDateFromDay(day);
  const date = new Date(dueDate);
  const [year, month, dayOfMonth] = day.split('-').map(Number) as [number, number, number];
  date.setFullYear(year, month - 1, dayOfMonth);
  return date.toISOString();
}

/**
 * The tasks due in [from, to): filtered by the server (`dueAfter` is strict, so it is one millisecond
 * before the first day), one page per request, following each page's cursor until the last.
 */
const loadDue = (projectId: string, dueAfter: string, dueBefore: string): Promise<Task[]> =>
  collect(client.paginate(client.tasks.list, { projectId, dueAfter, dueBefore, sort: 'dueDate', limit: DUE_PAGE }));

/**
 * A page of the tasks without a due date. The list has no "no due date" filter: under `sort=-dueDate`
 * those tasks come first, so the pages are read in that order and the first dated task ends them.
 */
async function loadUndated(projectId: string, cursor?: string): Promise<UndatedTasks> {
  const page = await client.tasks.list({ projectId, sort: '-dueDate', limit: UNDATED_PAGE, ...(cursor ? { cursor } : {}) });
  const items = page.items.filter((task) => task.dueDate === null);
  return { items, cursor: items.length < page.items.length ? null : page.nextCursor };
}

const DAY_DROP = 'day:';

/**
 * The view and date each project's calendar last showed in this tab, so coming back from a task's
 * dialog (or the board) finds it where it was.
 */
const remembered = new Map<string, { mode: CalendarMode; anchor: string }>();

/** A project's tasks by due date, a month or a week at a time; drag (or Alt+arrows) to reschedule. */
export function CalendarPage({ params }: { params: { projectId: string } }) {
  const { projectId } = params;
  const project = useQuery(keys.project(projectId), () => client.projects.get({ id: projectId }));
  const [mode, setMode] = useState<CalendarMode>(() => remembered.get(projectId)?.mode ?? 'month');
  const [anchor, setAnchor] = useState(() => remembered.get(projectId)?.anchor ?? dayOf(new Date()));
  useEffect(() => void remembered.set(projectId, { mode, anchor }), [projectId, mode, anchor]);
  const [status, setStatus] = useState('');
  const [dragged, setDragged] = useState<Task | undefined>(undefined);
  const live = useProjectEvents(projectId);
  const days = useMemo(() => visibleDays(mode, anchor), [mode, anchor]);
  const from = new Date(dateOf(days[0]!).getTime() - 1).toISOString();
  const to = dateOf(addDays(days[days.length - 1]!, 1)).toISOString();
  const due = useQuery(calendarKeys.due(projectId, from, to), () => loadDue(projectId, from, to));
  const undated = useQuery(calendarKeys.undated(projectId), () => loadUndated(projectId));
  const more = useAction();
  const editable = canEditTasks(project.data?.role);
  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: 6 } }),
    useSensor(TouchSensor, { activationConstraint: { delay: 200, tolerance: 8 } }),
  );

  const byDay = useMemo(() => {
    const map = new Map<string, Task[]>();
    for (const task of [...(due.data ?? [])].sort((a, b) => Date.parse(a.dueDate!) - Date.parse(b.dueDate!))) {
      const day = dayFromDueDate(task.dueDate);
      map.set(day, [...(map.get(day) ?? []), task]);
    }
    return map;
  }, [due.data]);
  // A task moved from the keyboard keeps the focus: on it again once it renders in its new day
  // (at once, or after the next range has loaded when the view followed it), unless focus moved on.
  const refocus = useRef<string | undefined>(undefined);
  useLayoutEffect(() => {
    if (!refocus.current) return;
    const lost = !document.activeElement || document.activeElement === document.body || !document.activeElement.isConnected;
    if (lost && focusTask(refocus.current)) refocus.current = undefined;
  });
  const allShown = () => [...(due.data ?? []), ...(undated.data?.items ?? [])];

  /** Moves a task to `day` (the view follows it there), keeps the focus on it and says so. */
  const reschedule = (task: Task, day: string, keepFocus = false) => {
    if (task.dueDate && dayFromDueDate(task.dueDate) === day) return;
    if (!days.includes(day)) setAnchor(day);
    void changeTask(task, { dueDate: movedDueDate(task.dueDate, day) }).then((saved) => saved && setStatus(t('calendar.nowDue', { title: task.title, day: describeDay(day) })));
    if (keepFocus) refocus.current = task.id;
  };
  const onKeyDown = (task: Task) => (event: KeyboardEvent) => {
    if (!editable || !event.altKey || event.ctrlKey || event.metaKey) return;
    const shift = ({ ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 } as Record<string, number>)[event.key];
    if (!shift) return;
    // Alt+← is the browser's "back" too: on a task it moves the task instead.
    event.preventDefault();
    reschedule(task, addDays(task.dueDate ? dayFromDueDate(task.dueDate) : dayOf(new Date()), shift), true);
  };
  const end = ({ active, over }: DragEndEvent) => {
    setDragged(undefined);
    const task = allShown().find((item) => item.id === active.id);
    const target = typeof over?.id === 'string' && over.id.startsWith(DAY_DROP) ? over.id.slice(DAY_DROP.length) : undefined;
    if (task && target) reschedule(task, target);
  };
  const showMore = async () => {
    const cursor = undated.data?.cursor;
    if (!cursor) return;
    const next = await more.run(() => loadUndated(projectId, cursor));
    if (next) undated.setData((current) => ({ items: [...(current?.items ?? []), ...next.items.filter((task) => !current?.items.some((item) => item.id === task.id))], cursor: next.cursor }));
  };

  if (project.error) return <Page title={t('calendar.title')}><ErrorNote error={project.error} /></Page>;
  if (!project.data) return <Loading what={t('calendar.loadingWhat')} />;
  const today = dayOf(new Date());
  const title = mode === 'month' ? monthTitle().format(dateOf(anchor)) : t('calendar.range', { from: shortDay().format(dateOf(days[0]!)), to: shortDay().format(dateOf(days[6]!)) });
  const weeks = Array.from({ length: days.length / 7 }, (_, index) => days.slice(index * 7, index * 7 + 7));

  return (
    <Page
      title={t('calendar.pageTitle', { name: project.data.name })}
      actions={
        <nav class="row" aria-label={t('calendar.nav.label')}>
          <a href={`/projects/${projectId}`}>{t('calendar.nav.board')}</a>
          <a href={`/projects/${projectId}/list`}>{t('calendar.nav.list')}</a>
          <a href={`/projects/${projectId}/timeline`}>{t('calendar.nav.timeline')}</a>
          <a href={`/projects/${projectId}/calendar`} aria-current="page">
            {t('calendar.nav.calendar')}
          </a>
          <a href={`/projects/${projectId}/members`}>{t('calendar.nav.members')}</a>
          <a href={`/projects/${projectId}/time`}>{t('calendar.nav.time')}</a>
          <ViewsMenu projectId={projectId} />
          <span class="muted" role="status">
            {live}
          </span>
        </nav>
      }
    >
      <div class="calendar-toolbar row">
        <div class="row" role="group" aria-label={t('calendar.viewLabel')}>
          <button type="button" aria-pressed={mode === 'month'} onClick={() => setMode('month')}>
            {t('calendar.month')}
          </button>
          <button type="button" aria-pressed={mode === 'week'} onClick={() => setMode('week')}>
            {t('calendar.week')}
          </button>
        </div>
        <div class="row" role="group" aria-label={t('calendar.datesLabel')}>
          <button type="button" onClick={() => setAnchor(step(mode, anchor, -1))}>
            {mode === 'month' ? t('calendar.previousMonth') : t('calendar.previousWeek')}
          </button>
          <button type="button" onClick={() => setAnchor(today)}>
            {t('calendar.today')}
          </button>
          <button type="button" onClick={() => setAnchor(step(mode, anchor, 1))}>
            {mode === 'month' ? t('calendar.nextMonth') : t('calendar.nextWeek')}
          </button>
        </div>
        <h2 id="calendar-title" aria-live="polite">
          {title}
        </h2>
      </div>
      {editable && (
        <p class="muted small" id="calendar-help">
          {t('calendar.help')}
        </p>
      )}
      <p class="visually-hidden" role="status">
        {status}
      </p>
      <ErrorNote error={due.error ?? undated.error} />
      <DndContext
        sensors={sensors}
        collisionDetection={pointerWithin}
        onDragStart={({ active }: DragStartEvent) => setDragged(allShown().find((task) => task.id === active.id))}
        onDragEnd={end}
        onDragCancel={() => setDragged(undefined)}
      >
        <div class="calendar">
          <table class={`calendar-grid calendar-${mode}`} aria-labelledby="calendar-title" aria-busy={due.loading}>
            <thead>
              <tr>
                {weeks[0]!.map((day) => (
                  <th key={day} scope="col" abbr={weekdayLong().format(dateOf(day))}>
                    {weekdayName().format(dateOf(day))}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {weeks.map((week) => (
                <tr key={week[0]}>
                  {week.map((day) => (
                    <DayCell
                      key={day}
                      day={day}
                      today={day === today}
                      outside={mode === 'month' && day.slice(0, 7) !== anchor.slice(0, 7)}
                      tasks={byDay.get(day) ?? []}
                      editable={editable}
                      onKeyDown={onKeyDown}
                    />
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <section class="undated" aria-labelledby="undated-title">
            <h2 id="undated-title">{t('calendar.noDueDate')}</h2>
            {undated.data && undated.data.items.length === 0 && <p class="muted small">{t('calendar.allDated')}</p>}
            <ul class="calendar-tasks">
              {(undated.data?.items ?? []).map((task) => (
                <CalendarTask key={task.id} task={task} editable={editable} onKeyDown={onKeyDown(task)} />
              ))}
            </ul>
            {undated.data?.cursor && (
              <button type="button" disabled={more.busy} onClick={() => void showMore()}>
                {t('calendar.showMore')}
              </button>
            )}
            <ErrorNote error={more.error} />
          </section>
        </div>
        {/* No drop animation: the task is on its new day at once (optimistic), and an overlay left animating over the grid would catch the next pointer. */}
        <DragOverlay dropAnimation={null}>{dragged ? <div class="calendar-task lifted-face">{dragged.title}</div> : null}</DragOverlay>
      </DndContext>
    </Page>
  );
}

function DayCell(props: { day: string; today: boolean; outside: boolean; tasks: Task[]; editable: boolean; onKeyDown: (task: Task) => (event: KeyboardEvent) => void }) {
  const { day, tasks } = props;
  const { setNodeRef, isOver } = useDroppable({ id: `${DAY_DROP}${day}`, disabled: !props.editable });
  return (
    <td ref={setNodeRef} data-day={day} class={`day${props.today ? ' today' : ''}${props.outside ? ' outside' : ''}${isOver ? ' drop-target' : ''}`} aria-current={props.today ? 'date' : undefined}>
      <div class="day-number">
        <span aria-hidden="true">{Number(day.slice(8))}</span>
        <span class="visually-hidden">
          {describeDay(day)}
          {tasks.length > 0 ? t('calendar.dayTasks', { count: tasks.length }) : ''}
        </span>
      </div>
      {tasks.length > 0 && (
        <ul class="calendar-tasks">
          {tasks.map((task) => (
            <CalendarTask key={task.id} task={task} editable={props.editable} onKeyDown={props.onKeyDown(task)} />
          ))}
        </ul>
      )}
    </td>
  );
}

/** A task in a day (or in the undated list): its key and title, a link to it; dragged by the whole chip. */
function CalendarTask({ task, editable, onKeyDown }: { task: Task; editable: boolean; onKeyDown: (event: KeyboardEvent) => void }) {
  // Only the pointer's listeners: the chip holds a link, and a role="button" around it would nest one control in another.
  const { setNodeRef, listeners, isDragging } = useDraggable({ id: task.id, disabled: !editable });
  return (
    <li ref={setNodeRef} class={`calendar-task priority-edge-${task.priority.toLowerCase()}${isDragging ? ' lifted' : ''}${task.completedAt ? ' done' : ''}`} data-task-id={task.id} {...(editable ? listeners : {})}>
      <a
        class="task-title"
        href={`/projects/${task.projectId}/tasks/${task.id}?view=calendar`}
        draggable={false}
        onKeyDown={onKeyDown}
        aria-keyshortcuts={editable ? 'Alt+ArrowLeft Alt+ArrowRight Alt+ArrowUp Alt+ArrowDown' : undefined}
        aria-describedby={editable ? 'calendar-help' : undefined}
        title={t('calendar.taskTitle', { key: task.key, priority: priorityLabel(task.priority) })}
      >
        {task.title}
      </a>
    </li>
  );
}
