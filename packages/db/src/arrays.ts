/*
 * Both drivers read arrays themselves (postgres.js with the array types it fetches on connecting,
 * PGlite with its own parsers), and drizzle's `uuid().array()` columns map them.
 */

/**
 * An array as one parameter: PostgreSQL's array literal (`{"a","b"}`), for a statement to cast
 * (`::uuid[]`, `::task_status[]`). drizzle spreads a plain array into one placeholder per element,
 * so a filter of one status and of five would be two statement texts; one literal keeps one text
 * for any count, and `unnest` can pair two of them row by row.
 */
export const arrayLiteral = (values: readonly unknown[]): string =>
  `{${values.map((value) => `"${String(value).replace(/[\\"]/g, (match) => `\\${match}`)}"`).join(',')}}`;
