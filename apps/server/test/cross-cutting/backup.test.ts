import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createDatabase } from '@tasklane/db';
import sharp from 'sharp';
import { create as createTar, extract as extractTar, list as listTar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../support/harness';
import { call, expectOneLineFailure, runTasklane, SERVER_ENTRY, startServerProcess, type ServerProcess } from '../support/server-process';
import { freePort } from '../support/ports';

const onPostgres = process.env.TEST_DB === 'postgres';

/** The S3-compatible server of the tests (s3rver ships no types): what this file uses of it. */
interface S3rver {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => S3rver;
const ADMIN_TOKEN = 'admin-token-for-the-backup-test-0123456789';
const JWT_SECRET = 'process-test-secret-that-is-long-enough-for-hs256';
const scratch = mkdtempSync(join(tmpdir(), 'tasklane-backup-'));

/** `tasklane <command>` as an operator runs it. */
async function tasklane(env: Record<string, string>, ...args: string[]) {
  const result = await promisify(execFile)(process.execPath, [SERVER_ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', JWT_SECRET, ADMIN_TOKEN, BCRYPT_COST: '4', LOG_LEVEL: 'warn', ...env },
  });
  return result.stdout;
}

async function tasksOf(server: ServerProcess, token: string, projectId: string) {
  const page = await call(server.baseUrl, 'GET', `/api/v1/tasks/project/${projectId}?limit=500`, { token });
  expect(page.status).toBe(200);
  return page.body as { id: string; title: string; status: string; updatedAt: string }[];
}

describe('tasklane CLI: backup, restore, create-user, reset-password', () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it.runIf(onPostgres)('points PostgreSQL users to pg_dump / pg_restore', async () => {
    const failed = await tasklane({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }, 'backup', join(scratch, 'x')).catch((error: { stderr: string }) => error.stderr);
    expect(failed).toContain('pg_dump --format=custom');
  });

  it.runIf(!onPostgres)('backs up a live PGlite database under writes and restores it with identical data', async () => {
    // Held at once, so the three are distinct.
    const [livePort, restoredPort, quietPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const live = { DATA_DIR: join(scratch, 'live'), PORT: String(livePort), ADMIN_TOKEN, JWT_SECRET };
    const server = await startServerProcess(live, livePort);
    try {
      const registered = await call(server.baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Backup', email: 'backup@example.com', password: 'password-123' } });
      const token: string = registered.body.access_token;
      const project = await call(server.baseUrl, 'POST', '/api/v1/projects', { token, body: { name: 'Backed up' } });
      let writing = true;
      const acknowledged: string[] = [];
      const writers = Array.from({ length: 4 }, async (_, index) => {
        for (let sequence = 0; writing; sequence += 1) {
          const created = await call(server.baseUrl, 'POST', '/api/v1/tasks', { token, body: { projectId: project.body.id, title: `w${index}-${sequence}` } });
          if (created.status === 201) acknowledged.push(created.body.id);
        }
      });
      while (acknowledged.length < 30) await new Promise((resolve) => setTimeout(resolve, 20));
      const beforeBackup = [...acknowledged];
      await tasklane(live, 'backup', join(scratch, 'under-writes.tar.gz'));
      while (acknowledged.length < beforeBackup.length + 20) await new Promise((resolve) => setTimeout(resolve, 20));
      writing = false;
      await Promise.all(writers);
      await call(server.baseUrl, 'PATCH', `/api/v1/tasks/${acknowledged[0]}`, { token, body: { status: 'DONE' } });
      const liveTasks = await tasksOf(server, token, project.body.id);
      // asked from elsewhere, as from another machine: over HTTP with the server's ADMIN_TOKEN
      await tasklane({ ...live, DATA_DIR: join(scratch, 'elsewhere') }, 'backup', join(scratch, 'quiet.tar.gz'));

      // the backup taken under writes: everything acknowledged before it, nothing that never existed
      const restoredEnv = { DATA_DIR: join(scratch, 'restored-1'), PORT: String(restoredPort) };
      await tasklane(restoredEnv, 'restore', join(scratch, 'under-writes.tar.gz'));
      const restored = await startServerProcess(restoredEnv, restoredPort);
      const underWrites = await tasksOf(restored, token, project.body.id);
      restored.child.kill('SIGTERM');
      await restored.exited;
      const restoredIds = new Set(underWrites.map((task) => task.id));
      expect(beforeBackup.filter((id) => !restoredIds.has(id))).toEqual([]);
      expect(underWrites.every((task) => acknowledged.includes(task.id))).toBe(true);

      // the quiet backup restores to exactly the live data; operators can add users and reset passwords
      const quietEnv = { DATA_DIR: join(scratch, 'restored-2'), PORT: String(quietPort) };
      await tasklane(quietEnv, 'restore', join(scratch, 'quiet.tar.gz'));
      await expect(tasklane(quietEnv, 'restore', join(scratch, 'quiet.tar.gz'))).rejects.toThrow(/not empty/);
      await tasklane({ ...quietEnv, TASKLANE_PASSWORD: 'operator-made-123' }, 'create-user', 'ops@example.com', 'Ops', 'Person');
      await tasklane({ ...quietEnv, TASKLANE_PASSWORD: 'reset-password-456' }, 'reset-password', 'backup@example.com');
      const quiet = await startServerProcess(quietEnv, quietPort);
      try {
        expect((await call(quiet.baseUrl, 'GET', '/api/v1/auth/me', { token })).status).toBe(401);
        const login = await call(quiet.baseUrl, 'POST', '/api/v1/auth/login', { body: { email: 'backup@example.com', password: 'reset-password-456' } });
        expect(login.status).toBe(200);
        expect(await tasksOf(quiet, login.body.access_token, project.body.id)).toEqual(liveTasks);
        const ops = await call(quiet.baseUrl, 'POST', '/api/v1/auth/login', { body: { email: 'ops@example.com', password: 'operator-made-123' } });
        expect(ops.body.user).toMatchObject({ email: 'ops@example.com', name: 'Ops Person' });
      } finally {
        quiet.child.kill('SIGTERM');
        await quiet.exited;
      }
      // without the admin token the live server does not hand its data out
      expect((await call(server.baseUrl, 'GET', '/admin/backup')).status).toBe(401);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 420_000);
});

/** Attachment bytes as local storage keeps them: DATA_DIR/files/<projectId>/<sha256> (and a preview beside). */
function storeFile(dataDir: string, projectId: string, bytes: Buffer, suffix = ''): string {
  const key = `${projectId}/${createHash('sha256').update(bytes).digest('hex')}${suffix}`;
  mkdirSync(join(dataDir, 'files', projectId), { recursive: true });
  writeFileSync(join(dataDir, 'files', key), bytes);
  return key;
}

/** Every file under `dir` by its path relative to `dir`, with its bytes. */
function treeOf(dir: string): Record<string, Buffer> {
  const tree: Record<string, Buffer> = {};
  if (!existsSync(dir)) return tree;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      tree[path.slice(dir.length + 1)] = readFileSync(path);
    }
  }
  return tree;
}

describe.runIf(!onPostgres)('tasklane backup and restore carry the local attachment files', () => {
  // Made in beforeAll: a skipped suite (on PostgreSQL) runs no hook, so it must make nothing either.
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tasklane-backup-files-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const stored: Record<string, Buffer> = {};
  const uploaded: { id: string; bytes: Buffer }[] = [];
  let projectId = '';
  let token = '';

  it('backs up the files with the database, from a running server and from a stopped one, and restores both', async () => {
    const [livePort, restoredPort] = await Promise.all([freePort(), freePort()]);
    const live = { DATA_DIR: join(dir, 'live'), PORT: String(livePort) };
    const server = await startServerProcess(live, livePort);
    try {
      const registered = await call(server.baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Files', email: 'files@example.com', password: 'password-123' } });
      token = registered.body.access_token;
      projectId = (await call(server.baseUrl, 'POST', '/api/v1/projects', { token, body: { name: 'With files' } })).body.id;
      const taskId = (await call(server.baseUrl, 'POST', '/api/v1/tasks', { token, body: { projectId, title: 'Files attached' } })).body.id;
      // large enough to span many gzip blocks, bytes that do not compress, a text, an empty file,
      // a PNG (which gets a preview), and the same bytes twice (stored once)
      const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3366aa' } }).png().toBuffer();
      const random = randomBytes(700_000);
      for (const [name, bytes] of [['random.bin', random], ['notes.txt', Buffer.from('a small text file\n')], ['empty', Buffer.alloc(0)], ['picture.png', png], ['again.bin', random]] as const) {
        const form = new FormData();
        form.append('file', new Blob([bytes]), name);
        const response = await fetch(`${server.baseUrl}/api/v1/tasks/${taskId}/attachments`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
        expect(response.status).toBe(201);
        const attachment = (await response.json()) as { id: string };
        uploaded.push({ id: attachment.id, bytes });
      }
      // What local storage holds now: the archive must carry exactly that (previews too).
      for (const [key, bytes] of Object.entries(treeOf(join(live.DATA_DIR, 'files')))) if (!key.startsWith('tmp/')) stored[key] = bytes;
      expect(Object.keys(stored).filter((key) => key.startsWith(`${projectId}/`)).length).toBeGreaterThanOrEqual(4);
      // an upload under way is not a file of the project
      mkdirSync(join(live.DATA_DIR, 'files', 'tmp'), { recursive: true });
      writeFileSync(join(live.DATA_DIR, 'files', 'tmp', '0193a5b4-9d2e-7f10-8a3b-5c6d7e8f9a0b'), 'half an upload');

      const out = await tasklane(live, 'backup', join(dir, 'running.tar.gz'));
      expect(out).toContain(`Attachment files included: ${Object.keys(stored).length}.`);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    const offline = await tasklane({ ...live, PORT: String(await freePort()) }, 'backup', join(dir, 'stopped.tar.gz'));
    expect(offline).toContain(`Attachment files included: ${Object.keys(stored).length}.`);
    // the snapshot the backup wrote from is gone; the files are untouched
    expect(readdirSync(live.DATA_DIR).filter((name) => name.startsWith('.backup'))).toEqual([]);
    expect(Object.keys(treeOf(join(live.DATA_DIR, 'files'))).sort()).toEqual([...Object.keys(stored), 'tmp/0193a5b4-9d2e-7f10-8a3b-5c6d7e8f9a0b'].sort());

    const entries: string[] = [];
    await listTar({ file: join(dir, 'running.tar.gz'), strict: true, onReadEntry: (entry) => void entries.push(entry.path) });
    expect(entries).toEqual(expect.arrayContaining(['PG_VERSION', 'global/pg_control', ...Object.keys(stored).map((key) => `files/${key}`)]));
    expect(entries.filter((path) => path.startsWith('files/tmp'))).toEqual([]);

    for (const name of ['running', 'stopped']) {
      const restoredEnv = { DATA_DIR: join(dir, `restored-${name}`), PORT: String(restoredPort) };
      const restoredOut = await tasklane(restoredEnv, 'restore', join(dir, `${name}.tar.gz`));
      expect(restoredOut).toContain(`and ${Object.keys(stored).length} attachment files into`);
      expect(treeOf(join(restoredEnv.DATA_DIR, 'files'))).toEqual(stored);
      expect(readdirSync(restoredEnv.DATA_DIR).filter((entry) => entry.includes('restoring'))).toEqual([]);
      const restored = await startServerProcess(restoredEnv, restoredPort);
      try {
        expect((await call(restored.baseUrl, 'GET', `/api/v1/projects/${projectId}`, { token })).body.name).toBe('With files');
        // every attachment downloads, byte for byte, from the restored server
        for (const { id, bytes } of uploaded) {
          const content = await fetch(`${restored.baseUrl}/api/v1/attachments/${id}/content`, { headers: { authorization: `Bearer ${token}` } });
          expect(content.status).toBe(200);
          expect(Buffer.from(await content.arrayBuffer()).equals(bytes)).toBe(true);
        }
      } finally {
        restored.child.kill('SIGTERM');
        await restored.exited;
      }
    }
  }, 240_000);

  it('restores an archive made before attachments (PGlite\'s own dump), with no files folder', async () => {
    const source = join(dir, 'old-source');
    await tasklane({ DATA_DIR: source, TASKLANE_PASSWORD: 'old-password-123' }, 'create-user', 'old@example.com', 'Old', 'Timer');
    // What `tasklane backup` wrote until now: PGlite's dumpDataDir, gzip, nothing else.
    const database = await createDatabase({ kind: 'pglite', dataDir: join(source, 'pgdata') });
    try {
      writeFileSync(join(dir, 'old.tar.gz'), Buffer.from(await (await database.dumpDataDir!('gzip')).arrayBuffer()));
    } finally {
      await database.close();
    }
    const port = await freePort();
    const target = { DATA_DIR: join(dir, 'old-restored'), PORT: String(port) };
    expect(await tasklane(target, 'restore', join(dir, 'old.tar.gz'))).toMatch(/^Restored .*old\.tar\.gz into .*pgdata\.\n$/);
    expect(existsSync(join(target.DATA_DIR, 'files'))).toBe(false);
    const restored = await startServerProcess(target, port);
    try {
      expect((await call(restored.baseUrl, 'POST', '/api/v1/auth/login', { body: { email: 'old@example.com', password: 'old-password-123' } })).status).toBe(200);
    } finally {
      restored.child.kill('SIGTERM');
      await restored.exited;
    }
  }, 120_000);

  it('refuses a corrupt archive, a link among the files and a target with files, leaving the target as it was', async () => {
    const good = readFileSync(join(dir, 'stopped.tar.gz'));
    // the files come last: a cut or a flipped byte there is past everything PGlite's entries hold
    writeFileSync(join(dir, 'cut.tar.gz'), good.subarray(0, good.length - 100_000));
    const flipped = Buffer.from(good);
    flipped[good.length - 200_000] = flipped[good.length - 200_000]! ^ 0xff;
    writeFileSync(join(dir, 'flipped.tar.gz'), flipped);
    const linked = mkdtempSync(join(dir, 'linked-'));
    await extractTar({ file: join(dir, 'stopped.tar.gz'), cwd: linked });
    symlinkSync('/etc/passwd', join(linked, 'files', projectId, 'a'.repeat(64)));
    await createTar({ gzip: true, file: join(dir, 'linked.tar.gz'), cwd: linked }, readdirSync(linked));

    const cases: [string, RegExp][] = [
      ['cut', /^not a backup: .*cut\.tar\.gz is not a complete \.tar\.gz archive/],
      ['flipped', /^not a backup: .*flipped\.tar\.gz is not a complete \.tar\.gz archive/],
      ['linked', /^not a backup: .*linked\.tar\.gz holds a path outside its directory \(files\/.*, a SymbolicLink\)/],
    ];
    for (const [name, message] of cases) {
      const dataDir = join(dir, `corrupt-${name}`);
      mkdirSync(join(dataDir, 'pgdata'), { recursive: true });
      mkdirSync(join(dataDir, 'files'));
      expectOneLineFailure(await runTasklane({ DATA_DIR: dataDir }, 'restore', join(dir, `${name}.tar.gz`)), message);
      expect(readdirSync(dataDir).filter((entry) => entry !== 'tasklane.lock').sort()).toEqual(['files', 'pgdata']);
      expect(readdirSync(join(dataDir, 'pgdata'))).toEqual([]);
      expect(readdirSync(join(dataDir, 'files'))).toEqual([]);
    }

    // files already in DATA_DIR/files are never overwritten nor mixed with the archive's
    const busy = join(dir, 'busy');
    storeFile(busy, projectId, Buffer.from('a file of another life'));
    const before = treeOf(join(busy, 'files'));
    expectOneLineFailure(await runTasklane({ DATA_DIR: busy }, 'restore', join(dir, 'stopped.tar.gz')), /^.*busy\/files is not empty: stop the server and move it away first/);
    expect(treeOf(join(busy, 'files'))).toEqual(before);
    expect(existsSync(join(busy, 'pgdata'))).toBe(false);
  }, 120_000);
});

describe.runIf(!onPostgres)('tasklane backup with attachment files in a bucket', () => {
  let dir = '';
  let s3: S3rver | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tasklane-backup-bucket-'));
  });
  afterAll(async () => {
    await s3?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says the bucket is not in the archive, from a running server and from a stopped one', async () => {
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: 'tasklane-files', configs: [] }] });
    const { port: s3Port } = await s3.run();
    const port = await freePort();
    const env = {
      DATA_DIR: join(dir, 'data'),
      PORT: String(port),
      S3_BUCKET: 'tasklane-files',
      S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    };
    const server = await startServerProcess(env, port);
    try {
      const token = (await call(server.baseUrl, 'POST', '/api/v1/auth/register', { body: { name: 'Bucket', email: 'bucket@example.com', password: 'password-123' } })).body.access_token;
      const projectId = (await call(server.baseUrl, 'POST', '/api/v1/projects', { token, body: { name: 'In a bucket' } })).body.id;
      const taskId = (await call(server.baseUrl, 'POST', '/api/v1/tasks', { token, body: { projectId, title: 'Files in S3' } })).body.id;
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('kept in the bucket')]), 'bucket.txt');
      expect((await fetch(`${server.baseUrl}/api/v1/tasks/${taskId}/attachments`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })).status).toBe(201);
      expect(await tasklane(env, 'backup', join(dir, 'running.tar.gz'))).toMatch(/Attachment files are in the S3 bucket \(S3_BUCKET\), not in this archive: copy the bucket now/);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    expect(await tasklane(env, 'backup', join(dir, 'stopped.tar.gz'))).toMatch(/Attachment files are in the S3 bucket/);
    for (const name of ['running', 'stopped']) {
      const entries: string[] = [];
      await listTar({ file: join(dir, `${name}.tar.gz`), strict: true, onReadEntry: (entry) => void entries.push(entry.path) });
      expect(entries).toContain('PG_VERSION');
      expect(entries.filter((path) => path.startsWith('files'))).toEqual([]);
    }
  }, 120_000);
});

