import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const databases = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];

/** The API suite runs once per database: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // The suite waits on PostgreSQL, PGlite and child processes far more than it computes, so it runs
    // as many files at once as there are cores (vitest's default is one fewer). Measured on two cores:
    // 788 s for the whole suite, against 1 295 s one file at a time; each file took about 20 % longer.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: databases.map((database) => ({
      extends: true,
      test: { name: database, env: { TEST_DB: database } },
    })),
  },
});
