import { customType } from 'drizzle-orm/pg-core';

/*
 * Both drivers hand drizzle a timestamptz as PostgreSQL's text (DateStyle ISO, the sessions in UTC),
 * e.g. `0005-03-01 12:30:00.5+00`. drizzle's own timestamp column reads that text with
 * `new Date(text)`, which falls back to V8's lenient parser for it and reads any year below 100 as
 * 19xx or 20xx, so a due date the API accepted (years 1 to 9999) came back changed. The column below
 * hands the same text to the same Date constructor in the standard form it reads exactly
 * (`0005-03-01T12:30:00.5+00:00`).
 */
const standardForm = (text: string): string =>
  // The sessions' zone is UTC, so the offset is `+00`; any other takes the general rewrite.
  text.endsWith('+00') ? `${text.slice(0, 10)}T${text.slice(11, -3)}Z` : text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00');

/** `timestamp (3) with time zone`, read as a Date; the schema's only timestamp column type. */
export const timestamptz = customType<{ data: Date; driverData: string }>({
  dataType: () => 'timestamp (3) with time zone',
  fromDriver: (text) => new Date(standardForm(text)),
  toDriver: (date) => date.toISOString(),
});
