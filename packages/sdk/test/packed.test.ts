import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildApp, loadConfig } from '@tasklane/server';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const sdkDir = join(here, '..');
const require = (await import('node:module')).createRequire(import.meta.url);
const typescriptVersion = (require('typescript/package.json') as { version: string }).version;

const TRANSPILE_FLOW = `
import { readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';
const { outputText } = ts.transpileModule(readFileSync('flow.ts', 'utf8'), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
writeFileSync('flow.mjs', outputText);`;

let consumer: string;
let dataDir: string;
let closeServer: () => Promise<void>;
let dropDatabase: (() => Promise<void>) | undefined;
let baseUrl: string;
/** Both compiler runs start as soon as the project is installed and run side by side with the rest. */
let typeChecks: { correct: Promise<TscResult>; wrongInput: Promise<TscResult> };

type TscResult = { code: number; output: string };

/** Runs tsc of the consumer project; resolves with its exit code and output instead of throwing. */
/** A fresh PostgreSQL database when TEST_DATABASE_URL is set (CI): far quicker to start than PGlite. */
async function scratchDatabase(url: string | undefined): Promise<string | undefined> {
  if (!url) return undefined;
  const name = `tasklane_sdk_${randomBytes(6).toString('hex')}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  dropDatabase = async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
  const databaseUrl = new URL(url);
  databaseUrl.pathname = `/${name}`;
  return databaseUrl.toString();
}

async function tsc(...args: string[]): Promise<TscResult> {
  try {
    const { stdout } = await run(process.execPath, [join(consumer, 'node_modules/typescript/bin/tsc'), ...args], { cwd: consumer });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

beforeAll(async () => {
  // A throwaway project outside the workspace, with the packed tarball and registry packages only.
  consumer = await mkdtemp(join(tmpdir(), 'tasklane-sdk-consumer-'));
  await run('npx', ['-y', 'pnpm@12.21.0', 'pack', '--pack-destination', consumer], { cwd: sdkDir });
  const tarball = (await readdir(consumer)).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('pnpm pack produced no tarball');
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', `./${tarball}`, `typescript@${typescriptVersion}`, '@types/node@20', 'eventsource@4'],
    { cwd: consumer },
  );
  await cp(join(here, 'consumer'), consumer, { recursive: true });
  typeChecks = { correct: tsc('--noEmit', '-p', 'tsconfig.json'), wrongInput: tsc('--noEmit', '-p', 'tsconfig.wrong.json') };

  dataDir = await mkdtemp(join(tmpdir(), 'tasklane-sdk-server-'));
  const databaseUrl = await scratchDatabase(process.env.TEST_DATABASE_URL);
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    JWT_SECRET: 'sdk-test-secret-long-enough-for-hs256-signing',
    LOG_LEVEL: 'silent',
    BCRYPT_COST: '4',
    AUTH_RATE_LIMIT: '15',
  });
  const app = await buildApp(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  closeServer = () => app.close();
});

afterAll(async () => {
  await closeServer?.();
  await dropDatabase?.();
  await rm(consumer, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

describe('the packed @tasklane/sdk in a project outside the workspace', () => {
  it('ships declarations that stand alone: only its dependencies are imported', async () => {
    const installed = join(consumer, 'node_modules/@tasklane/sdk');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@trpc/client', '@trpc/server']);
    for (const file of ['dist/index.d.ts', 'dist/index.d.cts']) {
      const declarations = await readFile(join(installed, file), 'utf8');
      const imported = new Set([...declarations.matchAll(/from ['"]([^'"]+)['"]/g)].map((match) => match[1]!.replace(/^(@[^/]+\/[^/]+|[^@/][^/]*).*$/, '$1')));
      expect([...imported].sort()).toEqual(['@trpc/client', '@trpc/server']);
    }
  });

  it('type-checks a correct consumer strict with skipLibCheck: false', async () => {
    const result = await typeChecks.correct;
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it('refuses a wrong input type at compile time', async () => {
    const result = await typeChecks.wrongInput;
    expect(result.code).not.toBe(0);
    const errors = result.output.split('\n').filter((line) => line.includes('error TS'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^wrong-input\.ts\(5,\d+\): error TS2322: Type 'number' is not assignable to type 'string'\./);
  });

  it('loads from CommonJS too', async () => {
    const { stdout } = await run(process.execPath, ['-e', "const sdk = require('@tasklane/sdk'); console.log(typeof sdk.createTasklaneClient, typeof sdk.TasklaneError)"], { cwd: consumer });
    expect(stdout.trim()).toBe('function function');
  });

  it('drives the whole interface flow against a live server', async () => {
    // Type-checked by the test above; here it only needs its types stripped to run.
    await run(process.execPath, ['--input-type=module', '-e', TRANSPILE_FLOW], { cwd: consumer });
    const { stdout } = await run(process.execPath, [join(consumer, 'flow.mjs')], { cwd: consumer, env: { ...process.env, BASE_URL: baseUrl } });
    expect(stdout.trim()).toBe('sdk flow ok');
  });
});
