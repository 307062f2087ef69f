import {
  DndContext,
  DragOverlay,
  KeyboardSensor,
  MouseSensor,
  pointerWithin,
  rectIntersection,
  TouchSensor,
  useDndContext,
  useDroppable,
  useSensor,
  useSensors,
  type Announcements,
  type CollisionDetection,
  type DragEndEvent,
  type DragStartEvent,
  type KeyboardCoordinateGetter,
} from '@dnd-kit/core';
import { SortableContext, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { defaultRangeExtractor, useWindowVirtualizer } from '@tanstack/react-virtual';
import { generateKeyBetween } from 'fractional-indexing';
import type { Label, Member, State, Task, TaskStatus, View as SavedView } from '@tasklane/schemas';
import { useLocation } from 'preact-iso';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useCurrentUser } from '../current-user';
import { type BoardQuery, columnHasMore, filteredBoardKey, keys, loadFilteredBoard, loadLabels, loadMembers, loadMoreFiltered, loadMoreTasks, loadTasks, matches, type FilteredBoard, type TaskFilters } from '../data';
import { canAdminister, canEditTasks, formatDay, isOverdue, memberName, priorityLabel, priorityLabels } from '../format';
import { queryClient, useQuery } from '../hooks';
import { t } from '../i18n';
import { useProjectEvents } from '../live';
import { client } from '../session';
import { focusTask, useNewTaskEvent, useTaskShortcuts } from '../shortcuts';
import { closedKeys, stateName, useStates } from '../states';
import { changeTask, moveTask } from '../task-actions';
import { Avatar, EnumOptions, ErrorNote, Icon, LabelChips, Loading, MemberOptions, Page, SubtaskProgress } from '../ui';
import { NewTaskDialog } from './new-task';
import { StatesEditor } from './states-editor';
import { FieldsEditor } from './fields-editor';
import { LabelsEditor } from './labels-editor';
import { type FieldFilter, filterParams, type Sort, TaskList } from './task-list';
import { useFields } from '../fields';
import { pageFilters, SaveViewDialog, viewQuery, ViewsMenu, ViewTools } from '../views';
import { TaskDetail } from './task-detail';
import { TimeSummary } from '../time';

export type View = 'board' | 'list';

