import type { Member, State, Task, TaskRelation } from '@tasklane/schemas';
import { TasklaneError } from '@tasklane/sdk';
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { keys, loadMembers, storeTask, timelineKeys } from '../data';
import { canEditTasks } from '../format';
import { useQuery } from '../hooks';
import { dateFormat, t } from '../i18n';
import { client, describeError } from '../session';
import { stateName, useStates } from '../states';
import { announce, EmptyState, ErrorNote, Loading, Page } from '../ui';

const DAY = 86_400_000;
/** The window: four weeks, Monday to Sunday (UTC, as the API's dates are). */
const DAYS = 28;
/** The most window tasks read (pages of 100) and the most tasks whose relations are read for the arrows. */
const WINDOW_MAX = 500;
const RELATIONS_MAX = 100;

type GroupBy = 'state' | 'assignee';

/** Monday 00:00 UTC of the week of `time`. */
function mondayOf(time: number): number {
  const day = Math.floor(time / DAY) * DAY;
  // 1 January 1970 was a Thursday: day 0 is weekday 3 counted from Monday.
  const weekday = (Math.floor(day / DAY) + 3) % 7;
  return day - weekday * DAY;
}

// In the language now (dateFormat makes it once per language), so the month names follow it.
const formatUtcDay = (time: number) => dateFormat({ day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(time));
/** The day index of an instant in the window starting at `start` (may be outside 0…DAYS-1). */
const dayIndex = (iso: string, start: number) => Math.floor((Date.parse(iso) - start) / DAY);

interface TimelineData {
  /** Tasks with a start or a due date whose bar meets the window. */
  scheduled: Task[];
  /** One page of tasks with neither date. */
  unscheduled: Task[];
  /** Whether more unscheduled tasks exist than the page holds. */
  moreUnscheduled: boolean;
}

/**
 * Only what the window shows, never the whole project: the tasks whose bar overlaps it (started
 * before its end and due after its start), those with a due date only (due in it) and those with a
 * start only (starting in it), each a filtered, paged list; and one page of unscheduled tasks: the
 * list by due date descending starts with those without one (the API sorts nulls first so), of
 * which those without a start either are the unscheduled ones.
 */
async function loadWindow(projectId: string, start: number): Promise<TimelineData> {
  const from = new Date(start - 1).toISOString();
  const to = new Date(start + DAYS * DAY).toISOString();
  const read = async (filters: Record<string, string>) => {
    const found: Task[] = [];
    for await (const task of client.paginate(client.tasks.list, { projectId, ...filters, limit: 100 })) {
      found.push(task);
      if (found.length >= WINDOW_MAX) break;
    }
    return found;
  };
  const [overlapping, dueInWindow, startInWindow, firstUndated] = await Promise.all([
    read({ startBefore: to, dueAfter: from }),
    read({ dueAfter: from, dueBefore: to }),
    read({ startAfter: from, startBefore: to }),
    client.tasks.list({ projectId, sort: '-dueDate', limit: 100 }),
  ]);
  const scheduled = new Map<string, Task>();
  for (const task of [...overlapping, ...dueInWindow, ...startInWindow]) scheduled.set(task.id, task);
  const unscheduled = firstUndated.items.filter((task) => task.dueDate === null && task.startDate === null);
  return { scheduled: [...scheduled.values()], unscheduled, moreUnscheduled: firstUndated.nextCursor !== null && unscheduled.length === firstUndated.items.length };
}

/** The outgoing `blocks` relations among `tasks` (read for each of the first RELATIONS_MAX). */
async function loadBlocks(tasks: Task[]): Promise<{ from: string; to: string }[]> {
  const ids = new Set(tasks.map((task) => task.id));
  const lists = await Promise.all(tasks.slice(0, RELATIONS_MAX).map((task) => client.relations.list({ id: task.id }).then((relations: TaskRelation[]) => ({ id: task.id, relations }))));
  return lists.flatMap(({ id, relations }) =>
    relations.filter((relation) => relation.type === 'blocks' && relation.direction === 'outgoing' && ids.has(relation.task.id)).map((relation) => ({ from: id, to: relation.task.id })),
  );
}

type End = 'startDate' | 'dueDate';

export function TimelinePage({ params }: { params: { projectId: string } }) {
  const { projectId } = params;
  const [start, setStart] = useState(() => mondayOf(Date.now()));
  const [groupBy, setGroupBy] = useState<GroupBy>('state');
  const project = useQuery(keys.project(projectId), () => client.projects.get({ id: projectId }));
  const members = useQuery(keys.members(projectId), () => loadMembers(projectId));
  const states = useStates(projectId);
  const timeline = useQuery(timelineKeys.window(projectId, start), () => loadWindow(projectId, start));
  const scheduled = timeline.data?.scheduled ?? [];
  const relationIds = scheduled.map((task) => task.id).sort().join(',');
  const blocks = useQuery(timelineKeys.relations(projectId, relationIds), () => loadBlocks(scheduled));
  const editable = canEditTasks(project.data?.role);

  if (project.error) return <Page title={t('timeline.title')}><ErrorNote error={project.error} /></Page>;
  if (!project.data) return <Loading what={t('timeline.loadingWhat')} />;

  const end = start + DAYS * DAY;
  const groups = groupTasks(scheduled, groupBy, states.data ?? [], members.data ?? []);

  return (
    <Page
      title={t('timeline.pageTitle', { name: project.data.name })}
      actions={
        <nav class="row" aria-label={t('timeline.nav.label')}>
          <a href={`/projects/${projectId}`}>{t('timeline.nav.board')}</a>
          <a href={`/projects/${projectId}/list`}>{t('timeline.nav.list')}</a>
          <a href={`/projects/${projectId}/timeline`} aria-current="page">
            {t('timeline.nav.timeline')}
          </a>
          <a href={`/projects/${projectId}/calendar`}>{t('timeline.nav.calendar')}</a>
          <a href={`/projects/${projectId}/members`}>{t('timeline.nav.members')}</a>
          <a href={`/projects/${projectId}/time`}>{t('timeline.nav.time')}</a>
        </nav>
      }
    >
      <div class="row timeline-controls">
        <button type="button" onClick={() => setStart(start - DAYS * DAY)}>
          {t('timeline.previous')}
        </button>
        <h2 class="timeline-range" aria-live="polite">
          {t('timeline.range', { from: formatUtcDay(start), to: formatUtcDay(end - DAY) })}
        </h2>
        <button type="button" onClick={() => setStart(start + DAYS * DAY)}>
          {t('timeline.next')}
        </button>
        <button type="button" onClick={() => setStart(mondayOf(Date.now()))}>
          {t('timeline.today')}
        </button>
        <label>
          {t('timeline.groupBy')}
          <select value={groupBy} onChange={(event) => setGroupBy(event.currentTarget.value as GroupBy)}>
            <option value="state">{t('timeline.state')}</option>
            <option value="assignee">{t('common.assignee')}</option>
          </select>
        </label>
      </div>
      <ErrorNote error={timeline.error ?? blocks.error} />
      {!timeline.data ? (
        <Loading what={t('timeline.loadingTasks')} />
      ) : (
        <TimelineGrid
          projectId={projectId}
          start={start}
          groups={groups}
          blocks={blocks.data ?? []}
          editable={editable}
          tasks={scheduled}
          onChanged={(task) => timeline.setData((data) => data && { ...data, scheduled: data.scheduled.map((item) => (item.id === task.id ? task : item)) })}
          onStale={timeline.reload}
        />
      )}
      {timeline.data && (
        <section aria-labelledby="unscheduled-title" class="timeline-unscheduled">
          <h2 id="unscheduled-title">{t('timeline.notScheduled')}</h2>
          {timeline.data.unscheduled.length === 0 ? (
            <p class="muted">{t('timeline.allDated')}</p>
          ) : (
            <ul>
              {timeline.data.unscheduled.map((task) => (
                <li key={task.id}>
                  <a href={`/projects/${projectId}/tasks/${task.id}`}>{task.title}</a> <span class="muted">{task.key}</span>
                </li>
              ))}
            </ul>
          )}
          {timeline.data.moreUnscheduled && <p class="muted">{t('timeline.moreUnscheduled')}</p>}
        </section>
      )}
    </Page>
  );
}

interface Group {
  key: string;
  name: string;
  tasks: Task[];
}

/** The window's tasks by state (the workflow's order) or by assignee (by name, unassigned last), each group by start. */
function groupTasks(tasks: Task[], groupBy: GroupBy, states: State[], members: Member[]): Group[] {
  const first = (task: Task) => Date.parse(task.startDate ?? task.dueDate!);
  const sorted = [...tasks].sort((a, b) => first(a) - first(b) || a.title.localeCompare(b.title));
  if (groupBy === 'state') {
    const keysInOrder = [...states.map((state) => state.key), ...new Set(sorted.map((task) => task.status))];
    return [...new Set(keysInOrder)]
      .map((key) => ({ key, name: stateName(states, key), tasks: sorted.filter((task) => task.status === key) }))
      .filter((group) => group.tasks.length > 0);
  }
  const nameOf = (id: string) => members.find((member) => member.userId === id)?.name ?? t('timeline.formerMember');
  const assignees = [...new Set(sorted.map((task) => task.assigneeId).filter((id): id is string => id !== null))].sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
  const groups = assignees.map((id) => ({ key: id, name: nameOf(id), tasks: sorted.filter((task) => task.assigneeId === id) }));
  const unassigned = sorted.filter((task) => task.assigneeId === null);
  return unassigned.length > 0 ? [...groups, { key: 'none', name: t('common.unassigned'), tasks: unassigned }] : groups;
}

/** Per task: the version the server last confirmed, and the chain of its date changes on their way. */
const confirmed = new Map<string, Task>();
const queues = new Map<string, Promise<unknown>>();
/** Per task: the changes sent or waiting and not yet answered. */
const pending = new Map<string, number>();

/**
 * Moves one end of a task's bar: shown at once (`show`), then PATCHed with If-Match against the
 * version the server last confirmed (changes of one task go one after another, as the board's do).
 * A 412 (someone changed it meanwhile) reloads the window and says so; another refusal puts the
 * task back and says why.
 */
function changeDate(task: Task, patch: Partial<Pick<Task, End>>, show: (task: Task) => void, reload: () => void): Promise<void> {
  if (!queues.has(task.id)) confirmed.set(task.id, task);
  pending.set(task.id, (pending.get(task.id) ?? 0) + 1);
  show({ ...task, ...patch });
  // While a later change of the same task waits, the screen shows that one: showing this answer
  // would step the bar back, and the next key press would move it from there.
  const last = () => pending.get(task.id) === 1;
  const send = async () => {
    const base = confirmed.get(task.id) ?? task;
    try {
      const saved = await client.tasks.update({ id: task.id, ...patch }, { ifMatch: base });
      confirmed.set(task.id, saved);
      if (last()) show(saved);
      storeTask(saved);
    } catch (error) {
      if (last()) show(base);
      if (TasklaneError.from(error).code === 'PRECONDITION_FAILED') {
        announce(t('timeline.conflict', { title: task.title }));
        queues.delete(task.id);
        confirmed.delete(task.id);
        reload();
      } else {
        announce(t('timeline.refused', { title: task.title, reason: describeError(error) }));
      }
    } finally {
      const left = (pending.get(task.id) ?? 1) - 1;
      if (left > 0) pending.set(task.id, left);
      else pending.delete(task.id);
    }
  };
  const result = (queues.get(task.id) ?? Promise.resolve()).then(send);
  const queued = result.finally(() => {
    if (queues.get(task.id) === queued) {
      queues.delete(task.id);
      confirmed.delete(task.id);
    }
  });
  queues.set(task.id, queued);
  return result;
}

/** An instant moved by whole days (keeping its time of day). */
const shifted = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY).toISOString();

