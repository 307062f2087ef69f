/*
 * Both drivers read and write arrays themselves (postgres.js with the array types it fetches on
 * connecting, PGlite with its own parsers), and drizzle's `uuid().array()` columns map them. These
 * two remain only for callers being rewritten elsewhere.
 */

/**
 * @deprecated PostgreSQL's text of a uuid[] (or an array a driver already parsed) as an array of
 * ids. Kept only for resources/tasks/store.ts's raw reads; delete once nothing imports it.
 */
export const uuidsFromArrayText = (value: string | string[]): string[] =>
  typeof value !== 'string' ? value : value === '{}' ? [] : value.slice(1, -1).split(',');

/**
 * @deprecated An array as PostgreSQL's array literal (`{"a","b"}`), for a raw statement to cast
 * (`::uuid[]`). Kept only for events/notification-write.ts, resources/tasks/store.ts and
 * platform/prepared.ts; drizzle's `inArray` and array columns take plain arrays.
 */
export const arrayLiteral = (values: readonly unknown[]): string =>
  `{${values.map((value) => `"${String(value).replace(/[\\"]/g, (match) => `\\${match}`)}"`).join(',')}}`;
