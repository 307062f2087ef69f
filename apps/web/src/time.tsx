import type { EstimateUnit, Task } from '@tasklane/schemas';
import { keys } from './data';
import { useQuery } from './hooks';
import { numberFormat, t } from './i18n';
import { client } from './session';

/**
 * Minutes for people: "45m", "2h", "1h 30m" (in English; each language's own units, which
 * parseDuration reads back: the time form starts from this text when an entry is edited).
 */
export function formatMinutes(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return t('time.duration.minutes', { minutes: rest });
  return rest === 0 ? t('time.duration.hours', { hours }) : t('time.duration.hoursMinutes', { hours, minutes: rest });
}

/** A running timer's elapsed time, ticking by the second: "0:07", "12:05", "1:02:03". */
export function formatElapsed(milliseconds: number): string {
  const total = Math.max(0, Math.floor(milliseconds / 1000));
  const pad = (value: number) => String(value).padStart(2, '0');
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(total % 60)}` : `${minutes}:${pad(total % 60)}`;
}

/**
 * What a person types as a duration, in whole minutes: "90", "90m", "1h 30m", "1h30", "1.5h", "1:30".
 * Also what formatMinutes writes in the other languages ("1 h 30 min", "1時間30分"), a decimal comma
 * ("1,5 h") and German "Std.": an entry's time, edited in any language, reads back as it was.
 * Undefined when it is none of these (the form says so rather than sending a guess).
 */
export function parseDuration(text: string): number | undefined {
  const value = text.trim().toLowerCase();
  if (/^\d+$/.test(value)) return Number(value);
  const clock = /^(\d+):([0-5]\d)$/.exec(value);
  if (clock) return Number(clock[1]) * 60 + Number(clock[2]);
  const units = /^(?:(\d+(?:[.,]\d+)?)\s*(?:h(?:ours?|rs?)?|std\.?|stunden?|時間))?\s*(?:(\d+)\s*(?:m?(?:in(?:utes?|s)?)?|min\.|分))?$/.exec(value);
  if (!units || (units[1] === undefined && units[2] === undefined)) return undefined;
  return Math.round(Number(units[1]?.replace(',', '.') ?? 0) * 60) + Number(units[2] ?? 0);
}

/** An estimate unit's name ("Points", "Hours") in the language now. */
export const unitLabel = (unit: EstimateUnit): string => t(`time.units.${unit}`);
/** An estimate in its project's unit: "3 pts", "1 pt", "2.5 h". */
export function formatEstimate(estimate: number, unit: EstimateUnit): string {
  const value = numberFormat({ maximumFractionDigits: 2 }).format(estimate);
  return unit === 'hours' ? t('time.estimate.hours', { value }) : t('time.estimate.points', { value, count: estimate });
}

/** Today's date in UTC, as the server dates entries when none is given. */
export const todayUtc = () => new Date().toISOString().slice(0, 10);

/** The project, from the cache the board and the dialog fill (its unit for estimates). */
export const useProject = (projectId: string) => useQuery(keys.project(projectId), () => client.projects.get({ id: projectId }));

/** A card's compact estimate and time spent ("3 pts · 1h 30m"); nothing when it has neither. */
export function TimeSummary({ task }: { task: Task }) {
  const unit = useProject(task.projectId).data?.estimateUnit ?? 'points';
  const parts = [
    task.estimate !== null ? { text: formatEstimate(task.estimate, unit), title: t('time.summary.estimate') } : undefined,
    task.timeSpentMinutes > 0 ? { text: formatMinutes(task.timeSpentMinutes), title: t('time.summary.timeSpent') } : undefined,
  ].filter((part) => part !== undefined);
  if (parts.length === 0) return null;
  return (
    <span class="time-summary" title={parts.map((part) => t('time.summary.part', { title: part.title, text: part.text })).join(t('time.summary.separator'))}>
      {parts.map((part, index) => (
        <span key={part.title}>
          {index > 0 && ' · '}
          <span class="visually-hidden">{part.title} </span>
          {part.text}
        </span>
      ))}
    </span>
  );
}
