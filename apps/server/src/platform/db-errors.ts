/** The first code an error, or any error in its `cause` chain (drizzle wraps driver errors), carries that matches. */
export function findCode(error: unknown, matches: (code: string) => boolean = () => true): string | undefined {
  for (let current: unknown = error; current && typeof current === 'object'; current = (current as { cause?: unknown }).cause) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && matches(code)) return code;
  }
  return undefined;
}

const hasCode = (error: unknown, matches: (code: string) => boolean): boolean => findCode(error, matches) !== undefined;

/** True for PostgreSQL's unique_violation (23505), as raised by postgres.js, PGlite or wrapped by drizzle. */
export const isUniqueViolation = (error: unknown): boolean => hasCode(error, (code) => code === '23505');

/** True for PostgreSQL's foreign_key_violation (23503): the row referred to went away meanwhile. */
export const isForeignKeyViolation = (error: unknown): boolean => hasCode(error, (code) => code === '23503');

/** postgres.js's own codes for a connection that could not be made or was lost, and the socket errors under them. */
const CONNECTION_CODES = new Set([
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED',
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE',
]);

/** The answer's header when the database was out of reach: a restart or a failover takes seconds, so try again after one. */
export const DATABASE_RETRY: Readonly<Record<string, string>> = { 'retry-after': '1' };

/**
 * True when the database is unreachable rather than the request wrong: a connection error, or
 * PostgreSQL's class 08 (connection exception), 57P01-57P03 (shutting down, cannot connect now),
 * 53300 (too many connections) and 25006 (a write on a read-only server: DATABASE_URL reaches a
 * standby, as while a failover moves the primary).
 */
export const isDatabaseUnavailable = (error: unknown): boolean =>
  hasCode(error, (code) => CONNECTION_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300' || code === '25006');

/**
 * True when PostgreSQL refused a value the input schemas let through: a NUL character in text
 * (22021; PostgreSQL text cannot hold one), a character the encoding cannot represent (22P05), a
 * date or time it cannot store (22007, 22008, 22009). The request is wrong, not the service: a 400.
 */
export const isUnstorableValue = (error: unknown): boolean => hasCode(error, (code) => ['22021', '22P05', '22007', '22008', '22009'].includes(code));
