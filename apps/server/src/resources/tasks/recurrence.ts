import { createRequire } from 'node:module';
import type * as rrule from 'rrule';
import { invalidField } from '../../platform/errors';

/*
 * Recurring tasks (issue 36): a task's `recurrence` is an RFC 5545 RRULE value, parsed and stepped
 * by the `rrule` package. Its published entry for Node (`main`) is a CommonJS bundle whose names
 * Node's ESM loader cannot see (`import { RRule } from 'rrule'` fails on Node 20), while its types
 * describe the ES module: so it is loaded with require, typed as the module.
 */
const { RRule } = createRequire(import.meta.url)('rrule') as typeof rrule;
type Options = ReturnType<typeof RRule.parseString>;

/** The parts a rule may have (the list); DTSTART, WKST, BYHOUR … are refused. */
const PART_SYNTAX: Record<string, RegExp> = {
  FREQ: /^(?:DAILY|WEEKLY|MONTHLY|YEARLY)$/,
  INTERVAL: /^[1-9][0-9]{0,2}$/,
  COUNT: /^[1-9][0-9]{0,3}$/,
  // A date or a UTC date-time, as RFC 5545 writes them.
  UNTIL: /^[0-9]{8}(?:T[0-9]{6}Z)?$/,
  BYDAY: /^(?:[+-]?[1-9][0-9]?)?(?:MO|TU|WE|TH|FR|SA|SU)(?:,(?:[+-]?[1-9][0-9]?)?(?:MO|TU|WE|TH|FR|SA|SU))*$/,
  BYMONTHDAY: /^-?[1-9][0-9]?(?:,-?[1-9][0-9]?)*$/,
  BYMONTH: /^[1-9][0-2]?(?:,[1-9][0-2]?)*$/,
  BYSETPOS: /^[+-]?[1-9][0-9]{0,2}(?:,[+-]?[1-9][0-9]{0,2})*$/,
};

const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const refuse = (message: string) => invalidField(['recurrence'], message, 'INVALID_RECURRENCE');

const numbers = (value: string | undefined) => (value ? value.split(',').map(Number) : []);

/**
 * Checks `input` and returns it as stored: upper case, without an `RRULE:` prefix, its parts in the
 * order given. Anything else is a 400 naming `recurrence`: an unknown or repeated part, a malformed
 * value, and a rule that can never fall on a date (February 30th; a BYSETPOS beyond the dates a
 * period can hold), which the library would otherwise search for up to the year 9999 (seconds of
 * CPU for a DAILY rule) before answering "none".
 */
export function checkRecurrence(input: string): string {
  const rule = input.trim().toUpperCase().replace(/^RRULE:/, '');
  const parts = new Map<string, string>();
  for (const part of rule.split(';')) {
    const [name = '', value, ...rest] = part.split('=');
    const syntax = PART_SYNTAX[name];
    if (!syntax) throw refuse(`"${name}" is not a supported RRULE part (FREQ, INTERVAL, COUNT, UNTIL, BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS)`);
    if (parts.has(name)) throw refuse(`${name} is given twice`);
    if (value === undefined || rest.length > 0 || !syntax.test(value)) throw refuse(`${name}=${value ?? ''} is not a valid value`);
    parts.set(name, value);
  }
  const freq = parts.get('FREQ');
  if (!freq) throw refuse('FREQ is required (DAILY, WEEKLY, MONTHLY or YEARLY)');
  if (parts.has('COUNT') && parts.has('UNTIL')) throw refuse('COUNT and UNTIL cannot both be given (RFC 5545)');
  const months = numbers(parts.get('BYMONTH'));
  if (months.some((month) => month > 12)) throw refuse('BYMONTH values are 1 to 12');
  const monthDays = numbers(parts.get('BYMONTHDAY'));
  if (monthDays.some((day) => Math.abs(day) > 31)) throw refuse('BYMONTHDAY values are 1 to 31 or -31 to -1');
  const inMonths = months.length > 0 ? months : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  if (monthDays.length > 0 && !inMonths.some((month) => monthDays.some((day) => Math.abs(day) <= MONTH_DAYS[month - 1]!))) {
    throw refuse('BYMONTHDAY: no month of the rule has such a day');
  }
  const days = (parts.get('BYDAY') ?? '').split(',').filter(Boolean);
  const ordinals = days.map((day) => Number(day.slice(0, -2) || 0));
  if (ordinals.some((n) => n !== 0)) {
    // An ordinal weekday ("the last Friday": -1FR) counts within a month or, YEARLY without BYMONTH, a year.
    const most = freq === 'MONTHLY' || (freq === 'YEARLY' && months.length > 0) ? 5 : freq === 'YEARLY' ? 53 : 0;
    if (ordinals.some((n) => Math.abs(n) > most)) throw refuse(`BYDAY ordinals are allowed in MONTHLY (up to 5) and YEARLY rules only`);
  }
  const positions = numbers(parts.get('BYSETPOS'));
  if (positions.length > 0) {
    const most = mostPerPeriod(freq, months.length > 0 ? months : inMonths, monthDays, ordinals);
    if (most === 0) throw refuse('BYSETPOS needs FREQ WEEKLY, MONTHLY or YEARLY and one of BYDAY or BYMONTHDAY');
    if (positions.some((n) => Math.abs(n) > most)) throw refuse(`BYSETPOS beyond the ${most} date(s) a period of the rule can hold`);
  }
  const normal = [...parts].map(([name, value]) => `${name}=${value}`).join(';');
  try {
    RRule.parseString(normal);
  } catch (error) {
    throw refuse((error as Error).message);
  }
  return normal;
}