/** `saved`: a saved view opened at its address: the page starts from its filters and sort, and shows its tools. */
export function BoardPage({ params, view: shown, saved }: { params: { projectId: string; taskId?: string }; view?: View; saved?: SavedView }) {
  const { projectId, taskId } = params;
  const { route, query } = useLocation();
  // A task opened from the list keeps the list behind its dialog (`?view=list`).
  const view: View = shown ?? (query.view === 'list' ? 'list' : 'board');
  const me = useCurrentUser();
  const project = useQuery(keys.project(projectId), () => client.projects.get({ id: projectId }));
  const members = useQuery(keys.members(projectId), () => loadMembers(projectId));
  const tasks = useQuery(keys.tasks(projectId), () => loadTasks(projectId));
  const labels = useQuery(keys.labels(projectId), () => loadLabels(projectId));
  const states = useStates(projectId);
  const [editingStates, setEditingStates] = useState(false);
  const [editingFields, setEditingFields] = useState(false);
  const [editingLabels, setEditingLabels] = useState(false);
  // Read once: a view's filters set the page's at its opening; later changes are the person's own until saved.
  const [initial] = useState(() => pageFilters(saved ?? { filters: {}, sort: null }));
  const [filters, setFilters] = useState<TaskFilters>(initial.filters);
  const [sort, setSort] = useState<Sort>(initial.sort);
  const [fieldFilter, setFieldFilter] = useState<FieldFilter>(initial.fieldFilter);
  const [savingView, setSavingView] = useState(false);
  const fields = useFields(projectId);
  const currentQuery = () => viewQuery({ filters, sort, fieldFilter, extra: initial.extra }, fields.data ?? []);
  // What the board cannot show of a view: its filters beyond the board's own controls (the list sends them to the server).
  const hidden = [...Object.keys(initial.extra), ...(initial.fieldFilter.fieldId ? [t('board.aCustomField')] : [])];
  const boardNote = view === 'board' && hidden.length > 0 ? t('board.otherFilters', { filters: hidden.join(', ') }) : undefined;
  const [creating, setCreating] = useState<TaskStatus | undefined>(undefined);
  const search = useRef<HTMLInputElement>(null);
  const live = useProjectEvents(projectId);

  const role = project.data?.role;
  const editable = canEditTasks(role);
  const visible = useMemo(() => (tasks.data ?? []).filter((task) => matches(task, filters, me.id)), [tasks.data, filters, me.id]);
  const columns = states.data ?? [];
  const filtered = useFilteredBoard(projectId, filters, columns, tasks.data, me.id);
  const cards = filtered?.tasks ?? visible;
  // A new task's column when none is chosen: the first unstarted one, as the server defaults it.
  const firstColumn = (columns.find((state) => state.category === 'unstarted') ?? columns[0])?.key;
  const newTask = () => firstColumn && setCreating(firstColumn);

  useTaskShortcuts({
    tasks: cards,
    editable,
    onNew: newTask,
    onSearch: () => search.current?.focus(),
    // `?edit`: the dialog opens with the title selected (the address carries it across the route change).
    onEdit: (task) => route(`/projects/${projectId}/tasks/${task.id}?edit${view === 'list' ? '&view=list' : ''}`),
    onAssignToMe: (task) => void changeTask(task, { assigneeId: me.id }),
    onStatus: (task, index) => {
      const status = columns[index]?.key;
      if (status) void changeTask(task, { status });
    },
  });
  useNewTaskEvent(() => editable && newTask());
  useKeepFocus(cards, Boolean(taskId || creating));

  if (project.error) return <Page title={t('board.title')}><ErrorNote error={project.error} /></Page>;
  if (!project.data) return <Loading what={t('board.loadingWhat')} />;

  return (
    <Page
      title={project.data.name}
      actions={
        <nav class="row" aria-label={t('board.nav.label')}>
          <a href={`/projects/${projectId}`} aria-current={view === 'board' && !saved ? 'page' : undefined}>
            {t('board.nav.board')}
          </a>
          <a href={`/projects/${projectId}/list`} aria-current={view === 'list' && !saved ? 'page' : undefined}>
            {t('board.nav.list')}
          </a>
          <a href={`/projects/${projectId}/timeline`}>{t('board.nav.timeline')}</a>
          <a href={`/projects/${projectId}/calendar`}>{t('board.nav.calendar')}</a>
          <a href={`/projects/${projectId}/members`}>{t('board.nav.members')}</a>
          <a href={`/projects/${projectId}/time`}>{t('board.nav.time')}</a>
          {canAdminister(role) && <a href={`/projects/${projectId}/webhooks`}>{t('board.nav.webhooks')}</a>}
          <ViewsMenu projectId={projectId} current={saved?.id} />
          {editable && (
            <button type="button" onClick={() => setEditingLabels(true)}>
              {t('board.nav.editLabels')}
            </button>
          )}
          {canAdminister(role) && (
            <button type="button" onClick={() => setEditingStates(true)}>
              {t('board.nav.editWorkflow')}
            </button>
          )}
          {canAdminister(role) && (
            <button type="button" onClick={() => setEditingFields(true)}>
              {t('board.nav.editFields')}
            </button>
          )}
          <span class="muted" role="status">
            {live}
          </span>
        </nav>
      }
    >
      {saved && <ViewTools view={saved} role={role} current={currentQuery} note={boardNote} />}
      <div class="row filters-row">
        <Filters members={members.data ?? []} labels={labels.data ?? []} filters={filters} setFilters={setFilters} search={search} />
        <button type="button" onClick={() => setSavingView(true)}>
          {t('board.saveView')}
        </button>
      </div>
      <ErrorNote error={tasks.error ?? states.error} />
      {view === 'board' && tasks.loading && !tasks.data ? (
        // The columns wait for the first page of cards: drawn empty and then filled, each pushed the
        // next down (on a phone, where they stack), a layout shift the person sees.
        <Loading what={t('board.loadingWhat')} />
      ) : view === 'board' ? (
        <Board
          projectId={projectId}
          counts={filtered ? {} : project.data.taskCounts}
          tasks={cards}
          paging={filtered?.paging ?? unfilteredPaging(projectId)}
          states={columns}
          members={members.data ?? []}
          labels={labels.data ?? []}
          editable={editable}
          loading={tasks.loading || states.loading || Boolean(filtered?.loading)}
          onNew={setCreating}
        />
      ) : (
        <TaskList
          projectId={projectId}
          filters={filters}
          tasks={visible}
          members={members.data ?? []}
          labels={labels.data ?? []}
          states={columns}
          editable={editable}
          list={{ sort, setSort, fieldFilter, setFieldFilter, extraParams: initial.extra, served: Boolean(saved) }}
        />
      )}
      {savingView && <SaveViewDialog projectId={projectId} role={role} layout={view} query={currentQuery} onClose={() => setSavingView(false)} />}
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
      {editingStates && <StatesEditor projectId={projectId} onClose={() => setEditingStates(false)} />}
      {editingFields && <FieldsEditor projectId={projectId} onClose={() => setEditingFields(false)} />}
      {editingLabels && <LabelsEditor projectId={projectId} onClose={() => setEditingLabels(false)} />}
      {taskId && (
        <TaskDetail
          key={taskId}
          taskId={taskId}
          project={project.data}
          members={members.data ?? []}
          labels={labels.data ?? []}
          editFirst={query.edit !== undefined}
          onClose={() => {
            // Back to the view the task was opened from (`?view=list`, `?view=calendar`), else the board.
            const from = new URLSearchParams(window.location.search).get('view');
            route(from === 'list' || from === 'calendar' ? `/projects/${projectId}/${from}` : `/projects/${projectId}`);
            requestAnimationFrame(() => focusTask(taskId));
          }}
        />
      )}
    </Page>
  );
}

