// What an import costs (issue 38): a Trello board of `--cards` cards and `--comments` comments,
// made by repeating the cards, labels, checklists and comment actions of a real Trello export
// (`--template`, by default the test suite's) under fresh ids, imported through the real server
// (POST /imports, then GET /imports/{id} until it ends) on PostgreSQL and on PGlite. Measures the
// dry run (the file read and checked), the whole import (upload to succeeded), the server's peak
// resident memory (VmHWM), and a floor in the same run: the same numbers of task and comment rows
// inserted by plain multi-row INSERTs into tables of the same columns (PostgreSQL only). Prints a
// table (also bench/results/import-<time>.md).
//
//   npx -y pnpm@12.21.0 turbo run build --filter=@tasklane/server && node bench/src/import.mjs
//   node bench/src/import.mjs --cards 10000 --comments 30000
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Blob } from 'node:buffer';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { startServer, stopAll } from './processes.mjs';

const root = new URL('../..', import.meta.url).pathname;
const serverMain = join(root, 'apps/server/dist/main.mjs');
const { values: options } = parseArgs({
  options: {
    'pg-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    port: { type: 'string', default: '4170' },
    cards: { type: 'string', default: '10000' },
    comments: { type: 'string', default: '30000' },
    template: { type: 'string', default: join(root, 'apps/server/test/fixtures/imports/trello-board.json') },
    databases: { type: 'string', default: 'postgres,pglite' },
  },
});
const cardCount = Number(options.cards);
const commentCount = Number(options.comments);
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);

/** The template board grown to the asked size: its cards, checklists and comments repeated, each copy under fresh ids. */
function boardOfSize(template) {
  const cards = [];
  const checklists = [];
  const actions = [];
  const templateComments = template.actions.filter((action) => action.type === 'commentCard');
  for (let i = 0; cards.length < cardCount; i += 1) {
    const card = template.cards[i % template.cards.length];
    const id = `c${i.toString(16).padStart(23, '0')}`;
    cards.push({ ...card, id, name: `${card.name} #${i}`, idChecklists: [], pos: i });
  }
  // Checklists only from the template's first copy: the import's size is set by cards and comments.
  for (const checklist of template.checklists) {
    const index = template.cards.findIndex((card) => card.id === checklist.idCard);
    if (index >= 0) checklists.push({ ...checklist, idCard: cards[index].id });
  }
  for (let i = 0; i < commentCount; i += 1) {
    const comment = templateComments[i % templateComments.length];
    actions.push({ ...comment, id: `a${i.toString(16).padStart(23, '0')}`, data: { ...comment.data, card: { ...comment.data.card, id: cards[i % cards.length].id } } });
  }
  return { ...template, cards, checklists, actions };
}

const template = JSON.parse(readFileSync(options.template, 'utf8'));
const file = Buffer.from(JSON.stringify(boardOfSize(template)));
const resultsDir = join(root, 'bench/results');
mkdirSync(resultsDir, { recursive: true });

const peakKb = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

