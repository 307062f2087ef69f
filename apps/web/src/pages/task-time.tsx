import type { Member, Project, Task, TimeEntry } from '@tasklane/schemas';
import { useState } from 'preact/hooks';
import { useCurrentUser } from '../current-user';
import { loadTimeEntries, timeKeys } from '../data';
import { canAdminister, canEditTasks, formatDay, memberName } from '../format';
import { useAction, useQuery } from '../hooks';
import { t } from '../i18n';
import { client } from '../session';
import { formatEstimate, formatMinutes, parseDuration, todayUtc } from '../time';
import { Elapsed, refreshTaskTime, startTimer, stopTimer, useTimer } from '../timer';
import { EmptyState, ErrorNote } from '../ui';

/**
 * The task's time: its total against the estimate, the timer (start and stop, the running one
 * ticking), a form to log time, and its entries (newest date first), each editable by its author,
 * or by an admin or the owner.
 */
export function TaskTime({ task, project, members }: { task: Task; project: Project; members: Member[] }) {
  const me = useCurrentUser();
  const editable = canEditTasks(project.role);
  const entries = useQuery(timeKeys.entries(task.id), () => loadTimeEntries(task.id));
  const timer = useTimer();
  const timing = timer.data?.taskId === task.id;
  const [said, setSaid] = useState<string | undefined>(undefined);
  const timerAction = useAction();
  // Admins (the owner is one) may change anyone's entry (the server decides; this only hides the buttons).
  const mayChangeAny = canAdminister(project.role);
  const nameOf = (userId: string) => memberName(members, userId);

  const refresh = () => refreshTaskTime(task.id);

  return (
    <section class="task-time" aria-labelledby="time-title">
      <h3 id="time-title">{t('taskTime.title')}</h3>
      <p>
        <strong>{t('taskTime.spent')}</strong> <span data-testid="time-spent">{formatMinutes(task.timeSpentMinutes)}</span>
        {task.estimate !== null && <span class="muted"> {t('taskTime.estimate', { estimate: formatEstimate(task.estimate, project.estimateUnit) })}</span>}
      </p>
      {editable && (
        <div class="row timer-row">
          {timing && timer.data ? (
            <>
              {/* No live region: a time ticking every second would be read out every second. */}
              <span class="timer-running">
                {t('taskTime.running')} <Elapsed since={timer.data.startedAt} />
              </span>
              <button type="button" disabled={timerAction.busy} onClick={() => void timerAction.run(stopTimer).then((message) => message && setSaid(message))}>
                {t('taskTime.stop')}
              </button>
            </>
          ) : (
            <button type="button" disabled={timerAction.busy} onClick={() => void timerAction.run(() => startTimer(task.id)).then((message) => message && setSaid(message))}>
              {t('taskTime.start')}
            </button>
          )}
          {said && !timing && <span class="muted small">{said}</span>}
        </div>
      )}
      <ErrorNote error={timerAction.error} />
      {editable && (
        <EntryForm
          label={t('taskTime.log')}
          submitLabel={t('taskTime.log')}
          onSubmit={async (fields) => {
            await client.time.createEntry({ id: task.id, ...fields });
            await refresh();
          }}
        />
      )}
      <ErrorNote error={entries.error} />
      {entries.data?.length === 0 && <EmptyState small title={t('taskTime.empty')} hint={editable ? t('taskTime.emptyHint') : undefined} />}
      {entries.data && entries.data.length > 0 && (
        <table class="time-entries">
          <caption class="visually-hidden">{t('taskTime.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('taskTime.columns.who')}</th>
              <th scope="col">{t('taskTime.columns.date')}</th>
              <th scope="col">{t('taskTime.columns.time')}</th>
              <th scope="col">{t('taskTime.columns.note')}</th>
              <th scope="col">
                <span class="visually-hidden">{t('taskTime.columns.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.data.map((entry) => (
              <EntryRow
                key={entry.id}
                entry={entry}
                who={nameOf(entry.userId)}
                changeable={editable && (entry.userId === me.id || mayChangeAny)}
                onChanged={() => void refresh()}
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

type EntryFields = { minutes: number; date: string; note: string };

/** Logging time, or changing an entry: a duration ("90", "1h 30m"), a date (UTC, today by default), a note. */
function EntryForm(props: { label: string; submitLabel: string; entry?: TimeEntry; onSubmit: (fields: EntryFields) => Promise<void>; onCancel?: () => void }) {
  const [duration, setDuration] = useState(props.entry ? formatMinutes(props.entry.minutes) : '');
  const [date, setDate] = useState(props.entry?.date ?? todayUtc());
  const [note, setNote] = useState(props.entry?.note ?? '');
  const { busy, error, setError, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const minutes = parseDuration(duration);
    if (minutes === undefined || minutes < 1) {
      setError(t('taskTime.notDuration', { duration }));
      return;
    }
    const done = await run(async () => {
      await props.onSubmit({ minutes, date, note });
      return true;
    });
    if (done && !props.entry) {
      setDuration('');
      setNote('');
    }
  };
  return (
    <form class="entry-form" aria-label={props.label} onSubmit={submit}>
      <div class="fields">
        <label>
          {t('taskTime.spentLabel')}
          <input name="duration" value={duration} onInput={(e) => setDuration(e.currentTarget.value)} required placeholder={t('taskTime.durationHint')} />
        </label>
        <label>
          {t('taskTime.date')}
          <input type="date" name="date" value={date} onInput={(e) => setDate(e.currentTarget.value)} required />
        </label>
        <label>
          {t('taskTime.note')}
          <input name="note" value={note} onInput={(e) => setNote(e.currentTarget.value)} maxLength={2000} />
        </label>
      </div>
      <ErrorNote error={error} />
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {props.submitLabel}
        </button>
        {props.onCancel && (
          <button type="button" onClick={props.onCancel}>
            {t('common.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}

/** An entry's date is a calendar day: shown as that day, whatever the browser's time zone. */
const entryDay = (entry: TimeEntry) => formatDay(`${entry.date}T00:00:00`);

function EntryRow({ entry, who, changeable, onChanged }: { entry: TimeEntry; who: string; changeable: boolean; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const { busy, error, run } = useAction();
  if (editing) {
    return (
      <tr>
        <td colSpan={5}>
          <EntryForm
            label={t('taskTime.changeLabel', { who, day: entryDay(entry) })}
            submitLabel={t('taskTime.saveEntry')}
            entry={entry}
            onCancel={() => setEditing(false)}
            onSubmit={async (fields) => {
              await client.time.updateEntry({ id: entry.id, ...fields });
              setEditing(false);
              onChanged();
            }}
          />
        </td>
      </tr>
    );
  }
  return (
    <tr>
      <td>{who}</td>
      <td>
        <time dateTime={entry.date}>{entryDay(entry)}</time>
      </td>
      <td>{formatMinutes(entry.minutes)}</td>
      <td class="entry-note">{entry.note}</td>
      <td>
        {changeable && (
          <span class="row">
            <button type="button" onClick={() => setEditing(true)} aria-label={t('taskTime.editLabel', { time: formatMinutes(entry.minutes), date: entry.date })}>
              {t('common.edit')}
            </button>
            <button
              type="button"
              class="danger"
              disabled={busy}
              aria-label={t('taskTime.deleteLabel', { time: formatMinutes(entry.minutes), date: entry.date })}
              onClick={() => void run(() => client.time.deleteEntry({ id: entry.id })).then((done) => done && onChanged())}
            >
              {t('common.delete')}
            </button>
          </span>
        )}
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}
