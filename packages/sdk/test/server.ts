import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, loadConfig } from '@tasklane/server';
import postgres from 'postgres';

/** A live server for a test file: on a fresh PostgreSQL database when TEST_DATABASE_URL is set, else PGlite. */
export async function startServer(env: Record<string, string> = {}): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tasklane-sdk-server-'));
  let drop: (() => Promise<void>) | undefined;
  let databaseUrl: string | undefined;
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const name = `tasklane_sdk_${randomBytes(6).toString('hex')}`;
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    drop = async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
    const database = new URL(url);
    database.pathname = `/${name}`;
    databaseUrl = database.toString();
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    JWT_SECRET: 'sdk-test-secret-long-enough-for-hs256-signing',
    LOG_LEVEL: 'silent',
    BCRYPT_COST: '4',
    ...env,
  });
  const app = await buildApp(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: async () => {
      await app.close();
      await drop?.();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