/** How a column learns whether the server has more of its cards, and reads the next page of them. */
interface ColumnPaging {
  hasMore: (status: string) => boolean;
  loadMore: (status: string) => void;
  /** Which cards are paged (the unfiltered board's, or one filter's): a column watches its end afresh for other ones. */
  id: string;
}

/** The unfiltered board's columns, read a page at a time into the project's task array. */
const unfilteredPaging = (projectId: string): ColumnPaging => ({
  hasMore: (status) => columnHasMore(projectId, status),
  loadMore: (status) => void loadMoreTasks(projectId, status),
  id: 'all',
});

const hasFilter = (filters: TaskFilters) => Boolean(filters.assigneeId || filters.priority || filters.labelId || filters.text.trim());

/**
 * The board's filters on a project read only in part (issue 37) are the server's: filtering the
 * cards read would miss the rest. Each column asks the task list for its status with the filters,
 * a page at a time by cursor, as the unfiltered board does (every board filter is a list
 * parameter: filterParams). Undefined when the browser answers (no filter, or every column read):
 * a project read whole filters at once, here.
 *
 * The cards shown are the server's pages, each replaced by the project's cached copy when it has one
 * (optimistic edits and live events reach that first) and kept only while it matches, plus the
 * cached tasks that match: both are prefixes of a column in position order, so together they are
 * one, and a task edited into or out of the filter shows so at once.
 */