/**
 * The most dates one period of a rule with BYSETPOS (a week, a month, a year) can hold, from its
 * one BYDAY (`ordinals`: 0 for a plain weekday) or BYMONTHDAY and its months; 0 when BYSETPOS is
 * not supported so (DAILY, neither or both of BYDAY and BYMONTHDAY, whose intersection no bound
 * here foresees). A BYSETPOS beyond it selects nothing, ever.
 */
function mostPerPeriod(freq: string, months: number[], monthDays: number[], ordinals: number[]): number {
  if (freq === 'DAILY' || (monthDays.length > 0) === (ordinals.length > 0)) return 0;
  if (freq === 'WEEKLY') return monthDays.length > 0 ? 0 : ordinals.length;
  // In one month: its valid days of BYMONTHDAY, or its weekdays (a month of n days has 4 of each and one more of n − 28 of them).
  const inMonth = (month: number) =>
    monthDays.length > 0
      ? monthDays.filter((day) => Math.abs(day) <= MONTH_DAYS[month - 1]!).length
      : ordinals.filter((n) => n !== 0).length + 4 * ordinals.filter((n) => n === 0).length + Math.min(ordinals.filter((n) => n === 0).length, MONTH_DAYS[month - 1]! - 28);
  if (freq === 'MONTHLY') return Math.max(...months.map(inMonth));
  return months.reduce((sum, month) => sum + inMonth(month), 0);
}

/** The rule's options for stepping, without COUNT (counted by the tasks themselves: nextRule). */
function optionsOf(rule: string): Options & { count?: number | null } {
  const { count: _count, ...options } = RRule.parseString(rule);
  return options;
}

const countOf = (rule: string) => Number(/(?:^|;)COUNT=([0-9]+)/.exec(rule)?.[1] ?? 0);

/**
 * The due date of the next occurrence of a task due at `due` with `rule` (checked by
 * checkRecurrence): the rule's first date strictly after `due`, stepped in UTC from `due` (its
 * DTSTART), so it keeps `due`'s time of day. Null when there is none: the task is the last one of
 * its COUNT (COUNT=1: COUNT counts this task and those after it), or the next date is after UNTIL.
 */
export function nextDueDate(rule: string, due: Date): Date | null {
  if (countOf(rule) === 1 || neverFrom(rule, due)) return null;
  return new RRule({ ...optionsOf(rule), dtstart: due }).after(due, false);
}

const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

/**
 * A daily rule whose steps are whole weeks lands on `due`'s weekday only: with BYDAY naming other
 * days it has no date at all, and the library would search every day to the year 9999 (0.6 s of
 * CPU) before saying so. The other rules' periods are weeks or longer, which it walks in
 * milliseconds; checkRecurrence refuses the impossible days of the month.
 */
function neverFrom(rule: string, due: Date): boolean {
  const parts = new Map(rule.split(';').map((part) => part.split('=') as [string, string]));
  const interval = Number(parts.get('INTERVAL') ?? 1);
  const days = parts.get('BYDAY');
  if (parts.get('FREQ') !== 'DAILY' || interval % 7 !== 0 || !days) return false;
  return !days.split(',').some((day) => day.replace(/^[+-]?\d+/, '') === WEEKDAYS[due.getUTCDay()]);
}

/** The rule the next occurrence carries: the same, with COUNT one less. */
export const nextRule = (rule: string): string => rule.replace(/(^|;)COUNT=([0-9]+)/, (_match, head: string, count: string) => `${head}COUNT=${Number(count) - 1}`);

/**
 * The `next_due_date` a task stores with its rule and due date (migration 0019): the next
 * occurrence's due date, or null for a task that does not recur (or whose rule has no further date).
 */
export const storedNextDueDate = (rule: string | null, due: Date | null): Date | null => (rule !== null && due !== null ? nextDueDate(rule, due) : null);
