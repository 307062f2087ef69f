import type { Field, Role, TaskPriority, View, ViewLayout } from '@tasklane/schemas';
import { TasklaneError } from '@tasklane/sdk';
import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useCurrentUser } from './current-user';
import { NO_FILTERS, type TaskFilters, viewKeys } from './data';
import { canAdminister, canEditTasks, PRIORITIES } from './format';
import { queryClient, useAction, useFollowed, useQuery } from './hooks';
import { t } from './i18n';
import { DEFAULT_SORT, type FieldFilter, fieldFilterParams, filterParams, NO_FIELD_FILTER, SERVER_SORTS, type Sort, type SortKey } from './pages/task-list';
import { client } from './session';
import { announce, CLOSE_GLYPH, ConfirmButton, ErrorNote } from './ui';

/** Saved views (issue 37): a name, a layout, and the task list's filters and sort, kept by the server. */

/** Each layout's name in the language now. */
export const layoutLabels = (): Record<ViewLayout, string> => ({ board: t('views.layouts.board'), list: t('views.layouts.list'), calendar: t('views.layouts.calendar'), timeline: t('views.layouts.timeline') });
export const notShared = () => t('views.notShared');

/** What the board and the list show: their filters, the list's field filter and sort, and the view's filters they have no control for. */
export interface PageFilters {
  filters: TaskFilters;
  fieldFilter: FieldFilter;
  sort: Sort;
  extra: Record<string, string | string[]>;
}

/** The project's saved views the person sees (shared, and their own personal ones), by name. */
export const loadViews = async (projectId: string): Promise<View[]> => {
  const views: View[] = [];
  for await (const view of client.paginate(client.views.list, { id: projectId, limit: 100 })) views.push(view);
  return views;
};

export const useViews = (projectId: string) => useQuery(viewKeys.list(projectId), () => loadViews(projectId));

/** Whether the person may rename, reshare, update or delete the view, as the server's rule says (the server still decides). */
export function canChangeView(view: View, meId: string, role: Role | undefined): boolean {
  if (!view.shared) return view.ownerId === meId;
  return (view.ownerId === meId && canEditTasks(role)) || canAdminister(role);
}

/**
 * A page's state as a view's `filters` and `sort`: exactly the task list's query parameters (every
 * column of the list is a sort the server knows, the default by status too).
 */
export function viewQuery(state: PageFilters, fields: Field[]): { filters: Record<string, string | string[]>; sort: string | null } {
  const field = fields.find((item) => item.id === state.fieldFilter.fieldId);
  const filters = { ...state.extra, ...filterParams(state.filters), ...fieldFilterParams(field, state.fieldFilter) };
  const { sort } = state;
  const by = sort.field ? `field.${sort.field}` : SERVER_SORTS[sort.key ?? 'status'];
  return { filters, sort: by ? `${sort.descending ? '-' : ''}${by}` : null };
}

/**
 * A view's filters and sort as the page's controls: what a control shows goes there, the rest
 * (a status, several priorities, a due range…) is kept as `extra` and sent to the server as is.
 */
export function pageFilters(view: Pick<View, 'filters' | 'sort'>): PageFilters {
  const rest: Record<string, unknown> = { ...view.filters };
  const take = (key: string): string => {
    const value = rest[key];
    if (typeof value === 'string') {
      delete rest[key];
      return value;
    }
    if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') {
      delete rest[key];
      return value[0];
    }
    return '';
  };
  const assigneeId = take('assigneeId');
  const priorities = rest.priority;
  const priority = Array.isArray(priorities) && PRIORITIES.includes(priorities[0] as TaskPriority) ? (take('priority') as TaskPriority) : '';
  const filters: TaskFilters = { ...NO_FILTERS, assigneeId, priority, labelId: take('labelId'), text: take('q') };
  // The list filters by one custom field: the first the view names.
  let fieldFilter = NO_FIELD_FILTER;
  const fieldId = Object.keys(rest).find((key) => key.startsWith('field.'))?.split('.')[1];
  if (fieldId) fieldFilter = { fieldId, value: take(`field.${fieldId}`), from: take(`field.${fieldId}.gte`), to: take(`field.${fieldId}.lte`) };
  const extra: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(rest)) if (typeof value === 'string' || Array.isArray(value)) extra[key] = value as string | string[];
  return { filters, fieldFilter, sort: parseSort(view.sort), extra };
}

