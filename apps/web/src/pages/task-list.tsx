import type { Field, Label, Member, State, Task } from '@tasklane/schemas';
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useCurrentUser } from '../current-user';
import { columnHasMore, fieldKeys, readPages, type TaskFilters } from '../data';
import { FieldValueView, useFields } from '../fields';
import { formatDay, isOverdue, memberName, PRIORITIES, priorityLabel } from '../format';
import { useQuery } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { closedKeys, StateOptions, stateName } from '../states';
import { changeTask, type TaskPatch } from '../task-actions';
import { announce, Avatar, EmptyState, ErrorNote, LabelChips, MemberOptions, SubtaskProgress } from '../ui';

export type SortKey = 'title' | 'status' | 'priority' | 'assignee' | 'dueDate';
const COLUMNS: SortKey[] = ['title', 'status', 'priority', 'assignee', 'dueDate'];
/** A built-in column's heading in the language now. */
const columnLabel = (key: SortKey): string =>
  ({ title: t('common.title'), status: t('common.status'), priority: t('common.priority'), assignee: t('common.assignee'), dueDate: t('taskList.due') })[key];
/** The built-in sorts the server also knows, for a list it pages (status: the workflow's order; assignee: by name). */
export const SERVER_SORTS: Partial<Record<SortKey, string>> = { title: 'title', status: 'status', priority: 'priority', assignee: 'assignee', dueDate: 'dueDate' };

/** A sort: a built-in column, or a custom field by its id (`field`), which the server sorts. */
export type Sort = { key: SortKey; field?: undefined; descending: boolean } | { key?: undefined; field: string; descending: boolean };

/** The filter by one custom field: its id, and an equal value or (number, date) a range. */
export interface FieldFilter {
  fieldId: string;
  value: string;
  from: string;
  to: string;
}
export const NO_FIELD_FILTER: FieldFilter = { fieldId: '', value: '', from: '', to: '' };
/** The list's order until the person sorts: by status, as the board's columns. */
export const DEFAULT_SORT: Sort = { key: 'status', descending: false };

/** The list's own state beside the board's filters (kept by the page, so a saved view can set and save it). */
export interface ListState {
  sort: Sort;
  setSort: (sort: Sort) => void;
  fieldFilter: FieldFilter;
  setFieldFilter: (filter: FieldFilter) => void;
  /**
   * A saved view's filters the page has no control for (a status, several priorities…): sent to the
   * server with the rest. Set, or `served`, the list always shows the server's pages.
   */
  extraParams?: Record<string, string | string[]>;
  served?: boolean;
}

/** How many tasks a page of the server's filtered or sorted list holds. */
const PAGE = 50;
/** The custom fields shown as columns until the person chooses. */
const DEFAULT_COLUMNS = 3;

/**
 * The same filtered tasks as the board, as a sortable table with multi-select and bulk changes, and
 * the project's custom fields as columns the person chooses. A filter or sort by a custom field, a
 * saved view, or a project the board read only in part is the server's (query parameters, paged by
 * cursor): the list then shows the pages it answers, with the board's other filters sent along.
 */
