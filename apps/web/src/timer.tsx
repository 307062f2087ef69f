import type { Task, TimeEntry, Timer } from '@tasklane/schemas';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { keys, storeTask, timeKeys } from './data';
import { queryClient, useQuery } from './hooks';
import { t, useLocale } from './i18n';
import type { Command } from './palette';
import { client, describeError, hasStoredToken, onSessionChange } from './session';
import { formatElapsed, formatMinutes } from './time';
import { announce } from './ui';

/** The signed-in person's running timer (null: none), one cache entry every view shares. */
export const useTimer = () => useQuery(timeKeys.timer, () => (hasStoredToken() ? client.time.currentTimer() : Promise.resolve(null)));

// The header asks before anyone signs in (no token: no timer); signing in reads the person's own.
onSessionChange((user) => {
  if (user) void queryClient.invalidateQueries({ queryKey: timeKeys.timer });
});

/** The task a timer runs on, for its title (from the cache when a board has it). */
const useTimerTask = (timer: Timer | null | undefined) => useQuery(keys.task(timer?.taskId ?? 'none'), () => (timer ? client.tasks.get({ id: timer.taskId }) : Promise.resolve(null as Task | null)));

/**
 * A task's time entries changed (here, or by anyone: the live stream's `time_entry.*` events): its
 * list, the reports, and its total (`timeSpentMinutes`, on the card too) are read again.
 */
export async function refreshTaskTime(taskId: string) {
  void queryClient.invalidateQueries({ queryKey: timeKeys.entries(taskId) });
  void queryClient.invalidateQueries({ queryKey: timeKeys.reports });
  const task = await client.tasks.get({ id: taskId }).catch(() => undefined);
  if (task) storeTask(task);
}

const refreshLogged = async (entry: TimeEntry | null) => entry && (await refreshTaskTime(entry.taskId));

/** What stopping logged, said to screen readers and shown by the dialog. */
function loggedMessage(entry: TimeEntry | null, title: string | undefined): string {
  if (!entry) return t('timer.stoppedNothing');
  const time = formatMinutes(entry.minutes);
  return title ? t('timer.stoppedOn', { time, title }) : t('timer.stopped', { time });
}

/**
 * Starts the timer on a task. The server stops one running elsewhere into an entry first: that
 * task's entries and total are refreshed too.
 */
export async function startTimer(taskId: string): Promise<string> {
  const { timer, stopped } = await client.time.startTimer({ id: taskId });
  queryClient.setQueryData(timeKeys.timer, timer);
  await refreshLogged(stopped);
  if (!stopped) return t('timer.started');
  // Said aloud: the person may not have known a timer was running elsewhere.
  const message = t('timer.startedStoppedOther', { time: formatMinutes(stopped.minutes) });
  announce(message);
  return message;
}

/** Stops the running timer into an entry of its whole minutes (none under a minute, as the server does). */
export async function stopTimer(): Promise<string> {
  const running = queryClient.getQueryData<Timer | null>(timeKeys.timer);
  const title = running ? queryClient.getQueryData<Task>(keys.task(running.taskId))?.title : undefined;
  const { entry } = await client.time.stopTimer();
  queryClient.setQueryData(timeKeys.timer, null);
  await refreshLogged(entry);
  const message = loggedMessage(entry, title);
  announce(message);
  return message;
}

/** A failure of a palette or header action, said where the person hears it. */
const reportFailure = (failure: unknown) => announce(describeError(failure));

/** The time since `since`, re-rendered every second. */
export function Elapsed({ since }: { since: string }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, []);
  const started = Date.parse(since);
  return (
    <time class="elapsed" dateTime={`PT${Math.max(0, Math.floor((now - started) / 1000))}S`}>
      {formatElapsed(now - started)}
    </time>
  );
}

/** The header's running timer: its task (a link that opens it), the time ticking, and Stop. */
export function TimerIndicator() {
  const timer = useTimer();
  const task = useTimerTask(timer.data);
  const [busy, setBusy] = useState(false);
  if (!timer.data) return null;
  const title = task.data?.title ?? t('timer.aTask');
  return (
    <span class="timer-indicator" role="group" aria-label={t('timer.running')}>
      <span aria-hidden="true">⏱</span>
      <a href={task.data ? `/projects/${task.data.projectId}/tasks/${task.data.id}` : undefined}>{title}</a>
      <Elapsed since={timer.data.startedAt} />
      <button
        type="button"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          stopTimer()
            .catch(reportFailure)
            .finally(() => setBusy(false));
        }}
      >
        {t('timer.stop')}
      </button>
    </span>
  );
}

/** The palette's timer actions: start on the open task's dialog, stop the running one (named by its task). */
export function useTimerCommands(openTaskId: string | undefined): Command[] {
  const timer = useTimer();
  const task = useTimerTask(timer.data);
  const runningOn = timer.data?.taskId;
  const title = task.data?.title;
  const locale = useLocale();
  // A new list only when what it offers (or its language) changes (the palette's actions are memoised on it).
  return useMemo(() => {
    const commands: Command[] = [];
    if (openTaskId && runningOn !== openTaskId) {
      commands.push({ id: 'start-timer', label: t('timer.commands.start'), group: 'Actions', run: () => void startTimer(openTaskId).catch(reportFailure) });
    }
    if (runningOn) {
      const label = title !== undefined ? t('timer.commands.stopOn', { title }) : t('timer.commands.stopRunning');
      commands.push({ id: 'stop-timer', label, group: 'Actions', run: () => void stopTimer().catch(reportFailure) });
    }
    return commands;
  }, [openTaskId, runningOn, title, locale]);
}