function useFilteredBoard(projectId: string, filters: TaskFilters, states: State[], loaded: Task[] | undefined, meId: string) {
  const partial = states.some((state) => columnHasMore(projectId, state.key));
  const enabled = partial && hasFilter(filters);
  const query: BoardQuery = filterParams(filters);
  const statuses = states.map((state) => state.key);
  const key = enabled ? filteredBoardKey(projectId, statuses, query) : ['task-query', projectId, 'board', 'off'];
  const served = useQuery<FilteredBoard | null>(key, async () => {
    if (!enabled) return null;
    return loadFilteredBoard(projectId, statuses, query, queryClient.getQueryData<FilteredBoard>(key)?.pages);
  });
  // The last answer stays while the next filter's loads (aria-busy says so).
  const last = useRef<FilteredBoard | undefined>(undefined);
  if (served.data) last.current = served.data;
  if (!enabled) last.current = undefined;
  const board = enabled ? (served.data ?? last.current) : undefined;
  const tasks = useMemo(() => {
    if (!board) return [];
    const cached = new Map((loaded ?? []).map((task) => [task.id, task]));
    const shown = new Map<string, Task>();
    for (const task of [...board.tasks.map((task) => cached.get(task.id) ?? task), ...(loaded ?? [])]) {
      if (!shown.has(task.id) && matches(task, filters, meId)) shown.set(task.id, task);
    }
    return [...shown.values()];
  }, [board, loaded, filters, meId]);
  if (!enabled) return undefined;
  const paging: ColumnPaging = {
    hasMore: (status) => Boolean(board?.cursors[status]),
    loadMore: (status) => void loadMoreFiltered(projectId, statuses, status, query),
    id: key.join('/'),
  };
  return { tasks, paging, loading: served.loading };
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
    <form class="filters" role="search" aria-label={t('board.filters.ariaLabel')} onSubmit={(event) => event.preventDefault()}>
      <label>
        {t('common.assignee')}
        <select value={filters.assigneeId} onChange={set('assigneeId')}>
          <option value="">{t('board.filters.anyone')}</option>
          <option value="me">{t('board.filters.me')}</option>
          <option value="none">{t('common.unassigned')}</option>
          <MemberOptions members={props.members} />
        </select>
      </label>
      <label>
        {t('common.priority')}
        <select value={filters.priority} onChange={set('priority')}>
          <option value="">{t('board.filters.any')}</option>
          <EnumOptions labels={priorityLabels()} />
        </select>
      </label>
      {props.labels.length > 0 && (
        <label>
          {t('board.filters.label')}
          <select value={filters.labelId} onChange={set('labelId')}>
            <option value="">{t('board.filters.any')}</option>
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
          {t('board.filters.search')} <kbd aria-hidden="true">/</kbd>
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
          placeholder={t('board.filters.searchPlaceholder')}
        />
      </label>
    </form>
  );
}

/**
 * Arrow keys while a card is lifted: Left/Right jump to the previous or next column (aiming at its
 * top), Up/Down to the previous or next card of the column aimed at (the card drops there). What is
 * aimed at is counted here, so quick presses never depend on the drop target having caught up.
 */
function useKeyboardAim(columns: { current: Map<TaskStatus, Task[]> }) {
  const aimed = useRef({ column: 0, card: -1 });
  const clamp = (value: number, highest: number) => Math.max(0, Math.min(highest, value));
  const getter: KeyboardCoordinateGetter = (event, { context: { droppableRects, collisionRect } }) => {
    const columnStep = ({ ArrowRight: 1, ArrowLeft: -1 } as Record<string, number>)[event.code];
    const cardStep = ({ ArrowDown: 1, ArrowUp: -1 } as Record<string, number>)[event.code];
    if ((!columnStep && !cardStep) || !collisionRect) return undefined;
    event.preventDefault();
    const aim = aimed.current;
    const keys = [...columns.current.keys()];
    if (columnStep) {
      aim.column = clamp(aim.column + columnStep, keys.length - 1);
      aim.card = -1;
      const rect = droppableRects.get(keys[aim.column]!);
      return rect ? { x: rect.left + (rect.width - collisionRect.width) / 2, y: rect.top + 8 } : undefined;
    }
    const cards = columns.current.get(keys[aim.column]!) ?? [];
    if (cards.length === 0) return undefined;
    aim.card = clamp(aim.card + cardStep!, cards.length - 1);
    const rect = droppableRects.get(cards[aim.card]!.id);
    return rect ? { x: rect.left, y: rect.top } : undefined;
  };
  const start = (task: Task) => {
    aimed.current = { column: Math.max(0, [...columns.current.keys()].indexOf(task.status)), card: (columns.current.get(task.status) ?? []).findIndex((item) => item.id === task.id) };
  };
  return { getter, start };
}

/** A card under the pointer (or the lifted card, for the keyboard) wins over its column; a column alone means its end. */
const cardFirst =
  (isColumn: (id: unknown) => boolean): CollisionDetection =>
  (args) => {
    const under = pointerWithin(args);
    const hits = under.length > 0 ? under : rectIntersection(args);
    const card = hits.find((hit) => !isColumn(hit.id));
    return card ? [card] : hits.slice(0, 1);
  };

/** Byte order, as positions compare. */
const byPosition = (a: Task, b: Task) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0);

