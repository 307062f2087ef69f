import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, storedKeys, temporaryDataDir } from './support/attachments';
import { freePort } from './support/ports';
import { call, type ServerProcess, startServerProcess, statusBytes } from './support/server-process';

const MiB = 1024 * 1024;

type Board = { cards: Record<string, unknown>[]; actions: Record<string, unknown>[]; checklists: Record<string, unknown>[] } & Record<string, unknown>;

/**
 * The test suite's real Trello export grown to 1 000 cards and `actionCount` actions, 3 in 100 of
 * them comments: its cards and actions repeated under fresh ids. A real board's file is mostly its
 * actions (every move, edit and tick, each repeating the board, list and member it touched), which
 * an import reads only for the comments among them.
 */
function boardOfSize(actionCount: number): Buffer {
  const template = JSON.parse(readFileSync(new URL('./fixtures/imports/trello-board.json', import.meta.url), 'utf8')) as Board;
  const comments = template.actions.filter((action) => action.type === 'commentCard');
  const others = template.actions.filter((action) => action.type !== 'commentCard');
  const cards = Array.from({ length: 1000 }, (_, i) => ({ ...template.cards[i % template.cards.length], id: `c${i.toString(16).padStart(23, '0')}`, idChecklists: [], pos: i }));
  const actions = Array.from({ length: actionCount }, (_, i) => {
    const action = i % 100 < 3 ? comments[i % comments.length]! : others[i % others.length]!;
    const data = action.data as { card?: Record<string, unknown> };
    return { ...action, id: `a${i.toString(16).padStart(23, '0')}`, data: { ...data, card: { ...data.card, id: cards[i % cards.length]!.id } } };
  });
  return Buffer.from(JSON.stringify({ ...template, cards, actions, checklists: [] }));
}

/** POST /imports?dryRun=true of a Trello file, as one multipart body. */
async function dryRun(baseUrl: string, token: string, file: Buffer) {
  const { body, contentType } = multipartBody([
    { name: 'source', content: 'trello' },
    { name: 'file', filename: 'board.json', contentType: 'application/json', content: file },
  ]);
  const response = await fetch(`${baseUrl}/api/v1/imports?dryRun=true`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
  return { status: response.status, body: (await response.json()) as { counts: { tasks: number; comments: number } } };
}

/**
 * An import's file streams: to the blob store as it is uploaded, then through the streaming JSON
 * parser (sources/json.ts), which keeps of each card and action only what the plan needs, so what
 * the plan does not read is never held. Read whole (a Buffer, its text, JSON.parse's tree), a
 * 140 MB board raised the server's resident memory by more than four times its size (603 MiB); here the
 * dry run of that board (the file received, read and checked, the whole plan made) raises it by
 * less than its size. Measured on the built server as a process of its own: its peak resident set
 * (VmHWM, reset just before through /proc/<pid>/clear_refs) against its resident set before.
 */
describe('the memory of a large import', () => {
  const dataDir = temporaryDataDir();
  let server: ServerProcess;
  let token: string;

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dataDir.dir }, await freePort());
    const registered = await call(server.baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Ada', email: 'ada@example.com', password: 'password-123' } });
    token = registered.body.access_token;
  }, 120_000);
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    dataDir.remove();
  });

  it('reads a 140 MB board in less than its size of memory', async () => {
    const pid = server.child.pid!;
    // The code paths warmed up first: what is measured is the file, not the first use of its modules.
    expect((await dryRun(server.baseUrl, token, boardOfSize(1000))).status).toBe(200);
    const file = boardOfSize(145_000);
    expect(file.length).toBeGreaterThan(135 * MiB);
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const before = statusBytes(pid, 'VmRSS');
    const answer = await dryRun(server.baseUrl, token, file);
    const peak = statusBytes(pid, 'VmHWM');
    // 1 000 cards, and the comments among the actions: 3 in 100.
    expect(answer).toMatchObject({ status: 200, body: { counts: { tasks: 1000, comments: 4350 } } });
    expect({ raisedMiB: (peak - before) / MiB }).toEqual({ raisedMiB: expect.toSatisfy((raised: number) => raised < file.length / MiB) });
    // The dry run kept nothing: its upload's temporary file is gone.
    expect(storedKeys(dataDir.dir)).toEqual([]);
  }, 180_000);
});
