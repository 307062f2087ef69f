import { type EstimateUnit, ESTIMATE_UNITS, TIME_REPORT_GROUPS } from '@tasklane/schemas';
import { useEffect, useState } from 'preact/hooks';
import { keys, timeKeys } from '../data';
import { canAdminister } from '../format';
import { queryClient, useAction, useQuery } from '../hooks';
import { client } from '../session';
import { stateName, useStates } from '../states';
import { formatEstimate, formatMinutes, todayUtc, UNIT_LABELS, useProject } from '../time';
import { ErrorNote, Loading, Page } from '../ui';
import { ViewsMenu } from '../views';
import { saveBlob } from '../download';

type GroupBy = (typeof TIME_REPORT_GROUPS)[number];
const GROUP_LABELS = { user: 'Person', task: 'Task', day: 'Day' } as const satisfies Record<GroupBy, string>;

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
    throw new Error(body?.message ?? `The report could not be downloaded (${response.status}).`);
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

  if (project.error) return <Page title="Time"><ErrorNote error={project.error} /></Page>;
  if (!project.data) return <Loading what="the project" />;
  const { name, estimateUnit, estimateTotals } = project.data;
  const total = (report.data ?? []).reduce((sum, row) => sum + row.minutes, 0);

  return (
    <Page
      title={`${name}: time`}
      actions={
        <nav class="row" aria-label="Project">
          <a href={`/projects/${projectId}`}>Board</a>
          <a href={`/projects/${projectId}/list`}>List</a>
          <a href={`/projects/${projectId}/timeline`}>Timeline</a>
          <a href={`/projects/${projectId}/calendar`}>Calendar</a>
          <a href={`/projects/${projectId}/members`}>Members</a>
          <a href={`/projects/${projectId}/time`} aria-current="page">
            Time
          </a>
          <ViewsMenu projectId={projectId} />
        </nav>
      }
    >
      <section aria-labelledby="report-title" class="time-report">
        <h2 id="report-title">Time report</h2>
        <form class="fields report-filters" aria-label="Report" onSubmit={(event) => event.preventDefault()}>
          <label>
            From
            <input type="date" value={range.from} onInput={(e) => setRange((current) => ({ ...current, from: e.currentTarget.value }))} />
          </label>
          <label>
            To
            <input type="date" value={range.to} onInput={(e) => setRange((current) => ({ ...current, to: e.currentTarget.value }))} />
          </label>
          <label>
            Group by
            <select value={groupBy} onChange={(e) => setGroupBy(e.currentTarget.value as GroupBy)}>
              {TIME_REPORT_GROUPS.map((group) => (
                <option key={group} value={group}>
                  {GROUP_LABELS[group]}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            disabled={!valid || download.busy}
            onClick={() => void download.run(() => downloadCsv(projectId, range.from, range.to, groupBy, csvName(name, range.from, range.to, groupBy)))}
          >
            Download CSV
          </button>
        </form>
        {!valid && <p class="notice">Choose a start date on or before the end date.</p>}
        <ErrorNote error={report.error ?? download.error} />
        {valid && report.data?.length === 0 && <p class="muted">No time logged in these dates.</p>}
        {valid && report.data && report.data.length > 0 && (
          <table class="report-table">
            <caption class="visually-hidden">
              Time from {range.from} to {range.to} by {GROUP_LABELS[groupBy].toLowerCase()}
            </caption>
            <thead>
              <tr>
                <th scope="col">{GROUP_LABELS[groupBy]}</th>
                <th scope="col" class="number">
                  Time
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
                <th scope="row">Total</th>
                <td class="number">{formatMinutes(total)}</td>
              </tr>
            </tfoot>
          </table>
        )}
      </section>
      <section aria-labelledby="estimates-title" class="estimate-totals">
        <h2 id="estimates-title">Estimates</h2>
        {canAdminister(project.data.role) && <EstimateUnitSetting projectId={projectId} unit={estimateUnit} onSaved={project.reload} />}
        <table>
          <caption class="visually-hidden">Estimate totals per state, in {UNIT_LABELS[estimateUnit].toLowerCase()}</caption>
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col" class="number">
                Estimated
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
        Estimate unit
        <select value={unit} disabled={busy} onChange={(e) => void save(e.currentTarget.value as EstimateUnit)}>
          {ESTIMATE_UNITS.map((value) => (
            <option key={value} value={value}>
              {UNIT_LABELS[value]}
            </option>
          ))}
        </select>
      </label>
      <p class="muted small">Changing the unit keeps the numbers as they are.</p>
      <ErrorNote error={error} />
    </div>
  );
}
