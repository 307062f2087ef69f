import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebApp } from '../../src/web-app';

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
    const response = await app.inject({ method: 'GET', url: '/' });
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
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.body).toContain('<title>app</title>');
      expect(response.headers['cache-control']).toBe('no-cache');
    }
  });

  it('leaves API, docs and missing files to the 404 handler, and other methods alone', async () => {
    for (const url of ['/api/v1/unknown', '/api', '/docs/nothing-here', '/assets/missing-123.js', '/favicon.ico']) {
      const response = await app.inject({ method: 'GET', url });
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
