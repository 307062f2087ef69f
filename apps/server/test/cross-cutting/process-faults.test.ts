import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startServerProcess } from '../support/server-process';
import { freshPostgresDatabase } from '../support/harness';
import { freePort } from '../support/ports';

/**
 * The server as a process, on the database of this run: PGlite in a data directory, or a fresh
 * PostgreSQL database. It is killed with SIGKILL under concurrent writes and restarted; and
 * stopped with SIGTERM under load.
 */
const onPostgres = process.env.TEST_DB === 'postgres';
const WRITERS = 6;
const ACKNOWLEDGED_BEFORE_KILL = 120;

describe('the server process under faults', () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    if (onPostgres) {
      const database = await freshPostgresDatabase();
      const dataDir = mkdtempSync(join(tmpdir(), 'tasklane-crash-'));
      env = { DATABASE_URL: database.url(5432), DATA_DIR: dataDir };
      cleanup = async () => {
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      };
    } else {
      const dataDir = mkdtempSync(join(tmpdir(), 'tasklane-crash-'));
      env = { DATA_DIR: dataDir };
      cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
    }
  });
  afterAll(() => cleanup());

  it('keeps every acknowledged write through a SIGKILL mid-load, and the database opens again', async () => {
    const port = await freePort();
    const first = await startServerProcess(env, port);
    const registered = await call(first.baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Crash', email: 'crash@example.com', password: 'password-123' } });
    const token: string = registered.body.access_token;
    const project = await call(first.baseUrl, 'POST', '/api/v1/projects', { token, body: { name: 'Crash test' } });

    const acknowledged: string[] = [];
    let killed = false;
    const writer = async (index: number) => {
      for (let sequence = 0; !killed; sequence += 1) {
        try {
          const created = await call(first.baseUrl, 'POST', '/api/v1/tasks', { token, body: { projectId: project.body.id, title: `w${index}-${sequence}` } });
          if (created.status === 201) acknowledged.push(created.body.id);
          if (acknowledged.length >= ACKNOWLEDGED_BEFORE_KILL && !killed) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        } catch {
          return; // the connection died with the process
        }
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, index) => writer(index)));
    expect(await first.exited).toBe('SIGKILL');

    const second = await startServerProcess(env, port);
    try {
      const stored = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await call(second.baseUrl, 'GET', `/api/v1/tasks/project/${project.body.id}?limit=500${cursor ? `&cursor=${cursor}` : ''}`, { token });
        expect(page.status).toBe(200);
        for (const task of page.body as { id: string }[]) stored.add(task.id);
        cursor = /[?&]cursor=([^&>]+)/.exec(page.headers.get('link') ?? '')?.[1];
      } while (cursor);
      const lost = acknowledged.filter((id) => !stored.has(id));
      console.info(`crash (${onPostgres ? 'postgres' : 'pglite'}): ${acknowledged.length} acknowledged, ${stored.size} stored, ${lost.length} lost`);
      expect(lost).toEqual([]);
      // and the restarted database takes writes
      expect((await call(second.baseUrl, 'POST', '/api/v1/tasks', { token, body: { projectId: project.body.id, title: 'after' } })).status).toBe(201);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 180_000);

  it('on SIGTERM finishes in-flight requests, refuses new connections and exits 0', async () => {
    const port = await freePort();
    const server = await startServerProcess(env, port);
    const registered = await call(server.baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Stop', email: 'stop@example.com', password: 'password-123' } });
    const token: string = registered.body.access_token;
    const project = await call(server.baseUrl, 'POST', '/api/v1/projects', { token, body: { name: 'Shutdown test' } });

    // Requests surely in flight: on a connection the server has already answered once, the
    // headers and half the body of a create are sent before SIGTERM, the rest after it.
    const inFlight = await Promise.all(
      Array.from({ length: 4 }, async (_, index) => {
        const socket = connect(port, '127.0.0.1');
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
        while (!received.includes('"ok"')) await new Promise((resolve) => setTimeout(resolve, 10));
        const body = JSON.stringify({ projectId: project.body.id, title: `in flight ${index}` });
        socket.write(
          `POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
        );
        return { socket, closed, rest: body.slice(10), response: () => received.slice(received.indexOf('"ok"') + 4) };
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.child.kill('SIGTERM');
    // new connections are refused once the listener is closed
    let refused = false;
    for (let attempt = 0; attempt < 100 && !refused; attempt += 1) {
      refused = await fetch(`${server.baseUrl}/healthz`).then(() => false, () => true);
      if (!refused) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const request of inFlight) request.socket.write(request.rest);
    await Promise.all(inFlight.map((request) => request.closed));
    for (const request of inFlight) expect(request.response()).toMatch(/^[\s\S]*HTTP\/1\.1 201 /);
    expect(refused).toBe(true);
    expect(await server.exited).toBe(0);
  }, 180_000);
});