async function measure(database) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tasklane-bench-import-'));
  const env = { JWT_SECRET: 'import-benchmark-secret-that-is-long-enough', LOG_LEVEL: 'warn', AUTH_RATE_LIMIT: '1000000', BCRYPT_COST: '4', DATA_DIR: dataDir, IMPORT_POLL_MS: '100' };
  let admin;
  if (database === 'postgres') {
    admin = postgres(options['pg-url'], { max: 1, onnotice: () => {} });
    await admin.unsafe('drop database if exists tasklane_import with (force)');
    await admin.unsafe('create database tasklane_import');
    const url = new URL(options['pg-url']);
    url.pathname = '/tasklane_import';
    env.DATABASE_URL = url.toString();
    execFileSync(process.execPath, [serverMain, 'migrate'], { env: { ...process.env, ...env }, stdio: 'inherit' });
  }
  const server = await startServer({ name: `server (${database})`, args: [serverMain], env, port: Number(options.port), readyPath: '/readyz', logFile: join(resultsDir, 'import-server.log') });
  try {
    const registered = await (await fetch(`${server.url}/api/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Bench', email: 'bench@example.com', password: 'password-123' }) })).json();
    const authorization = `Bearer ${registered.access_token}`;
    const post = async (query) => {
      const form = new globalThis.FormData();
      form.append('source', 'trello');
      form.append('file', new Blob([file]), 'board.json');
      const response = await fetch(`${server.url}/api/v1/imports${query}`, { method: 'POST', headers: { authorization }, body: form });
      if (!response.ok) throw new Error(`POST /imports${query}: ${response.status} ${await response.text()}`);
      return response.json();
    };
    let started = performance.now();
    const dry = await post('?dryRun=true');
    const dryRunMs = performance.now() - started;
    started = performance.now();
    const queued = await post('');
    let state;
    for (;;) {
      state = await (await fetch(`${server.url}/api/v1/imports/${queued.id}`, { headers: { authorization } })).json();
      if (state.status === 'succeeded' || state.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const importMs = performance.now() - started;
    if (state.status !== 'succeeded') throw new Error(`the import failed: ${state.error}`);
    const peakMb = peakKb(server.child.pid) / 1024;
    let floorMs;
    if (database === 'postgres') floorMs = await floor(env.DATABASE_URL, dry.counts);
    return { database, counts: dry.counts, dryRunMs, importMs, peakMb, floorMs };
  } finally {
    await stopAll();
    if (admin) {
      await admin.unsafe('drop database if exists tasklane_import with (force)');
      await admin.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The same numbers of task and comment rows, inserted 1 000 to a statement into unindexed tables of the same columns, in one transaction. */
async function floor(url, counts) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`create temporary table floor_tasks (like tasks including defaults)`;
    await sql`create temporary table floor_comments (like comments including defaults)`;
    const started = performance.now();
    await sql.begin(async (tx) => {
      const now = new Date();
      for (let i = 0; i < counts.tasks; i += 1000) {
        const rows = Array.from({ length: Math.min(1000, counts.tasks - i) }, (_, j) => ({ id: randomUUID(), project_id: randomUUID(), title: `Task ${i + j}`, description: 'A description', status: 'TODO', created_by_id: randomUUID(), number: i + j + 1, position: `a${i + j}`, created_at: now, updated_at: now }));
        await tx`insert into floor_tasks ${tx(rows)}`;
      }
      for (let i = 0; i < counts.comments; i += 1000) {
        const rows = Array.from({ length: Math.min(1000, counts.comments - i) }, (_, j) => ({ id: randomUUID(), task_id: randomUUID(), project_id: randomUUID(), author_id: randomUUID(), text: `Comment ${i + j}`, created_at: now, updated_at: now }));
        await tx`insert into floor_comments ${tx(rows)}`;
      }
    });
    return performance.now() - started;
  } finally {
    await sql.end();
  }
}

const results = [];
for (const database of options.databases.split(',')) results.push(await measure(database));
const lines = [
  `Import of a Trello board: ${cardCount} cards, ${commentCount} comments (${(file.length / 1e6).toFixed(1)} MB file), ${stamp}`,
  '',
  '| database | tasks | comments | dry run | import (upload to succeeded) | floor (bare INSERTs of the rows) | server peak RSS |',
  '|---|---|---|---|---|---|---|',
  ...results.map((r) => `| ${r.database} | ${r.counts.tasks} | ${r.counts.comments} | ${(r.dryRunMs / 1000).toFixed(1)} s | ${(r.importMs / 1000).toFixed(1)} s | ${r.floorMs === undefined ? '–' : `${(r.floorMs / 1000).toFixed(1)} s`} | ${r.peakMb.toFixed(0)} MB |`),
];
console.log(lines.join('\n'));
writeFileSync(join(resultsDir, `import-${stamp}.md`), `${lines.join('\n')}\n`);
