import type { CsvMapping, Import, ImportDryRun, ImportSource } from '@tasklane/schemas';
import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { announce, ErrorNote, Page } from '../ui';

/**
 * Each source, in the menu's order, with the files it takes; its name and where its file comes from
 * are in the catalogue (importProject.source; docs/api.md, "Import", says what maps to what).
 */
const SOURCES: Record<ImportSource, { accept: string }> = {
  trello: { accept: '.json,application/json' },
  jira: { accept: '.csv,text/csv' },
  github: { accept: '.json,application/json' },
  asana: { accept: '.csv,text/csv' },
  csv: { accept: '.csv,text/csv' },
  tasklane: { accept: '.json,application/json' },
};
const sourceLabel = (source: ImportSource) => t(`importProject.source.${source}.label`);
const sourceHow = (source: ImportSource) => t(`importProject.source.${source}.how`);

/** The fields a plain CSV's columns can fill, in the order the form asks for them. */
const CSV_FIELDS = ['title', 'description', 'status', 'priority', 'dueDate', 'assigneeEmail', 'labels'] as const satisfies readonly Exclude<keyof CsvMapping, 'fields'>[];
type CsvField = (typeof CSV_FIELDS)[number];
const csvFieldLabel = (field: CsvField) => t(`importProject.csvField.${field}`);
/** A label's name without its note in parentheses ("Title (required)" → "title"), to match a column's name. */
const bareName = (label: string) => label.split(/\s*[(（]/)[0]!.trim().toLowerCase();

/** The counts a check shows, in order. */
const COUNTS = ['tasks', 'subtasks', 'comments', 'states', 'labels', 'fields', 'relations', 'timeEntries', 'members'] as const satisfies readonly (keyof ImportDryRun['counts'])[];

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
        // A column named like a field (its key, or its label in English or in the language now) is that field's, to begin with.
        const guess: Partial<CsvMapping> = {};
        for (const field of CSV_FIELDS) {
          const names = [field.toLowerCase(), bareName(t(`importProject.csvField.${field}`, { lng: 'en' })), bareName(csvFieldLabel(field))];
          const found = header.find((name) => names.includes(name.toLowerCase()));
          if (found) guess[field] = found;
        }
        setMapping(guess);
      } catch (failure) {
        setError(t('importProject.notCsv', { message: (failure as Error).message }));
      }
    }
  };
  const input = () => ({ source, file: file!, ...(source === 'csv' ? { mapping: mapping as CsvMapping } : {}) });

  const check = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const result = await client.imports.dryRun(input());
      setPreview(result);
      const tasks = t('importProject.checked.tasks', { count: result.counts.tasks });
      announce(
        result.warnings.length > 0
          ? t('importProject.checked.withWarnings', { tasks, warnings: t('importProject.checked.warnings', { count: result.warnings.length }) })
          : t('importProject.checked.holds', { tasks }),
      );
    });
  };
  const start = () =>
    void run(async () => {
      const queued = await client.imports.create(input());
      setJob(await client.imports.get({ id: queued.id }));
      announce(t('importProject.started'));
    });

  // Followed until it ends: its progress every half second.
  useEffect(() => {
    if (!job || job.status === 'succeeded' || job.status === 'failed') return;
    const timer = setTimeout(() => {
      void client.imports.get({ id: job.id }).then(
        (next) => {
          setJob(next);
          if (next.status === 'succeeded') announce(t('importProject.succeeded'));
          if (next.status === 'failed') announce(t('importProject.failed'));
        },
        (failure: unknown) => setError((failure as Error).message),
      );
    }, 500);
    return () => clearTimeout(timer);
  }, [job, setError]);

  const info = SOURCES[source];
  return (
    <Page title={t('importProject.title')} narrow>
      <p class="muted">{t('importProject.intro')}</p>
      <form class="card stack" onSubmit={check} aria-label={t('importProject.form')}>
        <label>
          {t('importProject.from')}
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
            {(Object.keys(SOURCES) as ImportSource[]).map((value) => (
              <option key={value} value={value}>
                {sourceLabel(value)}
              </option>
            ))}
          </select>
        </label>
        <p class="muted small" id="import-how">
          {sourceHow(source)}
        </p>
        <label class="drop-zone">
          {t('importProject.file')}
          <input key={source} type="file" accept={info.accept} aria-describedby="import-how" required onChange={(e) => void choose(e.currentTarget.files?.[0])} />
        </label>
        {source === 'csv' && columns.length > 0 && (
          <fieldset class="column-mapping">
            <legend>{t('importProject.mapping')}</legend>
            {CSV_FIELDS.map((field) => (
              <label key={field}>
                {csvFieldLabel(field)}
                <select value={mapping[field] ?? ''} required={field === 'title'} onChange={(e) => setMapping({ ...mapping, [field]: e.currentTarget.value || undefined })}>
                  <option value="">{field === 'title' ? t('importProject.chooseColumn') : t('importProject.noColumn')}</option>
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
            {t('importProject.check')}
          </button>
        </div>
        <ErrorNote error={error} />
      </form>
      {preview && (
        <section class="card stack" aria-labelledby="preview-title">
          <h2 id="preview-title">{t('importProject.preview.title', { name: preview.project.name })}</h2>
          <dl class="counts">
            {COUNTS.map((key) => (
              <div key={key}>
                <dt>{t(`importProject.counts.${key}`)}</dt>
                <dd>{preview.counts[key]}</dd>
              </div>
            ))}
          </dl>
          <p>
            {t('importProject.preview.columns', { names: preview.states.map((state) => state.name).join(', ') })}
            {preview.labels.length > 0 && (
              <>
                {' · '}
                {t('importProject.preview.labels', { names: preview.labels.slice(0, 20).map((label) => label.name).join(', ') })}
                {preview.labels.length > 20 ? ' …' : ''}
              </>
            )}
          </p>
          {preview.warnings.length > 0 && (
            <>
              <h3>{t('importProject.preview.warnings')}</h3>
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
                {t('importProject.start')}
              </button>
            </div>
          )}
        </section>
      )}
      {job && (
        <section class="card stack" aria-labelledby="progress-title">
          <h2 id="progress-title">{t('importProject.progress.title')}</h2>
          {job.status === 'pending' && <p role="status">{t('importProject.progress.waiting')}</p>}
          {job.status === 'running' && (
            <label>
              {t('importProject.progress.written', { done: job.progress.done, total: job.progress.total })}
              <progress max={Math.max(job.progress.total, 1)} value={job.progress.done} />
            </label>
          )}
          {job.status === 'succeeded' && (
            <p role="status">
              {t('importProject.progress.done', { count: job.counts?.tasks ?? 0 })} <a href={`/projects/${job.projectId}`}>{t('importProject.progress.open')}</a>
            </p>
          )}
          {job.status === 'failed' && <ErrorNote error={t('importProject.progress.failed', { reason: job.error ?? t('importProject.progress.unknownReason') })} />}
        </section>
      )}
    </Page>
  );
}
