/*
 * A recurring task's rule (an RFC 5545 RRULE value, which the server checks and steps) as the task
 * dialog's picker holds it, and in words. The picker makes the common rules (every N days, weeks
 * on chosen weekdays, months on a day or an nth weekday, years; ending never, after N times or on
 * a date); a rule it cannot show (made through the API) is kept as it is and only described.
 */

export type Frequency = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const WEEKDAY_NAMES: Record<Weekday, string> = { MO: 'Monday', TU: 'Tuesday', WE: 'Wednesday', TH: 'Thursday', FR: 'Friday', SA: 'Saturday', SU: 'Sunday' };
const UNITS: Record<Frequency, string> = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', YEARLY: 'year' };
const ORDINALS: Record<string, string> = { '1': 'first', '2': 'second', '3': 'third', '4': 'fourth', '5': 'fifth', '-1': 'last', '-2': 'second last' };

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
  if (!freq || !(freq in UNITS)) return undefined;
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

const list = (words: string[]) => (words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`);

/** `rule` in words: "every 2 weeks on Monday and Thursday", "every month on the last Friday, 6 times". */
export function describeRule(rule: string): string {
  const repeat = parseRule(rule);
  if (!repeat) return `custom rule ${rule}`;
  const unit = UNITS[repeat.freq];
  let words = repeat.interval > 1 ? `every ${repeat.interval} ${unit}s` : `every ${unit}`;
  if (repeat.freq === 'WEEKLY' && repeat.days.length > 0) words += ` on ${list(WEEKDAYS.filter((day) => repeat.days.includes(day)).map((day) => WEEKDAY_NAMES[day]))}`;
  if (repeat.freq === 'MONTHLY') {
    words +=
      repeat.monthly === 'day'
        ? repeat.monthDay === -1
          ? ' on the last day'
          : ` on day ${repeat.monthDay}`
        : ` on the ${ORDINALS[String(repeat.setPos)] ?? `${repeat.setPos}th`} ${WEEKDAY_NAMES[repeat.weekday]}`;
  }
  if (repeat.end === 'count') words += repeat.count === 1 ? ', this time only' : `, ${repeat.count} times`;
  if (repeat.end === 'until' && repeat.until) words += `, until ${repeat.until}`;
  return words;
}
