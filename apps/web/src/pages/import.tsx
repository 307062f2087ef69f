import type { CsvMapping, Import, ImportDryRun, ImportSource } from '@tasklane/schemas';
import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../hooks';
import { client } from '../session';
import { announce, ErrorNote, Page } from '../ui';

/** Each source, and where its file comes from (docs/api.md, "Import", says what maps to what). */
const SOURCES: Record<ImportSource, { label: string; how: string; accept: string }> = {
  trello: { label: 'Trello', how: "The board's menu → Print, export and share → Export as JSON.", accept: '.json,application/json' },
  jira: { label: 'Jira', how: 'Filters → your search → Export → Export CSV (all fields).', accept: '.csv,text/csv' },
  github: { label: 'GitHub issues', how: 'gh issue list --state all --json number,title,body,state,labels,assignees,milestone,comments,createdAt,url > issues.json (or the issues API’s JSON).', accept: '.json,application/json' },
  asana: { label: 'Asana', how: "The project's menu → Export/Print → CSV.", accept: '.csv,text/csv' },
  csv: { label: 'Any CSV', how: 'A spreadsheet saved as CSV with a header row: choose which column holds what below.', accept: '.csv,text/csv' },
  tasklane: { label: 'Tasklane', how: "Another Tasklane server's project export (Members → Export JSON).", accept: '.json,application/json' },
};

/** The fields a plain CSV's columns can fill, in the order the form asks for them. */
const CSV_FIELDS = [
  ['title', 'Title (required)'],
  ['description', 'Description'],
  ['status', 'Status'],
  ['priority', 'Priority'],
  ['dueDate', 'Due date'],
  ['assigneeEmail', 'Assignee email'],
  ['labels', 'Labels (comma separated)'],
] as const satisfies readonly (readonly [Exclude<keyof CsvMapping, 'fields'>, string])[];

const COUNT_LABELS: [keyof ImportDryRun['counts'], string][] = [
  ['tasks', 'Tasks'],
  ['subtasks', 'of which subtasks'],
  ['comments', 'Comments'],
  ['states', 'Workflow states'],
  ['labels', 'Labels'],
  ['fields', 'Custom fields'],
  ['relations', 'Relations'],
  ['timeEntries', 'Time entries'],
  ['members', 'Members matched by email'],
];

/** The header row of a CSV file (its first record), read in the browser to offer its columns. */
async function headerOf(file: File): Promise<string[]> {
  // Loaded when a CSV is chosen: no other page needs the parser.
  const [{ parse }, text] = await Promise.all([import('csv-parse/browser/esm/sync'), file.slice(0, 64 * 1024).text()]);
  const [header] = parse(text, { bom: true, to_line: 1, relax_column_count: true, skip_empty_lines: true }) as string[][];
  return (header ?? []).filter((name) => name.trim() !== '');
}

/**
 * Moving in: the source and its exported file, a check (the dry run's counts and warnings, nothing
 * written), then the import itself, followed until its project is ready to open.
 */
