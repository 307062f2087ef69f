import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * apps/web's build output. This file sits one level below apps/server both as source (src/) and
 * bundled (dist/main.mjs), so the same relative path finds it under vitest and in production.
 */
export const WEB_APP_ROOT = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const HASHED_ASSETS = /[/\\]assets[/\\]/;
const NOT_AN_APP_PAGE = /^\/(api|docs)(\/|$)|\.[a-z0-9]+$/i;

/**
 * Serves the web app at `/`: hashed assets cached for a year, index.html never cached, and every
 * other GET that is not an API, docs or file path answered with index.html (the app routes it).
 * The content security policy (http/security.ts) keeps the app to this server's own files.
 */
export async function registerWebApp(app: FastifyInstance, root = WEB_APP_ROOT): Promise<void> {
  if (!existsSync(join(root, 'index.html'))) {
    app.log.info({ root }, 'web app not built: serving the API only');
    return;
  }
  await app.register(fastifyStatic, {
    root,
    wildcard: false,
    cacheControl: false,
    setHeaders(reply, path) {
      if (HASHED_ASSETS.test(path)) reply.header('cache-control', 'public, max-age=31536000, immutable');
      else reply.header('cache-control', 'no-cache');
    },
  });
  app.get('/*', (request, reply) => {
    if (NOT_AN_APP_PAGE.test(request.url.split('?')[0]!)) return reply.callNotFound();
    return reply.sendFile('index.html');
  });
}
