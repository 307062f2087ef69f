import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { freshPostgresDatabase } from '../support/harness';
import { freePort } from '../support/ports';
import { expectOneLineFailure, runTasklane } from '../support/server-process';

/** The built server refusing to start for a reason of the operator's: one line naming it and the fix, exit 1. */
const onPostgres = process.env.TEST_DB === 'postgres';
const scratch = mkdtempSync(join(tmpdir(), 'tasklane-start-up-'));

describe('a start that cannot succeed', () => {
  let base: Record<string, string>;
  let dropDatabase = async () => {};

  beforeAll(async () => {
    if (!onPostgres) return void (base = { DATA_DIR: join(scratch, 'data') });
    const database = await freshPostgresDatabase();
    base = { DATA_DIR: join(scratch, 'data'), DATABASE_URL: database.url(5432) };
    dropDatabase = database.drop;
  });
  afterAll(async () => {
    await dropDatabase();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('a port in use', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const result = await runTasklane({ ...base, PORT: String(port) }, 'serve');
      expectOneLineFailure(result, new RegExp(`^Port ${port} on 127\\.0\\.0\\.1 is already in use .*: stop it, or set PORT to a free port\\.$`));
    } finally {
      holder.close();
    }
  }, 120_000);

  it('a DATA_DIR that cannot be written, with JWT_SECRET set or generated', async () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, 'not a directory');
    const dataDir = join(file, 'data');
    const expected = new RegExp(`^Cannot write ${dataDir}.* \\(ENOTDIR: .*\\): set DATA_DIR to a directory this user may write\\.$`);
    expectOneLineFailure(await runTasklane({ DATA_DIR: dataDir, PORT: String(await freePort()) }, 'serve'), expected);
    expectOneLineFailure(await runTasklane({ DATA_DIR: dataDir, JWT_SECRET: '' }, 'migrate'), expected);
  }, 120_000);

  it('PostgreSQL refusing the connection', async () => {
    const port = await freePort();
    const result = await runTasklane({ ...base, DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/tasklane`, PORT: String(await freePort()) }, 'serve');
    expectOneLineFailure(result, new RegExp(`^PostgreSQL at 127\\.0\\.0\\.1:${port} refused the connection: start PostgreSQL, or correct the host and port in DATABASE_URL\\.$`));
  }, 120_000);

  it.runIf(onPostgres)('a PostgreSQL database that does not exist', async () => {
    const url = new URL(base.DATABASE_URL!);
    url.pathname = '/tasklane_no_such_database';
    const result = await runTasklane({ ...base, DATABASE_URL: url.toString(), PORT: String(await freePort()) }, 'serve');
    expectOneLineFailure(result, /^PostgreSQL refused: database "tasklane_no_such_database" does not exist \(3D000\): create it \(createdb\), or correct the database name in DATABASE_URL\.$/);
  }, 120_000);
});