export function TaskList(props: { projectId: string; filters: TaskFilters; tasks: Task[]; members: Member[]; labels: Label[]; states: State[]; editable: boolean; list: ListState }) {
  const { projectId, tasks, members, labels, states, editable } = props;
  const { sort, setSort, fieldFilter, setFieldFilter, extraParams, served: alwaysServed } = props.list;
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const fields = useFields(projectId);
  const allFields = fields.data ?? [];
  const [shownIds, setShownIds] = useFieldColumns(projectId, allFields);
  const shown = allFields.filter((field) => shownIds.includes(field.id));
  const nameOf = (id: string | null) => (id ? memberName(members, id) : '');

  const filterField = allFields.find((field) => field.id === fieldFilter.fieldId);
  // A project the board read only in part (issue 37) is sorted and filtered by the server, a page at
  // a time: sorting or filtering the pages read would show a wrong answer. A project read whole is
  // sorted here, at once.
  const partial = states.some((state) => columnHasMore(projectId, state.key));
  const params = serverParams(props.filters, filterField, fieldFilter, sort, alwaysServed || partial, extraParams);
  const served = useServedTasks(projectId, params);

  const localRows = useMemo(() => {
    if (params) return [];
    const key = sort.key ?? 'status';
    const value = (task: Task): string | number => {
      // By board order; a status of no state (any more) last.
      if (key === 'status') return states.findIndex((state) => state.key === task.status) >>> 0;
      if (key === 'priority') return PRIORITIES.indexOf(task.priority);
      if (key === 'assignee') return nameOf(task.assigneeId).toLowerCase() || '\uffff';
      if (key === 'dueDate') return task.dueDate ?? '\uffff';
      return task.title.toLowerCase();
    };
    const sorted = tasks.slice().sort((a, b) => {
      const [x, y] = [value(a), value(b)];
      return x < y ? -1 : x > y ? 1 : a.createdAt.localeCompare(b.createdAt);
    });
    return sort.descending ? sorted.reverse() : sorted;
  }, [tasks, sort, members, states, Boolean(params)]);
  const rows = params ? served.rows : localRows;
  const closed = closedKeys(states);

  const chosen = rows.filter((task) => selected.has(task.id));
  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const allChosen = rows.length > 0 && chosen.length === rows.length;
  const sortedBy = sort.field ? (allFields.find((field) => field.id === sort.field)?.name ?? t('taskList.aField')) : params && !SERVER_SORTS[sort.key ?? 'status'] ? t('taskList.creation') : sort.key ? columnLabel(sort.key) : '';
  const sortState = (active: boolean) => (active ? (sort.descending ? 'descending' : 'ascending') : undefined);
  // A sign for the eye only (aria-hidden): aria-sort says the same in words.
  const arrow = (active: boolean) => (active ? (sort.descending ? ' ▼' : ' ▲') : '');
  const sortButton = (label: ComponentChildren, active: boolean, next: () => Sort) => (
    <button type="button" class="sort" onClick={() => setSort(next())}>
      {label}
      <span aria-hidden="true">{arrow(active)}</span>
    </button>
  );

  return (
    <>
      <div class="row list-tools">
        <FieldFilterForm fields={allFields} members={members} filter={fieldFilter} setFilter={setFieldFilter} />
        <ColumnChooser fields={allFields} shownIds={shownIds} setShownIds={setShownIds} />
      </div>
      <ErrorNote error={fields.error ?? served.error} />
      {editable && <BulkBar count={chosen.length} tasks={chosen} members={members} labels={labels} states={states} onDone={() => setSelected(new Set())} />}
      <div class="table-wrap">
        <table class="task-table" aria-busy={params ? served.loading : undefined}>
          <caption class="visually-hidden">{t('taskList.caption', { by: sortedBy })}</caption>
          <thead>
            <tr>
              {editable && (
                <th scope="col" class="pick">
                  <input
                    type="checkbox"
                    aria-label={t('taskList.selectAll')}
                    checked={allChosen}
                    onChange={() => setSelected(allChosen ? new Set() : new Set(rows.map((task) => task.id)))}
                  />
                </th>
              )}
              {COLUMNS.map((key) => (
                // Served by the server, a column it could not sort by would be in creation order: aria-sort says what was done.
                <th key={key} scope="col" aria-sort={sortState(sort.key === key && (!params || Boolean(SERVER_SORTS[key])))}>
                  {sortButton(columnLabel(key), sort.key === key, () => ({ key, descending: sort.key === key ? !sort.descending : false }))}
                </th>
              ))}
              {shown.map((field) => (
                <th key={field.id} scope="col" class="field-column" aria-sort={sortState(sort.field === field.id)}>
                  {sortButton(field.name, sort.field === field.id, () => ({ field: field.id, descending: sort.field === field.id ? !sort.descending : false }))}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((task) => (
              <tr key={task.id} data-task-id={task.id} class={isOverdue(task, closed) ? 'overdue' : undefined}>
                {editable && (
                  <td class="pick">
                    <input type="checkbox" aria-label={t('taskList.select', { title: task.title })} checked={selected.has(task.id)} onChange={() => toggle(task.id)} />
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
                  <span class={`priority priority-${task.priority.toLowerCase()}`}>{priorityLabel(task.priority)}</span>
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
                {shown.map((field) => (
                  <td key={field.id} class="field-cell" data-field-id={field.id}>
                    <FieldValueView field={field} value={task.fields[field.id]} members={members} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && !(params && served.loading) && <EmptyState title={t('taskList.noMatch')} hint={editable ? t('taskList.noMatchHint') : t('taskList.noMatchFiltersHint')} />}
      {params && served.more && (
        <button type="button" disabled={served.loading} onClick={served.loadMore}>
          {t('taskList.showMore')}
        </button>
      )}
    </>
  );
}

/**
 * The list's query for the server when a custom field filters or sorts it (else undefined: the
 * board's loaded tasks are shown, filtered and sorted in the browser as before). The board's own
 * filters go along as the API's parameters.
 */
function serverParams(
  filters: TaskFilters,
  field: Field | undefined,
  filter: FieldFilter,
  sort: Sort,
  always = false,
  extra: Record<string, string | string[]> = {},
): Record<string, string | string[]> | undefined {
  const fieldParams = fieldFilterParams(field, filter);
  if (!always && Object.keys(extra).length === 0 && Object.keys(fieldParams).length === 0 && !sort.field) return undefined;
  const params: Record<string, string | string[]> = { ...extra, ...filterParams(filters), ...fieldParams };
  const by = sort.field ? `field.${sort.field}` : (SERVER_SORTS[sort.key ?? 'status'] ?? 'createdAt');
  params.sort = `${sort.descending ? '-' : ''}${by}`;
  return params;
}

/** The board's filters as the task list's query parameters (a saved view's `filters` too). */
export function filterParams(filters: TaskFilters): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  if (filters.assigneeId) params.assigneeId = filters.assigneeId;
  if (filters.priority) params.priority = [filters.priority];
  if (filters.labelId) params.labelId = [filters.labelId];
  if (filters.text.trim()) params.q = filters.text.trim();
  return params;
}

/** The filter by one custom field as query parameters (`field.<id>`, or its `.gte` / `.lte` range). */
export function fieldFilterParams(field: Pick<Field, 'id' | 'type'> | undefined, filter: FieldFilter): Record<string, string> {
  const params: Record<string, string> = {};
  if (!field) return params;
  const key = `field.${field.id}`;
  if (field.type === 'number' || field.type === 'date') {
    if (filter.from) params[`${key}.gte`] = filter.from;
    if (filter.to) params[`${key}.lte`] = filter.to;
  } else if (filter.value) params[key] = filter.value;
  return params;
}

/**
 * The server's pages of a filtered or sorted list, as many as asked for (each page by the cursor of
 * the one before). While another query or page loads, the rows shown before stay.
 */
function useServedTasks(projectId: string, params: Record<string, string | string[]> | undefined) {
  const [pages, setPages] = useState(1);
  const signature = JSON.stringify(params ?? null);
  useEffect(() => setPages(1), [signature]);
  const query = useQuery([...fieldKeys.taskQueries(projectId), signature, pages], async () => {
    if (!params) return { items: [] as Task[], more: false };
    const { items, cursor } = await readPages(pages, (cursor) => client.tasks.list({ projectId, ...params, limit: PAGE, ...(cursor ? { cursor } : {}) }));
    return { items, more: cursor !== undefined };
  });
  const last = useRef<{ items: Task[]; more: boolean }>({ items: [], more: false });
  if (query.data) last.current = query.data;
  return { rows: last.current.items, more: last.current.more, loading: query.loading, error: query.error, loadMore: () => setPages((count) => count + 1) };
}

/** The custom fields shown as columns, remembered per project in this browser (the first few until chosen). */
function useFieldColumns(projectId: string, fields: Field[]): [string[], (ids: string[]) => void] {
  const storageKey = `tasklane.fieldColumns.${projectId}`;
  const [stored, setStored] = useState<string[] | undefined>(() => readColumns(storageKey));
  useEffect(() => setStored(readColumns(storageKey)), [storageKey]);
  const choose = (ids: string[]) => {
    window.localStorage.setItem(storageKey, JSON.stringify(ids));
    setStored(ids);
  };
  return [stored ?? fields.slice(0, DEFAULT_COLUMNS).map((field) => field.id), choose];
}

function readColumns(storageKey: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(window.localStorage.getItem(storageKey) ?? 'null');
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : undefined;
  } catch {
    return undefined;
  }
}

function ColumnChooser({ fields, shownIds, setShownIds }: { fields: Field[]; shownIds: string[]; setShownIds: (ids: string[]) => void }) {
  if (fields.length === 0) return null;
  return (
    <details class="column-chooser">
      <summary>{t('taskList.fieldColumns')}</summary>
      <fieldset>
        <legend>{t('taskList.fieldColumnsLegend')}</legend>
        {fields.map((field) => (
          <label key={field.id} class="check">
            <input
              type="checkbox"
              checked={shownIds.includes(field.id)}
              onChange={(event) => setShownIds(event.currentTarget.checked ? [...shownIds, field.id] : shownIds.filter((id) => id !== field.id))}
            />
            {field.name}
          </label>
        ))}
      </fieldset>
    </details>
  );
}

/** The filter by a custom field: the field, then an option, a person, yes or no, a value, or (number, date) a range. */
function FieldFilterForm({ fields, members, filter, setFilter }: { fields: Field[]; members: Member[]; filter: FieldFilter; setFilter: (filter: FieldFilter) => void }) {
  if (fields.length === 0) return null;
  const field = fields.find((item) => item.id === filter.fieldId);
  const set = (key: keyof FieldFilter) => (event: Event) => setFilter({ ...filter, [key]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  let input: ComponentChildren = null;
  if (field?.type === 'number' || field?.type === 'date') {
    const type = field.type === 'number' ? 'number' : 'date';
    input = (
      <>
        <label>
          {t('taskList.fieldFilter.from')}
          <input type={type} step={type === 'number' ? 'any' : undefined} value={filter.from} onInput={set('from')} />
        </label>
        <label>
          {t('taskList.fieldFilter.to')}
          <input type={type} step={type === 'number' ? 'any' : undefined} value={filter.to} onInput={set('to')} />
        </label>
      </>
    );
  } else if (field) {
    const choices =
      field.type === 'select' || field.type === 'multi_select'
        ? field.options.map((option) => ({ id: option.id, name: option.name }))
        : field.type === 'user'
          ? members.map((member) => ({ id: member.userId, name: member.name }))
          : field.type === 'checkbox'
            ? [
                { id: 'true', name: t('common.yes') },
                { id: 'false', name: t('common.no') },
              ]
            : undefined;
    input = (
      <label>
        {t('taskList.fieldFilter.value')}
        {choices ? (
          <select value={filter.value} onChange={set('value')}>
            <option value="">{t('taskList.fieldFilter.any')}</option>
            {choices.map((choice) => (
              <option key={choice.id} value={choice.id}>
                {choice.name}
              </option>
            ))}
          </select>
        ) : (
          <input type="search" value={filter.value} onInput={set('value')} />
        )}
      </label>
    );
  }
  return (
    <form class="filters field-filter" role="search" aria-label={t('taskList.fieldFilter.ariaLabel')} onSubmit={(event) => event.preventDefault()}>
      <label>
        {t('taskList.fieldFilter.field')}
        <select value={filter.fieldId} onChange={(event) => setFilter({ ...NO_FIELD_FILTER, fieldId: event.currentTarget.value })}>
          <option value="">{t('common.none')}</option>
          {fields.map((item) => (
            <option key={item.id} value={item.id}>
              {item.name}
            </option>
          ))}
        </select>
      </label>
      {input}
    </form>
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
    if (refused === 0) announce(t('taskList.bulk.changed', { count: results.length }));
    onDone();
  };
  const pick = (make: (value: string) => TaskPatch | ((task: Task) => TaskPatch)) => (event: Event) => {
    const select = event.currentTarget as HTMLSelectElement;
    if (select.value) void apply(make(select.value));
    select.value = '';
  };
  return (
    <div class="bulk-bar" role="group" aria-label={t('taskList.bulk.ariaLabel')}>
      <span>{t('taskList.bulk.selected', { count })}</span>
      <label>
        {t('taskList.bulk.setStatus')}
        <select disabled={count === 0 || busy} onChange={pick((value) => ({ status: value }))}>
          <option value="">{t('taskList.bulk.choose')}</option>
          <StateOptions states={states} />
        </select>
      </label>
      <label>
        {t('taskList.bulk.setAssignee')}
        <select disabled={count === 0 || busy} onChange={pick((value) => ({ assigneeId: value === 'none' ? null : value === 'me' ? me.id : value }))}>
          <option value="">{t('taskList.bulk.choose')}</option>
          <option value="me">{t('taskList.bulk.me')}</option>
          <option value="none">{t('common.unassigned')}</option>
          <MemberOptions members={members} />
        </select>
      </label>
      {labels.length > 0 && (
        <label>
          {t('taskList.bulk.addLabel')}
          <select disabled={count === 0 || busy} onChange={pick((id) => (task: Task) => ({ labelIds: [...new Set([...task.labelIds, id])] }))}>
            <option value="">{t('taskList.bulk.choose')}</option>
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
