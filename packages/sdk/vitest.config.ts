import { defineConfig } from 'vitest/config';

/** One test file that packs, installs and drives the SDK end to end: npm install dominates its time. */
export default defineConfig({
  test: { include: ['test/*.test.ts'], testTimeout: 180_000, hookTimeout: 180_000 },
});