function parseSort(sort: string | null): Sort {
  if (!sort) return DEFAULT_SORT;
  const descending = sort.startsWith('-');
  const by = descending ? sort.slice(1) : sort;
  if (by.startsWith('field.')) return { field: by.slice('field.'.length), descending };
  const key = (Object.keys(SERVER_SORTS) as SortKey[]).find((item) => SERVER_SORTS[item] === by);
  return key ? { key, descending } : DEFAULT_SORT;
}

/** The "Views" menu of a project's nav: its saved views, each a link, shared ones and the person's own marked. */
export function ViewsMenu({ projectId, current }: { projectId: string; current?: string }) {
  const views = useViews(projectId);
  const menu = useRef<HTMLDetailsElement>(null);
  const list = views.data ?? [];
  return (
    <details class="views-menu" ref={menu}>
      <summary>{t('views.menu.summary')}</summary>
      <div class="menu-popup">
        {list.length === 0 ? (
          <p class="muted small">{views.loading ? t('views.menu.loading') : t('views.menu.empty')}</p>
        ) : (
          <ul class="plain" aria-label={t('views.menu.ariaLabel')}>
            {list.map((view) => (
              <li key={view.id}>
                <a href={`/projects/${projectId}/views/${view.id}`} aria-current={current === view.id ? 'page' : undefined} onClick={() => menu.current?.removeAttribute('open')}>
                  {view.name} <span class="muted small">{view.shared ? t('views.menu.shared') : t('views.menu.personal')}</span>
                </a>
              </li>
            ))}
          </ul>
        )}
        <ErrorNote error={views.error} />
      </div>
    </details>
  );
}

/** Reads a view's list afresh (and the view itself), after a change made here or announced live. */
export const refreshViews = (projectId: string) => void queryClient.invalidateQueries({ queryKey: viewKeys.list(projectId) });

/**
 * "Save view…": a name, a layout (the page's own by default) and, for EDITOR and up, "Share with
 * the project". Saves the page's filters and sort, then opens the new view's address.
 */