function Board(props: { projectId: string; counts: Record<string, number | undefined>; tasks: Task[]; paging: ColumnPaging; states: State[]; members: Member[]; labels: Label[]; editable: boolean; loading: boolean; onNew: (status: TaskStatus) => void }) {
  const { tasks, states, members, labels, editable } = props;
  const [dragged, setDragged] = useState<Task | undefined>(undefined);
  const closed = closedKeys(states);
  const byStatus = useMemo(() => {
    const columns = new Map<TaskStatus, Task[]>(states.map((state) => [state.key, []]));
    for (const task of tasks) columns.get(task.status)?.push(task);
    for (const column of columns.values()) column.sort(byPosition);
    return columns;
  }, [tasks, states]);
  const columnsNow = useRef(byStatus);
  columnsNow.current = byStatus;
  const aim = useKeyboardAim(columnsNow);
  const isStatus = (id: unknown): id is TaskStatus => typeof id === 'string' && byStatus.has(id);
  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: 6 } }),
    // A short press lifts a card on a touch screen; a swipe before it scrolls as usual.
    useSensor(TouchSensor, { activationConstraint: { delay: 200, tolerance: 8 } }),
    useSensor(KeyboardSensor, { coordinateGetter: aim.getter, keyboardCodes: { start: ['Space'], cancel: ['Escape'], end: ['Space', 'Enter'] } }),
  );
  const taskOf = (id: unknown) => tasks.find((task) => task.id === id);
  const titleOf = (id: unknown) => taskOf(id)?.title ?? t('board.drag.theTask');
  const columnOf = (id: unknown) => (isStatus(id) ? stateName(states, id) : taskOf(id) ? stateName(states, taskOf(id)!.status) : t('board.drag.noColumn'));
  // Whole sentences per place (a column's end, or a card in a column), so each language orders its own words.
  const overPlace = (active: unknown, id: unknown) =>
    isStatus(id) ? t('board.drag.overEnd', { title: titleOf(active), column: stateName(states, id) }) : t('board.drag.overCard', { title: titleOf(active), target: titleOf(id), column: columnOf(id) });
  const droppedAt = (active: unknown, id: unknown) =>
    isStatus(id) ? t('board.drag.droppedEnd', { title: titleOf(active), column: stateName(states, id) }) : t('board.drag.droppedCard', { title: titleOf(active), target: titleOf(id), column: columnOf(id) });
  const announcements: Announcements = {
    onDragStart: ({ active }) => t('board.drag.lifted', { title: titleOf(active.id) }),
    onDragOver: ({ active, over }) => (over ? overPlace(active.id, over.id) : t('board.drag.overNothing', { title: titleOf(active.id) })),
    onDragEnd: ({ active, over }) => (over ? droppedAt(active.id, over.id) : t('board.drag.droppedBack', { title: titleOf(active.id) })),
    onDragCancel: ({ active }) => t('board.drag.cancelled', { title: titleOf(active.id) }),
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
  // Where the card was dropped: over a card, in that card's place (after it when moved down its own
  // column, as a sorted list moves); over a column, at its end. It is sent as the card above it
  // (or, at the top, the one below) and shown at once with a position between the two.
  const end = ({ active, over }: DragEndEvent) => {
    lift(undefined);
    const task = taskOf(active.id);
    if (!task || !over || over.id === task.id) return;
    const target = taskOf(over.id);
    const status = target ? target.status : isStatus(over.id) ? over.id : undefined;
    if (!status) return;
    const current = byStatus.get(status) ?? [];
    const others = current.filter((item) => item.id !== task.id);
    let index = others.length;
    if (target) {
      const movingDown = task.status === status && current.indexOf(task) < current.indexOf(target);
      index = others.indexOf(target) + (movingDown ? 1 : 0);
    }
    // Dropped on a column read only in part, below its last card read: the end of the column is past
    // the tasks not read yet, so neither neighbour is sent and the server puts it last (it shows
    // below the cards read, as its position sorts after all of them).
    const atUnreadEnd = !target && index === others.length && props.paging.hasMore(status);
    if (!atUnreadEnd && task.status === status && current.indexOf(task) === index) return;
    const [above, below] = [others[index - 1], others[index]];
    const neighbour = atUnreadEnd ? {} : above ? { afterId: above.id } : below ? { beforeId: below.id } : {};
    const place = { ...(status !== task.status ? { status } : {}), ...neighbour };
    void moveTask(task, place, { ...task, status, position: generateKeyBetween(above?.position ?? null, below?.position ?? null) });
  };
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={cardFirst(isStatus)}
      accessibility={{
        announcements,
        screenReaderInstructions: { draggable: t('board.drag.instructions') },
      }}
      onDragStart={({ active }: DragStartEvent) => {
        const task = taskOf(active.id);
        if (task) aim.start(task);
        lift(task);
      }}
      onDragEnd={end}
      onDragCancel={() => lift(undefined)}
    >
      <div class="board" aria-busy={props.loading}>
        {states.map((state) => (
          <Column key={state.key} projectId={props.projectId} paging={props.paging} total={props.counts[state.key]} state={state} states={states} closed={closed} tasks={byStatus.get(state.key) ?? []} members={members} labels={labels} editable={editable} onNew={props.onNew} />
        ))}
      </div>
      {/* The lifted card is drawn as a card (its own background and a shadow): bare, it showed the cards under it through its text. */}
      <DragOverlay className={`card-overlay${dragged && isOverdue(dragged, closed) ? ' overdue' : ''}`}>{dragged ? <CardFace task={dragged} members={members} labels={labels} closed={closed} /> : null}</DragOverlay>
    </DndContext>
  );
}

