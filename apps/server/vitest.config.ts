import { defineConfig } from 'vitest/config';

const databases = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];

/** The API suite runs once per database: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: databases.map((database) => ({
      extends: true,
      test: { name: database, env: { TEST_DB: database } },
    })),
  },
});
