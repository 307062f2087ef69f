import type { EstimateUnit } from '@tasklane/schemas';
import { ESTIMATE_UNITS, TIME_REPORT_GROUPS } from '@tasklane/schemas/constants';
import { useEffect, useState } from 'preact/hooks';
import { keys, timeKeys } from '../data';
import { canAdminister } from '../format';
import { queryClient, useAction, useQuery } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { stateName, useStates } from '../states';
import { formatEstimate, formatMinutes, todayUtc, unitLabel, useProject } from '../time';
import { EmptyState, ErrorNote, Loading, Page } from '../ui';
import { ViewsMenu } from '../views';
import { saveBlob } from '../download';

type GroupBy = (typeof TIME_REPORT_GROUPS)[number];
/** A grouping's name in the language now (the menu's options and the table's first column). */
const groupLabel = (group: GroupBy) => t(`timeReport.groups.${group}`);

/** This month in UTC (entries are dated in UTC): its first and last dates. */
function thisMonth(): { from: string; to: string } {
  const today = todayUtc();
  const [year, month] = today.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { from: `${today.slice(0, 8)}01`, to: `${today.slice(0, 8)}${String(last).padStart(2, '0')}` };
}

/** A file name from the report's choices, with nothing a file system refuses. */
const csvName = (project: string, from: string, to: string, groupBy: GroupBy) =>
  `${project.replace(/[^\p{L}\p{N}_-]+/gu, '-').replace(/^-+|-+$/g, '') || 'project'}-time-${from}-to-${to}-by-${groupBy}.csv`;

/**
 * The server's CSV of the report (Accept: text/csv; the SDK reads JSON only), fetched with the
 * session's token and saved as a file.
 */
async function downloadCsv(projectId: string, from: string, to: string, groupBy: GroupBy, name: string) {
  const query = new URLSearchParams({ from, to, groupBy });
  const response = await fetch(`/api/v1/projects/${encodeURIComponent(projectId)}/time-report?${query}`, {
    headers: { Accept: 'text/csv', Authorization: `Bearer ${client.getToken() ?? ''}` },
  });
  if (!response.ok) {
    // The documented JSON error body, read as the SDK would.
    const body = (await response.json().catch(() => undefined)) as { message?: string } | undefined;
    throw new Error(body?.message ?? t('timeReport.downloadFailed', { status: response.status }));
  }
  saveBlob(await response.blob(), name);
}