/** A column longer than this renders only its cards near the viewport (issue 37). */
const VIRTUAL_FROM = 100;
/** A card's height before it is measured, and the gap between cards (styles.css `.cards`, 0.5rem). */
const CARD_ESTIMATE = 96;
const CARD_GAP = 8;

function Column(props: {
  projectId: string;
  paging: ColumnPaging;
  /** The column's total on the server (GET /projects/{id}), for a column not read to its end (none when filtered). */
  total: number | undefined;
  state: State;
  states: State[];
  closed: ReadonlySet<string>;
  tasks: Task[];
  members: Member[];
  labels: Label[];
  editable: boolean;
  onNew: (status: TaskStatus) => void;
}) {
  const { state, editable } = props;
  const status = state.key;
  const { setNodeRef } = useDroppable({ id: status, disabled: !editable });
  // The drop target: this column, or one of its cards.
  const { over, active } = useDndContext();
  const isOver = over !== null && (over.id === status || props.tasks.some((task) => task.id === over.id));
  const headingId = `column-${status}`;
  // Paged columns (issue 37): the next page is read as the column's end scrolls into view.
  const more = props.paging.hasMore(status);
  const loadMore = useRef(props.paging.loadMore);
  loadMore.current = props.paging.loadMore;
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const sentinel = end.current;
    if (!more || !sentinel) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) loadMore.current(status);
    }, { rootMargin: '400px' });
    observer.observe(sentinel);
    return () => observer.disconnect();
  }, [more, props.projectId, status, props.tasks.length, props.paging.id]);
  // Long columns (issue 37) render only the cards near the viewport, measured as they show; a short
  // one renders every card, so dnd-kit and the arrow keys reach each of them. The lifted card is
  // always rendered (dnd-kit follows its node).
  const virtual = props.tasks.length > VIRTUAL_FROM;
  const list = useRef<HTMLUListElement>(null);
  const [listTop, setListTop] = useState(0);
  useLayoutEffect(() => {
    if (list.current) setListTop(list.current.getBoundingClientRect().top + window.scrollY);
  });
  const activeIndex = active ? props.tasks.findIndex((task) => task.id === active.id) : -1;
  const virtualizer = useWindowVirtualizer({
    count: virtual ? props.tasks.length : 0,
    estimateSize: () => CARD_ESTIMATE,
    overscan: 8,
    gap: CARD_GAP,
    scrollMargin: listTop,
    getItemKey: (index) => props.tasks[index]?.id ?? index,
    rangeExtractor: (range) => {
      const indexes = defaultRangeExtractor(range);
      return activeIndex >= 0 && !indexes.includes(activeIndex) ? [...indexes, activeIndex].sort((a, b) => a - b) : indexes;
    },
  });
  const rows = virtual ? virtualizer.getVirtualItems() : [];
  const shown = virtual ? rows.map((row) => ({ task: props.tasks[row.index]!, index: row.index })) : props.tasks.map((task, index) => ({ task, index }));
  const padding = virtual && rows.length > 0 ? { paddingTop: `${rows[0]!.start - listTop}px`, paddingBottom: `${virtualizer.getTotalSize() - rows.at(-1)!.end}px` } : undefined;
  // A column read to its end counts its cards (live at once); else the server's total, or, filtered
  // by the server (which counts no filtered column), the cards read and a "+".
  const count = more ? (props.total ?? `${props.tasks.length}+`) : props.tasks.length;
  return (
    <section ref={setNodeRef} class={`column${isOver ? ' drop-target' : ''}`} aria-labelledby={headingId} data-status={status}>
      <div class="column-head">
        <h2 id={headingId}>
          <span class="state-dot" style={{ background: state.color }} aria-hidden="true" />
          {state.name} <span class="count">{count}</span>
        </h2>
        {editable && (
          <button type="button" class="icon" onClick={() => props.onNew(status)} aria-label={t('board.column.newTaskIn', { column: state.name })} title={t('board.column.newTask')}>
            +
          </button>
        )}
      </div>
      <SortableContext items={props.tasks.map((task) => task.id)} strategy={verticalListSortingStrategy} disabled={!editable}>
        <ul class="cards" ref={list} style={padding}>
          {shown.map(({ task, index }) => (
            <Card key={task.id} task={task} index={index} measure={virtual ? virtualizer.measureElement : undefined} states={props.states} closed={props.closed} members={props.members} labels={props.labels} editable={editable} />
          ))}
        </ul>
      </SortableContext>
      {/* Past the list (and its room for the cards not rendered): it shows only at the column's real end. */}
      {more && (
        <div ref={end} class="column-more muted small" aria-hidden="true">
          {t('board.column.loadingMore')}
        </div>
      )}
    </section>
  );
}

