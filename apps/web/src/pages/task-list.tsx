import type { Label, Member, State, Task } from '@tasklane/schemas';
import { useMemo, useState } from 'preact/hooks';
import { useCurrentUser } from '../current-user';
import { formatDay, isOverdue, PRIORITIES, PRIORITY_LABELS } from '../format';
import { closedKeys, StateOptions, stateName } from '../states';
import { changeTask, type TaskPatch } from '../task-actions';
import { announce, Avatar, LabelChips, MemberOptions, SubtaskProgress } from '../ui';

type SortKey = 'title' | 'status' | 'priority' | 'assignee' | 'dueDate';
const COLUMNS: [SortKey, string][] = [
  ['title', 'Title'],
  ['status', 'Status'],
  ['priority', 'Priority'],
  ['assignee', 'Assignee'],
  ['dueDate', 'Due'],
];

/** The same filtered tasks as the board, as a sortable table with multi-select and bulk changes. */
export function TaskList({ tasks, members, labels, states, editable }: { tasks: Task[]; members: Member[]; labels: Label[]; states: State[]; editable: boolean }) {
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'status', descending: false });
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const nameOf = (id: string | null) => (id ? (members.find((member) => member.userId === id)?.name ?? 'A former member') : '');

  const rows = useMemo(() => {
    const value = (task: Task): string | number => {
      // By board order; a status of no state (any more) last.
      if (sort.key === 'status') return states.findIndex((state) => state.key === task.status) >>> 0;
      if (sort.key === 'priority') return PRIORITIES.indexOf(task.priority);
      if (sort.key === 'assignee') return nameOf(task.assigneeId).toLowerCase() || '\uffff';
      if (sort.key === 'dueDate') return task.dueDate ?? '\uffff';
      return task.title.toLowerCase();
    };
    const sorted = tasks.slice().sort((a, b) => {
      const [x, y] = [value(a), value(b)];
      return x < y ? -1 : x > y ? 1 : a.createdAt.localeCompare(b.createdAt);
    });
    return sort.descending ? sorted.reverse() : sorted;
  }, [tasks, sort, members, states]);
  const closed = closedKeys(states);

  const chosen = rows.filter((task) => selected.has(task.id));
  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const allChosen = rows.length > 0 && chosen.length === rows.length;

  return (
    <>
      {editable && <BulkBar count={chosen.length} tasks={chosen} members={members} labels={labels} states={states} onDone={() => setSelected(new Set())} />}
      <div class="table-wrap">
        <table class="task-table">
          <caption class="visually-hidden">Tasks, sorted by {COLUMNS.find(([key]) => key === sort.key)?.[1]}</caption>
          <thead>
            <tr>
              {editable && (
                <th scope="col" class="pick">
                  <input
                    type="checkbox"
                    aria-label="Select all tasks"
                    checked={allChosen}
                    onChange={() => setSelected(allChosen ? new Set() : new Set(rows.map((task) => task.id)))}
                  />
                </th>
              )}
              {COLUMNS.map(([key, label]) => (
                <th key={key} scope="col" aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : undefined}>
                  <button
                    type="button"
                    class="sort"
                    onClick={() => setSort((current) => ({ key, descending: current.key === key ? !current.descending : false }))}
                  >
                    {label}
                    <span aria-hidden="true">{sort.key === key ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((task) => (
              <tr key={task.id} data-task-id={task.id} class={isOverdue(task, closed) ? 'overdue' : undefined}>
                {editable && (
                  <td class="pick">
                    <input type="checkbox" aria-label={`Select ${task.title}`} checked={selected.has(task.id)} onChange={() => toggle(task.id)} />
                  </td>
                )}
                <td>
                  <span class="task-key">{task.key}</span>{' '}
                  <a class="task-title" href={`/projects/${task.projectId}/tasks/${task.id}?view=list`}>
                    {task.title}
                  </a>{' '}
                  <SubtaskProgress task={task} />
                  <LabelChips ids={task.labelIds} labels={labels} />
                </td>
                <td>{stateName(states, task.status)}</td>
                <td>
                  <span class={`priority priority-${task.priority.toLowerCase()}`}>{PRIORITY_LABELS[task.priority]}</span>
                </td>
                <td>
                  {task.assigneeId ? (
                    <span class="row">
                      <Avatar name={nameOf(task.assigneeId)} /> {nameOf(task.assigneeId)}
                    </span>
                  ) : (
                    <span class="muted">—</span>
                  )}
                </td>
                <td class="due">{task.dueDate ? <time dateTime={task.dueDate}>{formatDay(task.dueDate)}</time> : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && <p class="muted">No task matches.</p>}
    </>
  );
}

/** Changes every selected task at once; each change is optimistic and rolled back on its own if refused. */
function BulkBar({ count, tasks, members, labels, states, onDone }: { count: number; tasks: Task[]; members: Member[]; labels: Label[]; states: State[]; onDone: () => void }) {
  const me = useCurrentUser();
  const [busy, setBusy] = useState(false);
  const apply = async (patch: TaskPatch | ((task: Task) => TaskPatch)) => {
    setBusy(true);
    const results = await Promise.all(tasks.map((task) => changeTask(task, typeof patch === 'function' ? patch(task) : patch)));
    setBusy(false);
    const refused = results.filter((ok) => !ok).length;
    if (refused === 0) announce(`${results.length} task${results.length === 1 ? '' : 's'} changed.`);
    onDone();
  };
  const pick = (make: (value: string) => TaskPatch | ((task: Task) => TaskPatch)) => (event: Event) => {
    const select = event.currentTarget as HTMLSelectElement;
    if (select.value) void apply(make(select.value));
    select.value = '';
  };
  return (
    <div class="bulk-bar" role="group" aria-label="Change the selected tasks">
      <span>{count} selected</span>
      <label>
        Set status
        <select disabled={count === 0 || busy} onChange={pick((value) => ({ status: value }))}>
          <option value="">Choose…</option>
          <StateOptions states={states} />
        </select>
      </label>
      <label>
        Set assignee
        <select disabled={count === 0 || busy} onChange={pick((value) => ({ assigneeId: value === 'none' ? null : value === 'me' ? me.id : value }))}>
          <option value="">Choose…</option>
          <option value="me">Me</option>
          <option value="none">Unassigned</option>
          <MemberOptions members={members} />
        </select>
      </label>
      {labels.length > 0 && (
        <label>
          Add label
          <select disabled={count === 0 || busy} onChange={pick((id) => (task: Task) => ({ labelIds: [...new Set([...task.labelIds, id])] }))}>
            <option value="">Choose…</option>
            {labels.map((label) => (
              <option key={label.id} value={label.id}>
                {label.name}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
