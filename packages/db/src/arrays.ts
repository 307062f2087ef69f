/*
 * Arrays between the service and PostgreSQL, as PostgreSQL's array text (`{a,b}`), on both drivers.
 *
 * Reading: a uuid[] needs no quotes or escapes in that text, and the service's uuid[] columns (task
 * labels, comment mentions) hold no NULL elements, so a split reads it. postgres.js's own array
 * parser walks the text a character at a time in JS: on a page of 50 tasks carrying one or two
 * labels each it cost 6 % of the server's CPU (docs/performance.md). PGlite hands the same text
 * over unparsed; both drivers end in uuidsFromArrayText.
 */

/** PostgreSQL's text of a uuid[] (or an array a driver already parsed) as an array of ids. */
export const uuidsFromArrayText = (value: string | string[]): string[] =>
  typeof value !== 'string' ? value : value === '{}' ? [] : value.slice(1, -1).split(',');

/**
 * An array as PostgreSQL's array literal (`{"a","b"}`), which both drivers pass as text for the
 * statement to cast (`::uuid[]`): neither serialises a JavaScript array for a parameter whose type
 * it does not know.
 */
export const arrayLiteral = (values: readonly unknown[]): string =>
  `{${values.map((value) => `"${String(value).replace(/[\\"]/g, (match) => `\\${match}`)}"`).join(',')}}`;

/** postgres.js's serializer for uuid[]: drizzle already sends array text, which passes unchanged. */
export const uuidArrayParameter = (value: string | readonly string[]): string => (typeof value === 'string' ? value : arrayLiteral(value));

/** PostgreSQL's type oid of uuid[]. */
export const UUID_ARRAY_OID = 2951;