/** What a card shows: key, title, labels, blocked, priority, due date, comment and file counts, subtask progress, assignee. */
function CardFace({ task, members, labels, closed, link = false }: { task: Task; members: Member[]; labels: Label[]; closed: ReadonlySet<string>; link?: boolean }) {
  const overdue = isOverdue(task, closed);
  const assignee = task.assigneeId ? memberName(members, task.assigneeId) : undefined;
  const comments = task.commentCount;
  const files = task.attachmentCount;
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
        {task.blocked && (
          <span class="blocked-mark" title={t('board.card.blockedTitle')}>
            {t('board.card.blocked')}
          </span>
        )}
        <span class={`priority priority-${task.priority.toLowerCase()}`}>{priorityLabel(task.priority)}</span>
        {task.dueDate && (
          <span class="due">
            {overdue ? <strong>{t('board.card.overdue')}</strong> : t('board.card.due')}
            <time dateTime={task.dueDate}>{formatDay(task.dueDate)}</time>
          </span>
        )}
        {comments ? (
          <span class="comment-count" title={t('board.card.comments', { count: comments })}>
            <Icon name="comment" />
            {comments}
            <span class="visually-hidden">{t('board.card.commentsUnit', { count: comments })}</span>
          </span>
        ) : null}
        {files ? (
          <span class="attachment-count" title={t('board.card.files', { count: files })}>
            <Icon name="paperclip" />
            {files}
            <span class="visually-hidden">{t('board.card.filesUnit', { count: files })}</span>
          </span>
        ) : null}
        <SubtaskProgress task={task} />
        <TimeSummary task={task} />
        <span class="spacer" />
        {assignee ? <Avatar name={assignee} /> : <span class="visually-hidden">{t('common.unassigned')}</span>}
      </div>
    </>
  );
}

/** Signs, not words: the buttons showing them are named by their aria-label. */
const HANDLE_GLYPH = '⠿';
const MENU_GLYPH = '⋯';

function Card(props: { task: Task; index: number; measure: ((node: Element | null) => void) | undefined; states: State[]; closed: ReadonlySet<string>; members: Member[]; labels: Label[]; editable: boolean }) {
  const { task, members, labels, editable, closed } = props;
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, isDragging, isOver, transform, transition } = useSortable({ id: task.id, disabled: !editable });
  const { role: _role, ...handleAttributes } = attributes; // the handle is a <button> already
  return (
    <li
      ref={(node) => {
        setNodeRef(node);
        props.measure?.(node);
      }}
      data-index={props.index}
      // The cards of the column make room for the lifted one as it passes over them.
      style={transform ? { transform: `translate3d(${Math.round(transform.x)}px, ${Math.round(transform.y)}px, 0)`, transition: transition ?? undefined } : undefined}
      class={`task-card${isOverdue(task, closed) ? ' overdue' : ''}${isDragging ? ' lifted' : ''}${isOver && !isDragging ? ' drop-target' : ''}`}
      data-task-id={task.id}
      {...(editable ? listeners : {})}
    >
      <CardFace task={task} members={members} labels={labels} closed={closed} link />
      {editable && (
        <div class="card-tools">
          <button type="button" ref={setActivatorNodeRef} class="drag-handle" {...handleAttributes} aria-label={t('board.card.move', { title: task.title })}>
            {HANDLE_GLYPH}
          </button>
          <CardMenu task={task} states={props.states} />
        </div>
      )}
    </li>
  );
}

