/** True for PostgreSQL's unique_violation (23505), as raised by postgres.js, PGlite or wrapped by drizzle. */
export function isUniqueViolation(error: unknown): boolean {
  for (let current: unknown = error; current && typeof current === 'object'; current = (current as { cause?: unknown }).cause) {
    if ((current as { code?: unknown }).code === '23505') return true;
  }
  return false;
}