/** A project's time: who spent how long on what (from–to, grouped), as a table and as CSV; estimate totals per state; the estimate unit. */
export function TimeReportPage({ params }: { params: { projectId: string } }) {
  const { projectId } = params;
  const project = useProject(projectId);
  const states = useStates(projectId);
  const [range, setRange] = useState(thisMonth);
  const [groupBy, setGroupBy] = useState<GroupBy>('user');
  const valid = range.from !== '' && range.to !== '' && range.from <= range.to;
  const report = useQuery(timeKeys.report(projectId, range.from, range.to, groupBy), () =>
    valid ? client.time.report({ id: projectId, from: range.from, to: range.to, groupBy }) : Promise.resolve([]),
  );
  const download = useAction();
  // The estimate totals follow every task's change, which no live event of the project's carries:
  // read the project afresh on opening (the cache shows what it had meanwhile).
  useEffect(() => project.reload(), [projectId]);

  if (project.error) return <Page title={t('timeReport.time')}><ErrorNote error={project.error} /></Page>;
  if (!project.data) return <Loading what={t('timeReport.loading')} />;
  const { name, estimateUnit, estimateTotals } = project.data;
  const total = (report.data ?? []).reduce((sum, row) => sum + row.minutes, 0);

  return (
    <Page
      narrow
      title={t('timeReport.title', { name })}
      actions={
        <nav class="row" aria-label={t('timeReport.nav.label')}>
          <a href={`/projects/${projectId}`}>{t('timeReport.nav.board')}</a>
          <a href={`/projects/${projectId}/list`}>{t('timeReport.nav.list')}</a>
          <a href={`/projects/${projectId}/timeline`}>{t('timeReport.nav.timeline')}</a>
          <a href={`/projects/${projectId}/calendar`}>{t('timeReport.nav.calendar')}</a>
          <a href={`/projects/${projectId}/members`}>{t('timeReport.nav.members')}</a>
          <a href={`/projects/${projectId}/time`} aria-current="page">
            {t('timeReport.time')}
          </a>
          <ViewsMenu projectId={projectId} />
        </nav>
      }
    >
      <section aria-labelledby="report-title" class="time-report">
        <h2 id="report-title">{t('timeReport.report.heading')}</h2>
        <form class="fields report-filters" aria-label={t('timeReport.report.label')} onSubmit={(event) => event.preventDefault()}>
          <label>
            {t('timeReport.report.from')}
            <input type="date" value={range.from} onInput={(e) => setRange((current) => ({ ...current, from: e.currentTarget.value }))} />
          </label>
          <label>
            {t('timeReport.report.to')}
            <input type="date" value={range.to} onInput={(e) => setRange((current) => ({ ...current, to: e.currentTarget.value }))} />
          </label>
          <label>
            {t('timeReport.report.groupBy')}
            <select value={groupBy} onChange={(e) => setGroupBy(e.currentTarget.value as GroupBy)}>
              {TIME_REPORT_GROUPS.map((group) => (
                <option key={group} value={group}>
                  {groupLabel(group)}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            disabled={!valid || download.busy}
            onClick={() => void download.run(() => downloadCsv(projectId, range.from, range.to, groupBy, csvName(name, range.from, range.to, groupBy)))}
          >
            {t('timeReport.report.download')}
          </button>
        </form>
        {!valid && <p class="notice">{t('timeReport.report.invalidRange')}</p>}
        <ErrorNote error={report.error ?? download.error} />
        {valid && report.data?.length === 0 && <EmptyState title={t('timeReport.report.empty')} hint={t('timeReport.report.emptyHint')} />}
        {valid && report.data && report.data.length > 0 && (
          <table class="report-table">
            <caption class="visually-hidden">{t(`timeReport.report.caption.${groupBy}`, { from: range.from, to: range.to })}</caption>
            <thead>
              <tr>
                <th scope="col">{groupLabel(groupBy)}</th>
                <th scope="col" class="number">
                  {t('timeReport.time')}
                </th>
              </tr>
            </thead>
            <tbody>
              {report.data.map((row) => (
                <tr key={row.key}>
                  <th scope="row">{row.label}</th>
                  <td class="number">{formatMinutes(row.minutes)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">{t('timeReport.report.total')}</th>
                <td class="number">{formatMinutes(total)}</td>
              </tr>
            </tfoot>
          </table>
        )}
      </section>
      <section aria-labelledby="estimates-title" class="estimate-totals">
        <h2 id="estimates-title">{t('timeReport.estimates.heading')}</h2>
        {canAdminister(project.data.role) && <EstimateUnitSetting projectId={projectId} unit={estimateUnit} onSaved={project.reload} />}
        <table>
          <caption class="visually-hidden">{t(`timeReport.estimates.caption.${estimateUnit}`)}</caption>
          <thead>
            <tr>
              <th scope="col">{t('timeReport.estimates.state')}</th>
              <th scope="col" class="number">
                {t('timeReport.estimates.estimated')}
              </th>
            </tr>
          </thead>
          <tbody>
            {(states.data ?? []).map((state) => (
              <tr key={state.key}>
                <th scope="row">{stateName(states.data, state.key)}</th>
                <td class="number">{formatEstimate(estimateTotals[state.key] ?? 0, estimateUnit)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </Page>
  );
}

/** Admins choose the unit of the project's estimates; the numbers stay as they are. */
function EstimateUnitSetting({ projectId, unit, onSaved }: { projectId: string; unit: EstimateUnit; onSaved: () => void }) {
  const { busy, error, run } = useAction();
  const save = async (estimateUnit: EstimateUnit) => {
    const saved = await run(() => client.projects.update({ id: projectId, estimateUnit }));
    if (!saved) return;
    void queryClient.invalidateQueries({ queryKey: keys.projects });
    onSaved();
  };
  return (
    <div>
      <label>
        {t('timeReport.estimates.unit')}
        <select value={unit} disabled={busy} onChange={(e) => void save(e.currentTarget.value as EstimateUnit)}>
          {ESTIMATE_UNITS.map((value) => (
            <option key={value} value={value}>
              {unitLabel(value)}
            </option>
          ))}
        </select>
      </label>
      <p class="muted small">{t('timeReport.estimates.unitHint')}</p>
      <ErrorNote error={error} />
    </div>
  );
}
