import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const sdkSource = fileURLToPath(new URL('../../packages/sdk/src/index.ts', import.meta.url));

export default defineConfig({
  // The SDK's TypeScript source, bundled like the app's own code (its built dist needs no extra step).
  // @dnd-kit/core is written for React: preact/compat stands in for it (a few KB, no second renderer).
  resolve: {
    alias: {
      '@tasklane/sdk': sdkSource,
      react: 'preact/compat',
      'react-dom': 'preact/compat',
      'react/jsx-runtime': 'preact/jsx-runtime',
    },
  },
  // Preact's automatic JSX runtime, compiled by Vite's own transformer (no Babel preset needed).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0 },
  test: {
    include: ['test/**/*.test.ts'],
    // Real Chromium and a real server: one file at a time, generous timeouts on a shared 2-core machine.
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 120_000,
  },
});
