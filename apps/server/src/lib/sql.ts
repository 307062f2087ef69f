import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';

/** Result rows of a raw statement (`db.execute`): postgres.js returns an array, PGlite `{ rows }`. */
export const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows);

/**
 * A timestamptz column as the API's text (`2026-11-22T07:44:01.123Z`, what Date#toISOString gives),
 * made by the database whatever the session's time zone. A list reads its timestamps this way
 * rather than as Date objects only to turn each back into this text: for a page of 50 tasks the
 * round trip through Date was a tenth of the server's time (docs/performance.md).
 */
export const isoTimestamp = (column: SQLWrapper): SQL<string> =>
  sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
