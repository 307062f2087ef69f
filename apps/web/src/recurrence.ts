/*
 * A recurring task's rule (an RFC 5545 RRULE value, which the server checks and steps) as the task
 * dialog's picker holds it, and in words. The picker makes the common rules (every N days, weeks
 * on chosen weekdays, months on a day or an nth weekday, years; ending never, after N times or on
 * a date); a rule it cannot show (made through the API) is kept as it is and only described.
 */

import { dateFormat, t } from './i18n';

export const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
export type Frequency = (typeof FREQUENCIES)[number];
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A weekday's name in the language now, as Intl says it: 1 January 2024 (UTC) was a Monday. */
export const weekdayName = (day: Weekday) => dateFormat({ weekday: 'long', timeZone: 'UTC' }).format(Date.UTC(2024, 0, 1 + WEEKDAYS.indexOf(day)));

/** The catalogue's word for each nth weekday of a month the rule may name (BYSETPOS); another is "nth". */
const POSITIONS = { '1': 'first', '2': 'second', '3': 'third', '4': 'fourth', '5': 'fifth', '-1': 'last', '-2': 'secondLast' } as const;

export interface Repeat {
  freq: Frequency;
  interval: number;
  /** WEEKLY: the weekdays. */
  days: Weekday[];
  /** MONTHLY: on a day of the month (`monthDay`, -1 the last) or on the `setPos`th `weekday`. */
  monthly: 'day' | 'weekday';
  monthDay: number;
  setPos: number;
  weekday: Weekday;
  end: 'never' | 'count' | 'until';
  count: number;
  /** YYYY-MM-DD. */
  until: string;
}

export const defaultRepeat = (freq: Frequency): Repeat => ({ freq, interval: 1, days: [], monthly: 'day', monthDay: 1, setPos: 1, weekday: 'MO', end: 'never', count: 10, until: '' });

const partsOf = (rule: string) => new Map(rule.replace(/^RRULE:/i, '').toUpperCase().split(';').filter(Boolean).map((part) => part.split('=') as [string, string]));

/** The picker's view of `rule`, or undefined when the picker cannot show it (kept as it is). */
export function parseRule(rule: string): Repeat | undefined {
  const parts = partsOf(rule);
  const freq = parts.get('FREQ') as Frequency | undefined;
  if (!freq || !FREQUENCIES.includes(freq)) return undefined;
  const repeat = defaultRepeat(freq);
  for (const [name, value] of parts) {
    if (name === 'FREQ') continue;
    else if (name === 'INTERVAL') repeat.interval = Number(value);
    else if (name === 'COUNT') Object.assign(repeat, { end: 'count', count: Number(value) });
    else if (name === 'UNTIL') Object.assign(repeat, { end: 'until', until: `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}` });
    else if (name === 'BYDAY' && freq === 'WEEKLY' && value.split(',').every((day) => WEEKDAYS.includes(day as Weekday))) repeat.days = value.split(',') as Weekday[];
    else if (name === 'BYMONTHDAY' && freq === 'MONTHLY' && /^-?[0-9]+$/.test(value)) repeat.monthDay = Number(value);
    else if (name === 'BYDAY' && freq === 'MONTHLY') {
      const match = /^([+-]?[0-9])?(MO|TU|WE|TH|FR|SA|SU)$/.exec(value);
      if (!match) return undefined;
      Object.assign(repeat, { monthly: 'weekday', weekday: match[2], ...(match[1] ? { setPos: Number(match[1]) } : {}) });
    } else if (name === 'BYSETPOS' && freq === 'MONTHLY') repeat.setPos = Number(value);
    else return undefined;
  }
  return repeat;
}

/** The rule the picker's choice makes. */
export function ruleOf(repeat: Repeat): string {
  const parts = [`FREQ=${repeat.freq}`];
  if (repeat.interval > 1) parts.push(`INTERVAL=${repeat.interval}`);
  if (repeat.freq === 'WEEKLY' && repeat.days.length > 0) parts.push(`BYDAY=${WEEKDAYS.filter((day) => repeat.days.includes(day)).join(',')}`);
  if (repeat.freq === 'MONTHLY') parts.push(repeat.monthly === 'day' ? `BYMONTHDAY=${repeat.monthDay}` : `BYDAY=${repeat.weekday};BYSETPOS=${repeat.setPos}`);
  if (repeat.end === 'count') parts.push(`COUNT=${repeat.count}`);
  if (repeat.end === 'until' && repeat.until) parts.push(`UNTIL=${repeat.until.replaceAll('-', '')}T235959Z`);
  return parts.join(';');
}

/** "Monday", "Monday and Thursday", "Monday, Tuesday and Thursday", joined as the language joins them. */
function list(words: string[]): string {
  if (words.length <= 1) return words.join('');
  return t('recurrence.list.last', { rest: words.slice(0, -1).join(t('recurrence.list.separator')), last: words.at(-1) });
}

/** `rule` in words: "every 2 weeks on Monday and Thursday", "every month on the last Friday, 6 times". */
export function describeRule(rule: string): string {
  const repeat = parseRule(rule);
  if (!repeat) return t('recurrence.custom', { rule });
  const every = repeat.interval > 1 ? t(`recurrence.everyN.${repeat.freq}`, { count: repeat.interval }) : t(`recurrence.every.${repeat.freq}`);
  let on = '';
  if (repeat.freq === 'WEEKLY' && repeat.days.length > 0) on = t('recurrence.onDays', { days: list(WEEKDAYS.filter((day) => repeat.days.includes(day)).map(weekdayName)) });
  if (repeat.freq === 'MONTHLY') {
    const position = POSITIONS[String(repeat.setPos) as keyof typeof POSITIONS];
    on =
      repeat.monthly === 'day'
        ? repeat.monthDay === -1
          ? t('recurrence.onLastDay')
          : t('recurrence.onDay', { day: repeat.monthDay })
        : position
          ? t(`recurrence.onWeekday.${position}`, { weekday: weekdayName(repeat.weekday) })
          : t('recurrence.onWeekday.nth', { position: repeat.setPos, weekday: weekdayName(repeat.weekday) });
  }
  let end = '';
  // Once is said apart from the count: French and others would say 0 as they say 1.
  if (repeat.end === 'count') end = repeat.count === 1 ? t('recurrence.once') : t('recurrence.times', { count: repeat.count });
  if (repeat.end === 'until' && repeat.until) end = t('recurrence.until', { date: repeat.until });
  return t('recurrence.rule', { every, on, end });
}
