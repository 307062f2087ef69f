import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports';
import { startPrimaryAndReplica } from '../support/replica';
import { startServerProcess } from '../support/server-process';
import { tcpProxy } from '../support/tcp-proxy';

const onPostgres = process.env.TEST_DB === 'postgres';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  title: string;
  status: number;
  retryAfter: string | null;
  reason: string | undefined;
  at: number;
}

describe.runIf(onPostgres)('failover: a standby promoted behind the same address', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('answers 503 with Retry-After while no primary takes writes, never a 500 or a hang, reads from the standby meanwhile, reconnects by itself and loses no acknowledged write', async () => {
    // A synchronous standby: a commit is acknowledged only once the replica has it.
    const pair = await startPrimaryAndReplica({ synchronous: true });
    cleanups.push(pair.close);
    // The address the service is given, which the failover points at the promoted replica.
    const address = tcpProxy(pair.primaryPort);
    await address.start();
    cleanups.push(address.stop);
    const server = await startServerProcess({ DATABASE_URL: `postgres://postgres@127.0.0.1:${address.port()}/tasklane`, DATABASE_POOL_SIZE: '3' }, await freePort());
    cleanups.push(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    });
    const { baseUrl } = server;
    const json = (token?: string) => ({ 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) });
    const registered = await fetch(`${baseUrl}/api/v1/auth/register`, { method: 'POST', headers: json(), body: JSON.stringify({ name: 'Ops', email: 'ops@example.com', password: 'secret-password' }) });
    const { access_token: token } = (await registered.json()) as { access_token: string };
    const project = (await (await fetch(`${baseUrl}/api/v1/projects`, { method: 'POST', headers: json(token), body: JSON.stringify({ name: 'Failover' }) })).json()) as { id: string };

    // A client writing all along, each request given up after 20 s: a hang fails the test.
    const answers: Answer[] = [];
    let writing = true;
    const writer = (async () => {
      for (let index = 0; writing; index += 1) {
        const title = `Task ${index}`;
        const response = await fetch(`${baseUrl}/api/v1/tasks`, { method: 'POST', headers: json(token), body: JSON.stringify({ projectId: project.id, title }), signal: AbortSignal.timeout(20_000) });
        const body = (await response.json()) as { reason?: string };
        answers.push({ title, status: response.status, retryAfter: response.headers.get('retry-after'), reason: body.reason, at: Date.now() });
        await sleep(20);
      }
    })();
    const writerFailed = writer.then(() => undefined, (error: unknown) => error);

    await sleep(500);
    // The primary crashes; the address already leads to the standby, which refuses writes until promoted.
    await pair.stopPrimary();
    await address.stop();
    address.retarget(pair.replicaPort);
    await address.start();
    // Until the promotion a write is refused with a 503 and when to try again; a read is served.
    const refused = await fetch(`${baseUrl}/api/v1/tasks`, { method: 'POST', headers: json(token), body: JSON.stringify({ projectId: project.id, title: 'Refused' }), signal: AbortSignal.timeout(20_000) });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { reason: string }).reason).toBe('DATABASE_UNAVAILABLE');
    const read = await fetch(`${baseUrl}/api/v1/projects/${project.id}`, { headers: json(token), signal: AbortSignal.timeout(20_000) });
    expect(read.status).toBe(200);
    await pair.promote();
    const promotedAt = Date.now();
    // The service reconnects by itself: writes succeed again without a restart.
    for (let waited = 0; !answers.some((answer) => answer.at > promotedAt && answer.status === 201); waited += 100) {
      expect(waited).toBeLessThan(30_000);
      await sleep(100);
    }
    writing = false;
    expect(await writerFailed).toBeUndefined();

    // However the writer's requests fell across the failover, each was answered 201 or 503.
    expect(answers.filter((answer) => answer.status !== 201 && answer.status !== 503)).toEqual([]);
    for (const refused of answers.filter((answer) => answer.status === 503)) {
      expect(refused).toMatchObject({ retryAfter: '1', reason: 'DATABASE_UNAVAILABLE' });
    }
    // Every write answered 201 is on the promoted server.
    const listed = (await (await fetch(`${baseUrl}/api/v1/tasks/project/${project.id}`, { headers: json(token) })).json()) as { title: string }[];
    const titles = new Set(listed.map((task) => task.title));
    const acknowledged = answers.filter((answer) => answer.status === 201).map((answer) => answer.title);
    expect(acknowledged.filter((title) => !titles.has(title))).toEqual([]);
    expect(server.output()).not.toMatch(/"level":50.*"statusCode":500/);
  }, 120_000);
});