export function SaveViewDialog(props: { projectId: string; role: Role | undefined; layout: ViewLayout; query: () => { filters: Record<string, string | string[]>; sort: string | null }; onClose: () => void }) {
  const { projectId } = props;
  const { route } = useLocation();
  const dialog = useRef<HTMLDialogElement>(null);
  const [name, setName] = useState('');
  const [layout, setLayout] = useState<ViewLayout>(props.layout);
  const [shared, setShared] = useState(false);
  const { busy, error, run } = useAction();
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    const view = await run(() => client.views.create({ id: projectId, name: name.trim(), layout, ...props.query(), shared }));
    if (!view) return;
    queryClient.setQueryData(viewKeys.view(projectId, view.id), view);
    refreshViews(projectId);
    announce(t('views.save.saved', { name: view.name }));
    dialog.current?.close();
    route(`/projects/${projectId}/views/${view.id}`);
  };
  return (
    <dialog ref={dialog} class="task-dialog" aria-labelledby="save-view-title" onClose={props.onClose}>
      <div class="dialog-head">
        <h2 id="save-view-title">{t('views.save.title')}</h2>
        <button type="button" onClick={() => dialog.current?.close()} aria-label={t('common.close')}>
          {CLOSE_GLYPH}
        </button>
      </div>
      <p class="muted small">{t('views.save.intro')}</p>
      <form class="stack" aria-label={t('views.save.title')} onSubmit={submit}>
        <label>
          {t('common.name')}
          <input value={name} required maxLength={100} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <label>
          {t('views.save.layout')}
          <select value={layout} onChange={(event) => setLayout(event.currentTarget.value as ViewLayout)}>
            {Object.entries(layoutLabels()).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {canEditTasks(props.role) && (
          <label class="check">
            <input type="checkbox" checked={shared} onChange={(event) => setShared(event.currentTarget.checked)} />
            {t('views.save.share')}
          </label>
        )}
        <ErrorNote error={error} />
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>
            {t('views.save.title')}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/**
 * A saved view's own tools on its page: what it is, and for those allowed (`canChangeView`) rename,
 * share or keep personal, update with the page's current filters (`current`, when the page has
 * filters) and delete after a confirmation. `note` says what the layout cannot show.
 */
export function ViewTools(props: { view: View; role: Role | undefined; current?: () => { filters: Record<string, string | string[]>; sort: string | null }; note?: string }) {
  const { view, role } = props;
  const me = useCurrentUser();
  const { route } = useLocation();
  const [name, setName] = useFollowed(view.name);
  const [deleting, setDeleting] = useState(false);
  // Ticked at once while the change is sent; back to the server's value if refused.
  const [shared, setShared] = useFollowed(view.shared);
  const { busy, error, run } = useAction();
  const allowed = canChangeView(view, me.id, role);
  const update = async (patch: { name?: string; shared?: boolean; filters?: Record<string, string | string[]>; sort?: string | null }, what: string) => {
    const next = await run(() => client.views.update({ id: view.projectId, viewId: view.id, ...patch }, { ifMatch: view }));
    if (next) {
      queryClient.setQueryData(viewKeys.view(view.projectId, view.id), next);
      announce(what);
    }
    refreshViews(view.projectId);
    return next !== undefined;
  };
  const remove = async () => {
    const done = await run(() => client.views.delete({ id: view.projectId, viewId: view.id }, { ifMatch: view }).then(() => true));
    if (!done) return;
    announce(t('views.tools.deleted', { name: view.name }));
    queryClient.removeQueries({ queryKey: viewKeys.view(view.projectId, view.id) });
    refreshViews(view.projectId);
    route(`/projects/${view.projectId}/list`);
  };
  return (
    <section class="view-tools" aria-label={t('views.tools.ariaLabel')}>
      <p>
        {t('views.tools.before')}
        <strong>{view.name}</strong>
        {t('views.tools.after', { layout: layoutLabels()[view.layout], sharing: view.shared ? t('views.tools.shared') : t('views.tools.personal') })}
      </p>
      {props.note && <p class="muted small">{props.note}</p>}
      {allowed && (
        <div class="row">
          <form
            class="row"
            aria-label={t('views.tools.renameLabel')}
            onSubmit={(event) => {
              event.preventDefault();
              const trimmed = name.trim();
              if (trimmed && trimmed !== view.name) void update({ name: trimmed }, t('views.tools.renamed', { name: trimmed }));
            }}
          >
            <label>
              {t('views.tools.name')}
              <input value={name} required maxLength={100} onInput={(event) => setName(event.currentTarget.value)} />
            </label>
            <button type="submit" disabled={busy}>
              {t('views.tools.rename')}
            </button>
          </form>
          {canEditTasks(role) && (
            <label class="check">
              <input
                type="checkbox"
                checked={shared}
                disabled={busy}
                onChange={(event) => {
                  const next = event.currentTarget.checked;
                  setShared(next);
                  void update({ shared: next }, next ? t('views.tools.nowShared') : t('views.tools.nowPersonal')).then((done) => !done && setShared(view.shared));
                }}
              />
              {t('views.tools.share')}
            </label>
          )}
          {props.current && (
            <button type="button" disabled={busy} onClick={() => void update(props.current!(), t('views.tools.updated'))}>
              {t('views.tools.update')}
            </button>
          )}
          <ConfirmButton label={t('views.tools.delete')} question={t('views.tools.deleteQuestion', { name: view.name })} confirmLabel={t('common.delete')} onConfirm={() => void remove()} busy={busy} open={deleting} setOpen={setDeleting} />
        </div>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

/** A view read by id: null when the server says 404 (another's personal view, or deleted). */
export const useView = (projectId: string, viewId: string) =>
  useQuery(viewKeys.view(projectId, viewId), () =>
    client.views.get({ id: projectId, viewId }).catch((failure: unknown) => {
      if (TasklaneError.from(failure).code === 'NOT_FOUND') return null;
      throw failure;
    }),
  );
