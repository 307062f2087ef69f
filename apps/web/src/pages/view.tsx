import { useQuery } from '../hooks';
import { keys } from '../data';
import { t } from '../i18n';
import { client } from '../session';
import { ErrorNote, Loading, Page } from '../ui';
import { notShared, useView, ViewTools } from '../views';
import { BoardPage } from './board';
import { CalendarPage } from './calendar';
import { TimelinePage } from './timeline';

/**
 * A saved view at `/projects/:projectId/views/:viewId`: the list or the board started from its
 * filters and sort (the list asks the server with them, paged); the calendar and the timeline, which
 * have no filters of their own, shown whole beneath the view's tools with a note saying so.
 */
export function ViewPage({ params }: { params: { projectId: string; viewId: string } }) {
  const { projectId, viewId } = params;
  const view = useView(projectId, viewId);
  const project = useQuery(keys.project(projectId), () => client.projects.get({ id: projectId }));
  if (view.error) return <Page title={t('view.savedView')}><ErrorNote error={view.error} /></Page>;
  if (view.data === null)
    return (
      <Page title={t('view.savedView')}>
        <p role="alert">{notShared()}</p>
        <p>
          <a href={`/projects/${projectId}`}>{t('view.backToBoard')}</a>
        </p>
      </Page>
    );
  if (!view.data || !project.data) return <Loading what={t('view.loadingWhat')} />;
  const saved = view.data;
  const { layout } = saved;
  // Keyed by the view: another view opened from the menu starts afresh from its own filters.
  if (layout === 'board' || layout === 'list') return <BoardPage key={saved.id} params={{ projectId }} view={layout} saved={saved} />;
  const note = t(`view.unfiltered.${layout}`);
  return (
    <>
      <aside class="view-banner" aria-label={t('view.savedView')}>
        <ViewTools view={saved} role={project.data.role} note={note} />
      </aside>
      {layout === 'calendar' ? <CalendarPage params={{ projectId }} /> : <TimelinePage params={{ projectId }} />}
    </>
  );
}
