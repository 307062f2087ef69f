import { fileURLToPath } from 'node:url';
import { VitePWA } from 'vite-plugin-pwa';
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
  plugins: [
    // Installable, and opens offline (issue 39): the manifest, and the service worker of src/sw.ts.
    VitePWA({
      registerType: 'autoUpdate',
      injectRegister: false,
      manifest: {
        name: 'Tasklane',
        short_name: 'Tasklane',
        description: 'Projects, tasks and a live Kanban board',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        background_color: '#ffffff',
        theme_color: '#1d4ed8',
        icons: [
          { src: '/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: '/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
          { src: '/icon.svg', sizes: 'any', type: 'image/svg+xml' },
        ],
      },
      // Our own worker (src/sw.ts), built by Vite: generateSW's own bundling leaves a file in the
      // system's temporary folder on every build.
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      injectManifest: { globPatterns: ['**/*.{js,css,html,svg,png,woff2}'] },
    }),
  ],
  // Preact's automatic JSX runtime, compiled by Vite's own transformer (no Babel preset needed).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0 },
  // The message catalogues as JSON.parse of a string rather than object literals: V8 reads a string
  // of JSON faster than the same object as code, and the English one is in the first load.
  json: { stringify: true },
  test: {
    include: ['test/**/*.test.ts'],
    // Real Chromium and a real server: one file at a time, generous timeouts on a shared 2-core machine.
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // expect.poll's default 1 s is too short for a list's first rows when the machine's two cores
    // are shared (CI must pass on a busy machine).
    expect: { poll: { timeout: 10_000 } },
  },
});
