/// <reference lib="webworker" />
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

/**
 * The app's service worker (issue 39), built by vite-plugin-pwa (`injectManifest`): it precaches the
 * built app (the list of files the plugin puts in `__WB_MANIFEST`) and answers any navigation to an
 * app page with its index.html, so the app opens offline. The server's own paths (as web-app.ts's
 * NOT_AN_APP_PAGE) and the API are never its: the app keeps its own copy of what it read
 * (offline.ts), and a change made offline is refused by the app, not queued here.
 */
declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Parameters<typeof precacheAndRoute>[0] };

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('index.html'), {
    denylist: [/^\/(api|docs|admin|metrics|healthz|livez|readyz|ical|\.well-known)(\/|$)/, /\.[a-z0-9]+$/i],
  }),
);
// A new build takes over at once, the page that registered it included: offline-ready after one visit.
void self.skipWaiting();
clientsClaim();
