// The SQL the service issues for each benchmarked operation, captured from the running server, so
// the same-SQL floor (floors.mjs) replays exactly the statements the service sends.
//
// A recorder sits between the server and PostgreSQL as a TCP relay and reads the client's side of
// the wire protocol: Parse (statement texts), Bind (their parameter values) and Query (simple
// statements). Each operation is sent through the real server twice to warm it up (its token check,
// its prepared statements), then once more while recording; the statements of that request, with
// their parameter values turned into templates ({userId}, {taskId}, {now}, a new id …), are what
// the floor replays with the values of each of its own requests.
//
//   node bench/src/statements.mjs --write     capture on a scratch database, write statements.generated.json
//   node bench/src/statements.mjs --check     capture and compare with the committed file (exit 1 on drift)
// `npm run bench` runs the check on its own seeded database before it measures anything.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { benchServerEnv, startServer, stopProcess } from './processes.mjs';
import { requestFor } from './scenarios.mjs';
import { WRITE_TASKS, fixtures, logIn, seed } from './seed.mjs';

const here = new URL('.', import.meta.url).pathname;
export const GENERATED = join(here, 'statements.generated.json');
/** The operations with floors: every measured scenario but the mix (made of them) and the logins. */
export const OPERATIONS = ['task', 'project', 'page', 'filtered', 'trpc', 'create', 'patch', 'title', 'comment'];

