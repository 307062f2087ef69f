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
    // Installable, and opens offline (issue 39): Workbox precaches the built app (its shell and
    // assets) and answers every navigation to an app page with its index.html. The API is never the
    // service worker's: the app keeps the last data it read itself (offline.ts), and a change made
    // offline is refused by the app, not queued by the worker.
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
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,png,woff2}'],
        navigateFallback: 'index.html',
        // The server's own pages and files (as web-app.ts's NOT_AN_APP_PAGE): never the app's shell.
        navigateFallbackDenylist: [/^\/(api|docs|admin|metrics|healthz|livez|readyz|ical|\.well-known)(\/|$)/, /\.[a-z0-9]+$/i],
        cleanupOutdatedCaches: true,
        // The page that registered the worker is in its hands at once: offline-ready after one visit.
        clientsClaim: true,
        skipWaiting: true,
      },
    }),
  ],
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