export function ImportPage() {
  const [source, setSource] = useState<ImportSource>('trello');
  const [file, setFile] = useState<File | undefined>(undefined);
  const [columns, setColumns] = useState<string[]>([]);
  const [mapping, setMapping] = useState<Partial<CsvMapping>>({});
  const [preview, setPreview] = useState<ImportDryRun | undefined>(undefined);
  const [job, setJob] = useState<Import | undefined>(undefined);
  const { busy, error, run, setError } = useAction();

  const choose = async (chosen: File | undefined) => {
    setFile(chosen);
    setPreview(undefined);
    setJob(undefined);
    setColumns([]);
    if (chosen && source === 'csv') {
      try {
        const header = await headerOf(chosen);
        setColumns(header);
        // A column named like a field is that field's, to begin with.
        const guess: Partial<CsvMapping> = {};
        for (const [field, label] of CSV_FIELDS) {
          const found = header.find((name) => name.toLowerCase() === field.toLowerCase() || name.toLowerCase() === label.split(' (')[0]!.toLowerCase());
          if (found) guess[field] = found;
        }
        setMapping(guess);
      } catch (failure) {
        setError(`The file is not a CSV file: ${(failure as Error).message}`);
      }
    }
  };
  const input = () => ({ source, file: file!, ...(source === 'csv' ? { mapping: mapping as CsvMapping } : {}) });

  const check = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const result = await client.imports.dryRun(input());
      setPreview(result);
      announce(`The file holds ${result.counts.tasks} tasks${result.warnings.length > 0 ? `, with ${result.warnings.length} warnings` : ''}.`);
    });
  };
  const start = () =>
    void run(async () => {
      const queued = await client.imports.create(input());
      setJob(await client.imports.get({ id: queued.id }));
      announce('The import has started.');
    });

  // Followed until it ends: its progress every half second.
  useEffect(() => {
    if (!job || job.status === 'succeeded' || job.status === 'failed') return;
    const timer = setTimeout(() => {
      void client.imports.get({ id: job.id }).then(
        (next) => {
          setJob(next);
          if (next.status === 'succeeded') announce('The import is done: its project is ready.');
          if (next.status === 'failed') announce('The import failed; nothing of it was kept.');
        },
        (failure: unknown) => setError((failure as Error).message),
      );
    }, 500);
    return () => clearTimeout(timer);
  }, [job, setError]);

  const info = SOURCES[source];
  return (
    <Page title="Import a project">
      <p class="muted">Bring a board or a backlog from another tool: it becomes a new project of yours. People are matched by email with those registered here, who become editors of it.</p>
      <form class="card stack" onSubmit={check} aria-label="Import">
        <label>
          From
          <select
            value={source}
            onChange={(e) => {
              setSource(e.currentTarget.value as ImportSource);
              setFile(undefined);
              setPreview(undefined);
              setJob(undefined);
              setColumns([]);
            }}
          >
            {Object.entries(SOURCES).map(([value, { label }]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <p class="muted small" id="import-how">
          {info.how}
        </p>
        <label class="drop-zone">
          Exported file
          <input key={source} type="file" accept={info.accept} aria-describedby="import-how" required onChange={(e) => void choose(e.currentTarget.files?.[0])} />
        </label>
        {source === 'csv' && columns.length > 0 && (
          <fieldset class="stack">
            <legend>Which column holds what</legend>
            {CSV_FIELDS.map(([field, label]) => (
              <label key={field}>
                {label}
                <select value={mapping[field] ?? ''} required={field === 'title'} onChange={(e) => setMapping({ ...mapping, [field]: e.currentTarget.value || undefined })}>
                  <option value="">{field === 'title' ? 'Choose a column' : 'None'}</option>
                  {columns.map((name) => (
                    <option key={name} value={name}>
                      {name}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </fieldset>
        )}
        <div class="row">
          <button type="submit" disabled={busy || !file || (job !== undefined && job.status !== 'failed')}>
            Check the file
          </button>
        </div>
        <ErrorNote error={error} />
      </form>
      {preview && (
        <section class="card stack" aria-labelledby="preview-title">
          <h2 id="preview-title">“{preview.project.name}” would have</h2>
          <dl class="counts">
            {COUNT_LABELS.map(([key, label]) => (
              <div key={key}>
                <dt>{label}</dt>
                <dd>{preview.counts[key]}</dd>
              </div>
            ))}
          </dl>
          <p>
            Columns: {preview.states.map((state) => state.name).join(', ')}
            {preview.labels.length > 0 && <> · Labels: {preview.labels.slice(0, 20).map((label) => label.name).join(', ')}{preview.labels.length > 20 ? ' …' : ''}</>}
          </p>
          {preview.warnings.length > 0 && (
            <>
              <h3>Warnings</h3>
              <ul class="warnings">
                {preview.warnings.map((warning) => (
                  <li key={warning}>{warning}</li>
                ))}
              </ul>
            </>
          )}
          {!job && (
            <div class="row">
              <button type="button" class="primary" disabled={busy} onClick={start}>
                Start the import
              </button>
            </div>
          )}
        </section>
      )}
      {job && (
        <section class="card stack" aria-labelledby="progress-title">
          <h2 id="progress-title">Import</h2>
          {job.status === 'pending' && <p role="status">Waiting to start…</p>}
          {job.status === 'running' && (
            <label>
              Tasks written: {job.progress.done} of {job.progress.total}
              <progress max={Math.max(job.progress.total, 1)} value={job.progress.done} />
            </label>
          )}
          {job.status === 'succeeded' && (
            <p role="status">
              Done: {job.counts?.tasks ?? 0} tasks imported. <a href={`/projects/${job.projectId}`}>Open the project</a>
            </p>
          )}
          {job.status === 'failed' && <ErrorNote error={`The import failed, and nothing of it was kept: ${job.error ?? 'unknown reason'}`} />}
        </section>
      )}
    </Page>
  );
}