/** A TCP relay to PostgreSQL that records what the clients send; `events` in arrival order. */
export async function startRecorder(target) {
  const events = [];
  let connections = 0;
  const server = createServer((client) => {
    const connection = (connections += 1);
    const upstream = connect(target.port, target.host);
    const named = new Map();
    let buffer = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk) => {
      upstream.write(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          // Startup, SSL and GSS requests: a length, then the rest; no type byte.
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) return;
          const code = buffer.readInt32BE(4);
          buffer = buffer.subarray(length);
          if (code !== 80877103 && code !== 80877104) started = true;
          continue;
        }
        if (buffer.length < 5) return;
        const type = String.fromCharCode(buffer[0]);
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) return;
        const body = buffer.subarray(5, 1 + length);
        buffer = buffer.subarray(1 + length);
        if (type === 'P') {
          const [name, text] = cstrings(body, 2);
          named.set(name, text);
        } else if (type === 'B') {
          const [, statement, offset] = cstrings(body, 2);
          events.push({ connection, text: named.get(statement), params: bindValues(body, offset) });
        } else if (type === 'Q') {
          events.push({ connection, text: cstrings(body, 1)[0], params: [] });
        }
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { events, port: server.address().port, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The first `count` NUL-terminated strings of a message body, and the offset after them. */
function cstrings(body, count) {
  const found = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const end = body.indexOf(0, offset);
    found.push(body.toString('utf8', offset, end));
    offset = end + 1;
  }
  return [...found, offset];
}

/** A Bind message's parameter values as text (null for NULL). */
function bindValues(body, offset) {
  const formats = body.readInt16BE(offset);
  offset += 2 + 2 * formats;
  const count = body.readInt16BE(offset);
  offset += 2;
  const values = [];
  for (let i = 0; i < count; i++) {
    const length = body.readInt32BE(offset);
    offset += 4;
    if (length === -1) values.push(null);
    else {
      values.push(body.toString('utf8', offset, offset + length));
      offset += length;
    }
  }
  return values;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ISO_INSIDE = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;

/**
 * A request's statements with their parameters as templates. Known values become their names: the
 * caller, the project (and its key in the announcement channel), the request body's fields, the
 * task's columns as the request found them ({task.title} …; {version}, its updated_at, as a whole
 * value). Any other whole value that is a uuid becomes a new id ({new0}, {new1}, …, the same one
 * wherever it recurs, inside JSON too), any other timestamp {now}. A literal brace is doubled.
 */
function templatize(events, known) {
  const knownValues = new Set(Object.values(known));
  const fresh = new Map();
  for (const { params } of events) {
    for (const value of params) if (value !== null && UUID.test(value) && !knownValues.has(value) && !fresh.has(value)) fresh.set(value, `new${fresh.size}`);
  }
  const replacements = [...Object.entries(known), ...[...fresh].map(([id, name]) => [name, id])]
    .filter(([name]) => name !== 'version')
    .sort((a, b) => b[1].length - a[1].length);
  return events.map(({ text, params }) => ({
    text,
    params: params.map((value) => {
      if (value === null) return null;
      if (ISO.test(value)) return value === known.version ? '{version}' : '{now}';
      let template = value.replaceAll('{', '{{').replace(ISO_INSIDE, '{now}');
      for (const [name, knownValue] of replacements) template = template.replaceAll(knownValue, `{${name}}`);
      return template;
    }),
  }));
}

/**
 * Captures every operation's statements through a server started on `databaseUrl` (a seeded bench
 * database), behind a recorder. Writes change a few rows of that database, as any run does.
 */
export async function captureStatements({ serverMain, databaseUrl, port, resultsDir = join(here, '../results') }) {
  const url = new URL(databaseUrl);
  const recorder = await startRecorder({ host: url.hostname, port: Number(url.port || 5432) });
  const relayed = new URL(databaseUrl);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(recorder.port);
  const jwtSecret = randomBytes(32).toString('base64url');
  // One pooled connection and no background polling: nothing but the request's own statements.
  const server = await startServer({
    name: 'server (statement capture)',
    args: [serverMain],
    env: benchServerEnv(jwtSecret, { DATABASE_URL: relayed.toString(), DATABASE_POOL_SIZE: '1', WEBHOOK_POLL_MS: '3600000' }),
    port,
    readyPath: '/readyz',
    logFile: join(resultsDir, 'statements-server.log'),
  });
  const direct = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const captured = {};
  try {
    const [fixture] = await logIn(server.url, fixtures(1));
    for (const operation of OPERATIONS) {
      const send = async (turn) => {
        const request = requestFor(operation, fixture, turn);
        const response = await fetch(`${server.url}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
        if (!response.ok) throw new Error(`${operation}: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
        return request;
      };
      await send(1);
      await send(2);
      // Let any statement the warm-up set off (an announcement's listeners) finish first.
      await new Promise((resolve) => setTimeout(resolve, 200));
      // A turn on the same task whose request changes what it sets (on a database where an earlier
      // capture already ran, the first candidate may set the values it has): a write that changes
      // nothing records no history and is not the statement a real change makes.
      const taskOf = (request) => /\/tasks\/([0-9a-f-]{36})/.exec(request.path)?.[1] ?? /%22id%22%3A%22([0-9a-f-]{36})/.exec(request.path)?.[1];
      const taskId = taskOf(requestFor(operation, fixture, 3));
      const [current] = taskId ? await direct`select * from tasks where id = ${taskId}` : [];
      const changes = (candidate) => Object.entries(JSON.parse(candidate.body ?? '{}')).every(([name, value]) => current?.[name] !== value);
      const candidates = Array.from({ length: 5 }, (_, k) => 3 + k * WRITE_TASKS);
      const turn = candidates.find((candidate) => changes(requestFor(operation, fixture, candidate))) ?? 3;
      const request = requestFor(operation, fixture, turn);
      const body = request.body ? JSON.parse(request.body) : {};
      const known = {
        userId: fixture.userId,
        projectId: fixture.projectId,
        projectKey: fixture.projectId.replaceAll('-', ''),
        ...(taskId ? { taskId } : {}),
        ...(current ? { version: current.updated_at.toISOString() } : {}),
        ...Object.fromEntries(
          Object.entries(current ?? {})
            .filter(([column, value]) => typeof value === 'string' && value !== '' && !['id', 'project_id'].includes(column))
            .map(([column, value]) => [`task.${column}`, value]),
        ),
        ...Object.fromEntries(
          Object.entries(body)
            .filter(([name, value]) => name !== 'projectId' && name !== 'priority' && typeof value === 'string')
            .map(([name, value]) => [`body.${name}`, value]),
        ),
      };
      const from = recorder.events.length;
      await send(turn);
      await new Promise((resolve) => setTimeout(resolve, 200));
      captured[operation] = templatize(recorder.events.slice(from), known);
    }
  } finally {
    await direct.end();
    await stopProcess(server.child);
    await recorder.close();
  }
  return captured;
}

export const readGenerated = () => JSON.parse(readFileSync(GENERATED, 'utf8'));

/**
 * The operations whose statement texts differ from the committed file's (empty: none drifted). The
 * parameters' templates are not compared: some depend on the data (a task's earlier status).
 */
export function drifted(captured, committed = readGenerated()) {
  const texts = (statements) => JSON.stringify((statements ?? []).map((statement) => statement.text));
  return OPERATIONS.filter((operation) => texts(captured[operation]) !== texts(committed.operations?.[operation]));
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const { values: options } = parseArgs({
    options: {
      write: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
      'pg-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
      port: { type: 'string', default: process.env.BENCH_PORT ?? '4250' },
      'reuse-db': { type: 'string' },
    },
  });
  if (options.write === options.check) throw new Error('one of --write or --check');
  const root = join(here, '../..');
  const serverMain = join(root, 'apps/server/dist/main.mjs');
  const name = options['reuse-db'] ?? `tasklane_bench_${randomBytes(4).toString('hex')}`;
  const url = new URL(options['pg-url']);
  url.pathname = `/${name}`;
  const admin = postgres(options['pg-url'], { max: 1, onnotice: () => {} });
  try {
    if (!options['reuse-db']) {
      await admin.unsafe(`create database ${name}`);
      execFileSync(process.execPath, [serverMain, 'migrate'], { env: { ...process.env, DATABASE_URL: url.toString(), JWT_SECRET: randomBytes(32).toString('base64url') }, stdio: 'ignore' });
      const session = postgres(url.toString(), { max: 1, onnotice: () => {} });
      await seed((script) => session.unsafe(script));
      await session.end();
    }
    const captured = await captureStatements({ serverMain, databaseUrl: url.toString(), port: Number(options.port) });
    if (options.write) {
      const header = 'Generated by `node bench/src/statements.mjs --write` from the running server; do not edit. npm run bench checks it still matches.';
      writeFileSync(GENERATED, `${JSON.stringify({ note: header, operations: captured }, null, 2)}\n`);
      console.log(`wrote ${GENERATED}: ${OPERATIONS.map((operation) => `${operation} ${captured[operation].length}`).join(', ')} statements`);
    } else {
      const changed = drifted(captured);
      if (changed.length > 0) {
        console.error(`the service's statements changed for: ${changed.join(', ')}; run node bench/src/statements.mjs --write`);
        process.exitCode = 1;
      } else console.log('the committed statements match the service');
    }
  } finally {
    if (!options['reuse-db']) await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
