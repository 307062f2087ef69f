import { customType } from 'drizzle-orm/pg-core';

/*
 * Both drivers hand drizzle a timestamptz as PostgreSQL's text (DateStyle ISO), e.g.
 * `2026-11-22 07:44:01.12+00`. drizzle's own timestamp column turns it into a Date with
 * `new Date(text)`, which is V8's lenient parser: it reads `0001-01-01 00:00:00+00` as the year 2001
 * (any year below 100 goes wrong), so a due date the API accepted came back changed. These read the
 * text exactly, and quickly: a page of 50 tasks reads 200 timestamps.
 */

const SPACE = 32;
const HYPHEN = 45;
// Any zone: offsets can have seconds (local mean time before standard time, e.g. +05:53:28), and
// the local date can fall past 9999 or before year 1 (BC) where the UTC one does not.
const ANY_ZONE = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?( BC)?$/;

/** A timestamptz's text as the API writes it (`2026-11-22T07:44:01.120Z`, what Date#toISOString gives). */
export function isoFromTimestamptz(text: string): string {
  // The connections run in UTC (client.ts), so this is the path taken.
  if (text.endsWith('+00') && text.charCodeAt(4) === HYPHEN && text.charCodeAt(10) === SPACE) {
    const milliseconds = text.length === 22 ? '000' : text.slice(20, -3).padEnd(3, '0').slice(0, 3);
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${milliseconds}Z`;
  }
  return dateInAnyZone(text).toISOString();
}

function dateInAnyZone(text: string): Date {
  const parts = ANY_ZONE.exec(text);
  if (!parts) throw new Error(`Unexpected timestamptz text from the database (DateStyle must be ISO): ${text}`);
  const [, year, month, day, hours, minutes, seconds, fraction = '', sign, offsetHours, offsetMinutes = '0', offsetSeconds = '0', bc] = parts;
  const local = new Date(0);
  // setUTCFullYear rather than Date.UTC, which would read the years 0–99 as 1900–1999.
  local.setUTCFullYear(bc ? 1 - Number(year) : Number(year), Number(month) - 1, Number(day));
  local.setUTCHours(Number(hours), Number(minutes), Number(seconds), Number(fraction.padEnd(3, '0').slice(0, 3)));
  const offsetMs = (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60 + Number(offsetSeconds)) * 1000;
  return new Date(local.getTime() - (sign === '+' ? offsetMs : -offsetMs));
}

/** A timestamptz's text as a Date. */
export const dateFromTimestamptz = (text: string): Date => new Date(isoFromTimestamptz(text));

/** `timestamp (3) with time zone`, read with dateFromTimestamptz; the schema's only timestamp column type. */
export const timestamptz = customType<{ data: Date; driverData: string }>({
  dataType: () => 'timestamp (3) with time zone',
  fromDriver: (text) => dateFromTimestamptz(text),
  toDriver: (date) => date.toISOString(),
});
