/*
 * A uuid[] travels as PostgreSQL's array text, `{a,b}`: uuids never need quotes or escapes there,
 * and the service's uuid[] columns (task labels, comment mentions) hold no NULL elements. So a
 * split reads it. postgres.js's own array parser walks the text a character at a time in JS: on a
 * page of 50 tasks carrying one or two labels each it cost 6 % of the server's CPU
 * (docs/performance.md). PGlite hands the same text over unparsed; both drivers end here.
 */

/** PostgreSQL's text of a uuid[] (or an array a driver already parsed) as an array of ids. */
export const uuidsFromArrayText = (value: string | string[]): string[] =>
  typeof value !== 'string' ? value : value === '{}' ? [] : value.slice(1, -1).split(',');

/** An array of uuids as PostgreSQL's array text (a string, as drizzle sends it, passes unchanged). */
export const arrayTextFromUuids = (value: string | readonly string[]): string => (typeof value === 'string' ? value : `{${value.join(',')}}`);

/** PostgreSQL's type oid of uuid[]. */
export const UUID_ARRAY_OID = 2951;