/** An HTTP server answering every request with one fixed response, as a misconfigured or foreign server does. */
async function fixedServer(status: number, type: string, body: Buffer | string): Promise<{ port: number; server: Server }> {
  const server = createServer((_request, response) => response.writeHead(status, { 'content-type': type }).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

describe('tasklane backup and restore refuse what is not a backup', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-not-a-backup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A .tar.gz of the given files, as made by tar. */
  async function archiveOf(name: string, files: Record<string, string>): Promise<string> {
    const source = mkdtempSync(join(dir, 'source-'));
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(source, path, '..'), { recursive: true });
      if (path.endsWith('/')) mkdirSync(join(source, path), { recursive: true });
      else writeFileSync(join(source, path), content);
    }
    const file = join(dir, name);
    await createTar({ gzip: true, file, cwd: source }, Object.keys(files));
    return file;
  }

  it.each([
    ['a web page answered 200', 200, 'text/html', '<!doctype html><html></html>', /^not a backup: .* answered 200 text\/html/],
    ['a JSON 404', 404, 'application/json', '{"code":"NOT_FOUND"}', /^not a backup: .* answered 404 application\/json/],
    ['gzip that is not a tar archive', 200, 'application/gzip', gzipSync('just some text'), /^not a backup: the received archive is not a complete \.tar\.gz/],
    ['a truncated archive', 200, 'application/gzip', gzipSync(Buffer.alloc(20_000, 7)).subarray(0, 40), /^not a backup: the received archive is not a complete \.tar\.gz/],
    ['an uncompressed body labelled gzip', 200, 'application/gzip', 'PG_VERSION', /^not a backup: the received archive is not gzip/],
  ])('backup from a server answering %s: exit 1, one line, no file left', async (_name, status, type, body, message) => {
    const { port, server } = await fixedServer(status, type, body);
    try {
      // Named by the case, not the port: the system may hand a later case the same free port.
      const out = join(dir, `from-${_name.replace(/\W+/g, '-')}`);
      mkdirSync(out);
      const result = await runTasklane({ PORT: String(port), DATA_DIR: join(dir, 'unused'), ADMIN_TOKEN }, 'backup', join(out, 'backup.tar.gz'));
      expectOneLineFailure(result, message);
      expect(readdirSync(out)).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('backup does not replace an earlier backup with a refused one', async () => {
    const { port, server } = await fixedServer(404, 'text/html', '<!doctype html>');
    try {
      const earlier = join(dir, 'earlier.tar.gz');
      writeFileSync(earlier, 'an earlier backup');
      expectOneLineFailure(await runTasklane({ PORT: String(port), DATA_DIR: join(dir, 'unused') }, 'backup', earlier), /^not a backup/);
      expect(readFileSync(earlier, 'utf8')).toBe('an earlier backup');
    } finally {
      server.close();
    }
  });

  it('backup with no server and no database says so instead of dumping an empty one', async () => {
    const dataDir = join(dir, 'no-database');
    const result = await runTasklane({ PORT: String(await freePort()), DATA_DIR: dataDir }, 'backup', join(dir, 'none.tar.gz'));
    expectOneLineFailure(result, /^no server answered at .* holds no database/);
    expect(existsSync(join(dataDir, 'pgdata'))).toBe(false);
    expect(existsSync(join(dir, 'none.tar.gz'))).toBe(false);
  });

  it('restore refuses a missing file, a web page, gzip that is not tar, a truncated archive and a foreign archive, leaving no data directory', async () => {
    writeFileSync(join(dir, 'page.tar.gz'), '<!doctype html><html></html>');
    writeFileSync(join(dir, 'text.tar.gz'), gzipSync('not a tar archive'));
    const foreign = await archiveOf('foreign.tar.gz', { 'notes.txt': 'hello', 'photos/cat.jpg': 'meow' });
    writeFileSync(join(dir, 'truncated.tar.gz'), readFileSync(foreign).subarray(0, 30));
    const cases: [string, RegExp][] = [
      [join(dir, 'missing.tar.gz'), /^cannot read .*missing\.tar\.gz: ENOENT/],
      [join(dir, 'page.tar.gz'), /^not a backup: .*page\.tar\.gz is not gzip \(it starts with "<!doctype html>/],
      [join(dir, 'text.tar.gz'), /^not a backup: .*text\.tar\.gz is not a complete \.tar\.gz archive/],
      [join(dir, 'truncated.tar.gz'), /^not a backup: .*truncated\.tar\.gz is not a complete \.tar\.gz archive/],
      [foreign, /^not a backup: .*foreign\.tar\.gz is a \.tar\.gz but not of a Tasklane data directory \(no PG_VERSION, global\/pg_control, base\)/],
    ];
    for (const [file, message] of cases) {
      const dataDir = join(dir, `restore-into-${cases.findIndex(([name]) => name === file)}`);
      expectOneLineFailure(await runTasklane({ DATA_DIR: dataDir }, 'restore', file), message);
      expect(existsSync(join(dataDir, 'pgdata'))).toBe(false);
      expect(existsSync(dataDir) ? readdirSync(dataDir).filter((name) => name.startsWith('pgdata')) : []).toEqual([]);
    }
  });

  it('restore of an archive shaped like a data directory that the database cannot open leaves the target as it was', async () => {
    const fake = await archiveOf('fake-pgdata.tar.gz', { PG_VERSION: '17\n', 'global/pg_control': 'garbage', 'base/': '' });
    const dataDir = join(dir, 'fake-target');
    mkdirSync(join(dataDir, 'pgdata'), { recursive: true });
    const result = await runTasklane({ DATA_DIR: dataDir }, 'restore', fake);
    expectOneLineFailure(result, /^not restored: .*fake-pgdata\.tar\.gz could not be opened as a database .*unchanged$/);
    expect(readdirSync(dataDir).filter((name) => name.startsWith('pgdata'))).toEqual(['pgdata']);
    expect(readdirSync(join(dataDir, 'pgdata'))).toEqual([]);
  }, 120_000);

  it.runIf(!onPostgres)('GET /admin/backup sends a gzip tar archive of the data directory', async () => {
    const t = await startTestApp({ adminToken: ADMIN_TOKEN });
    try {
      const response = await t.app.inject({ method: 'GET', url: '/admin/backup', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/gzip');
      const archive = response.rawPayload;
      expect([...archive.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      const file = join(dir, 'route.tar.gz');
      writeFileSync(file, archive);
      const entries: string[] = [];
      await listTar({ file, strict: true, onReadEntry: (entry) => void entries.push(entry.path.replace(/^\/+/, '')) });
      expect(entries).toEqual(expect.arrayContaining(['PG_VERSION', 'global/pg_control']));
    } finally {
      await t.close();
    }
  });
});
