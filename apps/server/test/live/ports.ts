/**
 * This suite's listening ports (4300–4349 are reserved for it): PGlite and PostgreSQL runs of a file
 * proceed in parallel, so each database gets its own block of ten.
 */
export const livePort = (offset: number): number => (process.env.TEST_DB === 'postgres' ? 4310 : 4300) + offset;
