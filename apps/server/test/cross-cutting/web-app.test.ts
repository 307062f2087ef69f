import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebApp, WEB_APP_ROOT } from '../../src/transport/rest/web-app';
import { expectErrorBody } from '../support/checks';
import { startTestApp, type TestApp } from '../support/harness';

/** What a browser's navigation sends. */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('serving the web app', () => {
  let root: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'tasklane-web-'));
    await mkdir(join(root, 'assets'));
    await writeFile(join(root, 'index.html'), '<!doctype html><title>app</title>');
    await writeFile(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
    app = Fastify({ logger: false });
    app.get('/api/v1/known', async () => ({ ok: true }));
    await registerWebApp(app, root);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await rm(root, { recursive: true, force: true });
  });

  it('serves index.html at / uncached', async () => {
    const response = await app.inject({ method: 'GET', url: '/', headers: BROWSER });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-cache');
  });

  it('caches hashed assets for a year', async () => {
    const response = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it("answers the app's own paths with index.html (deep links and reloads work)", async () => {
    for (const url of ['/projects/0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b', '/my-tasks?x=1', '/login']) {
      const response = await app.inject({ method: 'GET', url, headers: BROWSER });
      expect(response.statusCode, url).toBe(200);
      expect(response.body).toContain('<title>app</title>');
      expect(response.headers['cache-control']).toBe('no-cache');
    }
  });

  it('leaves API, docs and missing files to the 404 handler, and other methods alone', async () => {
    for (const url of ['/api/v1/unknown', '/api', '/docs/nothing-here', '/assets/missing-123.js', '/favicon.ico']) {
      const response = await app.inject({ method: 'GET', url, headers: BROWSER });
      expect(response.statusCode, url).toBe(404);
    }
    expect((await app.inject({ method: 'GET', url: '/api/v1/known' })).json()).toEqual({ ok: true });
    expect((await app.inject({ method: 'POST', url: '/projects/x' })).statusCode).toBe(404);
  });

  it('serves the API only when the web app is not built', async () => {
    const bare = Fastify({ logger: false });
    await registerWebApp(bare, join(root, 'no-such-dir'));
    expect((await bare.inject({ method: 'GET', url: '/' })).statusCode).toBe(404);
    await bare.close();
  });
});

/**
 * Through the whole server: only a browser asking for a page of the app gets index.html; the
 * server's own paths, and every client that does not prefer HTML, get the JSON 404 of an /api typo.
 */
describe('unknown paths outside /api', () => {
  let t: TestApp;

  beforeAll(async () => {
    expect(existsSync(`${WEB_APP_ROOT}index.html`), 'build the web app first (turbo run build)').toBe(true);
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const jsonNotFound = async (url: string, headers: Record<string, string> = {}) => {
    const response = await t.request('GET', url, { headers });
    expect({ url, headers, status: response.status }).toEqual({ url, headers, status: 404 });
    expect(response.headers['content-type'], url).toMatch(/^application\/json/);
    expectErrorBody(response, 404, { message: `No route for GET ${url.split('?')[0]}` });
  };

  it('the server\'s own paths answer a JSON 404, even to a browser', async () => {
    for (const url of ['/admin', '/admin/backup', '/admin/anything/else', '/livez', '/healthz/extra', '/readyz/x', '/metrics/x', '/.well-known/x', '/docs/missing', '/api/v2/x']) {
      await jsonNotFound(url, BROWSER);
      await jsonNotFound(url);
    }
  });

  it('a client that does not prefer HTML gets the JSON 404 for any unknown path', async () => {
    for (const accept of ['application/json', '*/*', 'application/json, text/html;q=0.5', 'text/plain', 'text/html;q=0']) {
      await jsonNotFound('/some/typo', { accept });
      await jsonNotFound('/projects/0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b', { accept });
    }
    await jsonNotFound('/some/typo');
  });

  it('a browser asking for a page of the app gets index.html, varying by Accept', async () => {
    for (const url of ['/my-tasks', '/account', '/projects/0193a5b4-7c1e-7d2a-9f3b-2c4d5e6f7a8b/members', '/login', '/anything']) {
      for (const accept of [BROWSER.accept, 'text/html']) {
        const response = await t.request('GET', url, { headers: { accept } });
        expect({ url, status: response.status }).toEqual({ url, status: 200 });
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        expect(String(response.headers.vary)).toMatch(/accept/i);
      }
    }
  });

  it('the probes and metrics themselves still answer', async () => {
    expect((await t.request('GET', '/healthz')).status).toBe(200);
    expect((await t.request('GET', '/readyz')).status).toBe(200);
    expect((await t.request('GET', '/metrics')).status).toBe(200);
  });
});