function TimelineGrid(props: {
  projectId: string;
  start: number;
  groups: Group[];
  tasks: Task[];
  blocks: { from: string; to: string }[];
  editable: boolean;
  onChanged: (task: Task) => void;
  onStale: () => void;
}) {
  const { projectId, start, groups, blocks, editable } = props;
  const grid = useRef<HTMLDivElement>(null);
  const [arrows, setArrows] = useState<{ key: string; d: string }[]>([]);
  const [size, setSize] = useState({ width: 0, height: 0 });
  // A drag in progress: the task, the end and the days it has moved so far (shown, not yet saved).
  const [drag, setDrag] = useState<{ id: string; end: End; days: number } | undefined>(undefined);

  const days = useMemo(() => Array.from({ length: DAYS }, (_, index) => start + index * DAY), [start]);
  const titles = new Map(props.tasks.map((task) => [task.id, task.title]));
  const shownBlocks = blocks.filter((block) => titles.has(block.from) && titles.has(block.to));

  // The arrows join the bars as laid out: measured after each render (a change of the arrows only re-renders).
  useLayoutEffect(() => {
    const box = grid.current;
    if (!box) return;
    const origin = box.getBoundingClientRect();
    const rectOf = (id: string) => box.querySelector(`[data-bar="${id}"]`)?.getBoundingClientRect();
    const next = shownBlocks.flatMap(({ from, to }) => {
      const a = rectOf(from);
      const b = rectOf(to);
      if (!a || !b) return [];
      const x1 = a.right - origin.left;
      const y1 = a.top + a.height / 2 - origin.top;
      const x2 = b.left - origin.left;
      const y2 = b.top + b.height / 2 - origin.top;
      const bend = Math.max(12, Math.abs(x2 - x1) / 2);
      return [{ key: `${from}-${to}`, d: `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2 - 6} ${y2}` }];
    });
    const measured = { width: box.scrollWidth, height: box.scrollHeight };
    if (JSON.stringify(next) !== JSON.stringify(arrows)) setArrows(next);
    if (measured.width !== size.width || measured.height !== size.height) setSize(measured);
  });

  /** Moves `end` of `task` by `by` days, unless that puts its start after its due date. */
  const move = (task: Task, end: End, by: number) => {
    const current = task[end];
    if (!current || by === 0) return;
    const next = shifted(current, by);
    const other = end === 'startDate' ? task.dueDate : task.startDate;
    if (other && (end === 'startDate' ? next > other : next < other)) {
      announce(end === 'startDate' ? t('timeline.startAfterDue', { title: task.title }) : t('timeline.dueBeforeStart', { title: task.title }));
      return;
    }
    void changeDate(task, { [end]: next }, props.onChanged, props.onStale);
  };

  const dragFrom = (task: Task, end: End) => (event: PointerEvent) => {
    if (!editable || event.button !== 0) return;
    event.preventDefault();
    const handle = event.currentTarget as HTMLElement;
    const track = handle.closest('.timeline-track') as HTMLElement;
    const dayWidth = track.getBoundingClientRect().width / DAYS;
    const x0 = event.clientX;
    handle.setPointerCapture(event.pointerId);
    handle.focus();
    const daysAt = (e: PointerEvent) => Math.round((e.clientX - x0) / dayWidth);
    const onMove = (e: PointerEvent) => setDrag({ id: task.id, end, days: daysAt(e) });
    const onUp = (e: PointerEvent) => {
      handle.removeEventListener('pointermove', onMove);
      handle.removeEventListener('pointerup', onUp);
      handle.removeEventListener('pointercancel', onUp);
      setDrag(undefined);
      if (e.type === 'pointerup') move(task, end, daysAt(e));
    };
    handle.addEventListener('pointermove', onMove);
    handle.addEventListener('pointerup', onUp);
    handle.addEventListener('pointercancel', onUp);
  };

  const onKey = (task: Task, end: End) => (event: KeyboardEvent) => {
    const by = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!by || !editable) return;
    event.preventDefault();
    move(task, end, by);
  };

  const handle = (task: Task, end: End, index: number) => {
    const value = task[end]!;
    const name = end === 'startDate' ? t('timeline.handle.startDate', { title: task.title }) : t('timeline.handle.dueDate', { title: task.title });
    const day = formatUtcDay(Date.parse(value));
    return (
      <span
        class={`timeline-handle timeline-handle-${end === 'startDate' ? 'start' : 'due'}`}
        role="slider"
        tabIndex={0}
        aria-label={name}
        aria-valuemin={0}
        aria-valuemax={DAYS - 1}
        aria-valuenow={Math.min(DAYS - 1, Math.max(0, index))}
        aria-valuetext={day}
        aria-readonly={editable ? undefined : true}
        title={editable ? t('timeline.handleTitleEditable', { name, day }) : t('timeline.handleTitle', { name, day })}
        onPointerDown={dragFrom(task, end)}
        onKeyDown={onKey(task, end)}
      />
    );
  };

  const bar = (task: Task) => {
    const moved = (end: End) => {
      const value = task[end];
      if (!value) return null;
      return drag && drag.id === task.id && drag.end === end ? shifted(value, drag.days) : value;
    };
    const startIso = moved('startDate');
    const dueIso = moved('dueDate');
    const first = dayIndex((startIso ?? dueIso)!, start);
    const last = dayIndex((dueIso ?? startIso)!, start);
    const left = Math.max(0, first);
    const right = Math.min(DAYS, last + 1);
    if (right <= 0 || left >= DAYS) return null;
    const shownTask = { ...task, startDate: startIso, dueDate: dueIso };
    const marker = !startIso || !dueIso;
    const startHandle = startIso && first >= 0 && first < DAYS && handle(shownTask, 'startDate', first);
    const dueHandle = dueIso && last >= 0 && last < DAYS && handle(shownTask, 'dueDate', last);
    const describe = marker
      ? startIso
        ? t('timeline.starts', { day: formatUtcDay(Date.parse(startIso)) })
        : t('timeline.due', { day: formatUtcDay(Date.parse(dueIso!)) })
      : t('timeline.span', { from: formatUtcDay(Date.parse(startIso)), to: formatUtcDay(Date.parse(dueIso)) });
    return (
      <div
        class={`timeline-bar${marker ? ' timeline-marker' : ''}`}
        data-bar={task.id}
        style={{ left: `${(left / DAYS) * 100}%`, width: `${((right - left) / DAYS) * 100}%` }}
        title={t('timeline.barTitle', { title: task.title, description: describe })}
      >
        <span class="visually-hidden">{describe}</span>
        {startHandle}
        {dueHandle}
      </div>
    );
  };

  return (
    <div class="timeline" ref={grid}>
      <div class="timeline-row timeline-head" aria-hidden="true">
        <span class="timeline-title" />
        <div class="timeline-track timeline-days">
          {days.map((day) => (
            <span key={day} class={`timeline-day${new Date(day).getUTCDay() === 1 ? ' week-start' : ''}`}>
              {new Date(day).getUTCDate()}
            </span>
          ))}
        </div>
      </div>
      {groups.length === 0 && <EmptyState title={t('timeline.noneInWindow')} hint={t('timeline.noneInWindowHint')} />}
      {groups.map((group) => (
        <section key={group.key} class="timeline-group" aria-label={group.name}>
          <h3>{group.name}</h3>
          <ul>
            {group.tasks.map((task) => (
              <li key={task.id} class="timeline-row">
                <a class="timeline-title" href={`/projects/${projectId}/tasks/${task.id}`}>
                  {task.title}
                </a>
                <div class="timeline-track">{bar(task)}</div>
              </li>
            ))}
          </ul>
        </section>
      ))}
      {arrows.length > 0 && (
        <svg
          class="timeline-arrows"
          width={size.width}
          height={size.height}
          role="img"
          aria-label={t('timeline.dependencies', { list: shownBlocks.map((block) => t('timeline.blocks', { from: titles.get(block.from), to: titles.get(block.to) })).join('; ') })}
        >
          <defs>
            <marker id="timeline-arrowhead" viewBox="0 0 10 10" refX="4" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" fill="currentColor" />
            </marker>
          </defs>
          {arrows.map((arrow) => (
            <path key={arrow.key} data-arrow={arrow.key} d={arrow.d} fill="none" stroke="currentColor" stroke-width="1.5" marker-end="url(#timeline-arrowhead)" />
          ))}
        </svg>
      )}
    </div>
  );
}
