import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';

/** apps/server: the nearest folder above this module with a package.json (src/… under vitest, dist/ when bundled). */
function serverPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** apps/web's build output, beside apps/server. */
export const WEB_APP_ROOT = join(serverPackageRoot(), '../web/dist/');

/** The server's own paths (API, docs, admin, probes, metrics) and file names: never a page of the app. */
const NOT_AN_APP_PAGE = /^\/(api|docs|admin|metrics|healthz|livez|readyz|\.well-known)(\/|$)|\.[a-z0-9]+$/i;

/**
 * Whether the client asks for a page: it prefers HTML to JSON. A browser's navigation does (it
 * lists text/html); curl's `*\/*`, a missing Accept and any API client do not, and get the
 * JSON 404 that a typo under /api gets rather than a 200 with the app's HTML.
 */
const wantsPage = (request: FastifyRequest): boolean =>
  new Negotiator(request.raw).mediaType(['application/json', 'text/html']) === 'text/html';

/**
 * Serves the web app at `/`: hashed assets cached for a year, index.html never cached, and every
 * other GET of a browser asking for a page, outside the server's own paths, answered with
 * index.html (the app routes it).
 * The content security policy (http/security.ts) keeps the app to this server's own files.
 */
export async function registerWebApp(app: FastifyInstance, root = WEB_APP_ROOT): Promise<void> {
  if (!existsSync(join(root, 'index.html'))) {
    app.log.info({ root }, 'web app not built: serving the API only');
    return;
  }
  // The hashed assets are one route (`/assets/*`, one series in the metrics however many builds
  // there were), cached for a year; the other files each a route of their own, never cached.
  await app.register(fastifyStatic, {
    root,
    wildcard: false,
    globIgnore: ['assets/**'],
    cacheControl: false,
    setHeaders: (reply) => reply.header('cache-control', 'no-cache'),
  });
  await app.register(fastifyStatic, {
    root: join(root, 'assets'),
    prefix: '/assets/',
    decorateReply: false,
    cacheControl: false,
    setHeaders: (reply) => reply.header('cache-control', 'public, max-age=31536000, immutable'),
  });
  app.get('/*', (request, reply) => {
    reply.header('vary', 'Accept');
    if (NOT_AN_APP_PAGE.test(request.url.split('?')[0]!) || !wantsPage(request)) return reply.callNotFound();
    return reply.sendFile('index.html');
  });
}