/** The card's menu: its status (what dragging does), and assign to me. */
function CardMenu({ task, states }: { task: Task; states: State[] }) {
  const me = useCurrentUser();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const popup = useRef<HTMLDivElement>(null);
  const id = `menu-${task.id}`;
  const choose = (patch: Parameters<typeof changeTask>[1]) => {
    setOpen(false);
    void changeTask(task, patch);
  };
  useMenuPlacement(open, button, popup);
  return (
    <div
      class="card-menu"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && open) {
          event.stopPropagation();
          setOpen(false);
          button.current?.focus();
        }
      }}
      onFocusOut={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button ref={button} type="button" class="icon" aria-expanded={open} aria-controls={id} aria-label={t('board.card.actions', { title: task.title })} onClick={() => setOpen(!open)}>
        {MENU_GLYPH}
      </button>
      {open && (
        <div ref={popup} class="menu-popup" id={id} role="group" aria-label={t('board.card.actions', { title: task.title })}>
          <p class="small muted">{t('common.status')}</p>
          {states.map((state) => (
            <button key={state.key} type="button" aria-pressed={task.status === state.key} onClick={() => choose({ status: state.key })}>
              {state.name}
            </button>
          ))}
          {task.assigneeId !== me.id && (
            <button type="button" onClick={() => choose({ assigneeId: me.id })}>
              {t('board.card.assignToMe')}
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** Room kept between an open menu and the window's edges, in pixels. */
const MENU_MARGIN = 8;
/** Between a menu and its button. */
const MENU_GAP = 4;

/**
 * Places an open menu in the window (`position: fixed`, styles.css), from its button: below it, or
 * above it where there is no room below, right-aligned with it and kept inside the window. Drawn in
 * place, an absolute menu was cut off by the board's scroll area (its `overflow`); fixed, it stays
 * in the DOM after its button, so Tab still goes from the button into it. It follows the button as
 * the page or the board scrolls and as the window resizes.
 */
function useMenuPlacement(open: boolean, anchor: { current: HTMLElement | null }, menu: { current: HTMLElement | null }) {
  const place = () => {
    const button = anchor.current?.getBoundingClientRect();
    const node = menu.current;
    if (!button || !node) return;
    node.style.maxHeight = `${window.innerHeight - 2 * MENU_MARGIN}px`;
    const { width, height } = node.getBoundingClientRect();
    const below = window.innerHeight - MENU_MARGIN - MENU_GAP - button.bottom;
    const above = button.top - MENU_MARGIN - MENU_GAP;
    const top = height <= below || below >= above ? button.bottom + MENU_GAP : button.top - MENU_GAP - height;
    const clamp = (value: number, size: number, room: number) => Math.max(MENU_MARGIN, Math.min(value, room - MENU_MARGIN - size));
    const wanted = { left: clamp(button.right - width, width, window.innerWidth), top: clamp(top, height, window.innerHeight) };
    node.style.left = `${wanted.left}px`;
    node.style.top = `${wanted.top}px`;
    // A transformed ancestor (a card making room during a drag) would be the fixed menu's frame instead of the window: correct by what it shows.
    const shown = node.getBoundingClientRect();
    node.style.left = `${2 * wanted.left - shown.left}px`;
    node.style.top = `${2 * wanted.top - shown.top}px`;
  };
  // Every render while open: the menu's entries (so its height) may have changed with the task.
  useLayoutEffect(() => {
    if (open) place();
  });
  useLayoutEffect(() => {
    if (!open) return;
    window.addEventListener('resize', place);
    // Capture: the board's own horizontal scroll does not bubble to the window.
    window.addEventListener('scroll', place, true);
    return () => {
      window.removeEventListener('resize', place);
      window.removeEventListener('scroll', place, true);
    };
  }, [open]);
}
