/** Result rows of a raw statement (`db.execute`): postgres.js returns an array, PGlite `{ rows }`. */
export const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows);
