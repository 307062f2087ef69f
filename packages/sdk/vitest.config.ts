import { defineConfig } from 'vitest/config';

/** The packed-tarball and package checks run npm, tsc and TypeDoc: minutes on a busy machine. */
export default defineConfig({
  test: { include: ['test/*.test.ts'], testTimeout: 180_000, hookTimeout: 300_000 },
});
