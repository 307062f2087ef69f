/**
 * The packed tarball as a user gets it: installed with npm into a project outside the workspace,
 * type-checked across TypeScript versions and module settings, and the flow of docs/sdk.md (its `ts`
 * blocks, extracted here so the guide cannot drift) run on Node against a live server.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from './server';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const sdkDir = join(here, '..');
const guide = join(sdkDir, '../../docs/sdk.md');

/** TypeScript 5.4 (the oldest supported), the newest 5.x and the workspace's own version. */
const TYPESCRIPTS = { 'ts-5.4': '5.4', 'ts-5': '5', 'ts-workspace': ts.version } as const;
const SETUPS = {
  'node16-esm': { module: 'node16', moduleResolution: 'node16', file: 'flow.mts' },
  'node16-cjs': { module: 'node16', moduleResolution: 'node16', file: 'flow.cts' },
  'nodenext-esm': { module: 'nodenext', moduleResolution: 'nodenext', file: 'flow.mts' },
  'nodenext-cjs': { module: 'nodenext', moduleResolution: 'nodenext', file: 'flow.cts' },
  'bundler-esm': { module: 'esnext', moduleResolution: 'bundler', file: 'flow.mts' },
} as const;

let consumer: string;
let compilers: string;
let server: Awaited<ReturnType<typeof startServer>>;

/**
 * The compilers and @types/node are installed once into a cache directory kept between runs (keyed
 * by the versions asked for), so the matrix costs a few tsc runs, not three installs.
 */
async function cachedCompilers(): Promise<string> {
  const key = Object.values(TYPESCRIPTS).join('_');
  const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'tasklane-sdk-typescript', key);
  if (existsSync(join(dir, 'node_modules/.complete'))) return dir;
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ private: true }));
  const specs = Object.entries(TYPESCRIPTS).map(([alias, version]) => `${alias}@npm:typescript@${version}`);
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs, '@types/node@20'], { cwd: dir });
  await writeFile(join(dir, 'node_modules/.complete'), '');
  return dir;
}

/** The `ts` blocks of the guide's SDK section, as one module exporting `main()` (CommonJS has no top-level await). */
async function guideFlow(): Promise<{ source: string; expected: string[] }> {
  const text = await readFile(guide, 'utf8');
  const section = text.slice(text.indexOf('## The TypeScript SDK'), text.indexOf('\n## ', text.indexOf('## The TypeScript SDK') + 1));
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const lines = blocks.join('\n').split('\n');
  const imports = lines.filter((line) => line.startsWith('import '));
  const body = lines.filter((line) => !line.startsWith('import '));
  // Each `console.log(…); // shown` in the guide states what it prints: the run must print exactly that.
  const expected = body.flatMap((line) => {
    const shown = /console\.log\(.*\);? \/\/ (.+)$/.exec(line);
    return shown ? [shown[1]!] : [];
  });
  return { source: [...imports, 'export async function main(): Promise<void> {', ...body.map((line) => `  ${line}`), '}', ''].join('\n'), expected };
}

beforeAll(async () => {
  const started = startServer();
  compilers = await cachedCompilers();
  consumer = await mkdtemp(join(tmpdir(), 'tasklane-sdk-consumer-'));
  await run('npx', ['-y', 'pnpm@12.21.0', 'pack', '--pack-destination', consumer], { cwd: sdkDir });
  const tarball = (await readdir(consumer)).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('pnpm pack produced no tarball');
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `./${tarball}`], { cwd: consumer });
  const { source } = await guideFlow();
  await writeFile(join(consumer, 'flow.mts'), source);
  await writeFile(join(consumer, 'flow.cts'), source);
  server = await started;
});

afterAll(async () => {
  await server?.close();
  if (consumer) await rm(consumer, { recursive: true, force: true });
});

async function tsc(version: keyof typeof TYPESCRIPTS, setup: keyof typeof SETUPS): Promise<string> {
  const { file, ...modules } = SETUPS[setup];
  const config = join(consumer, `tsconfig.${version}.${setup}.json`);
  await writeFile(
    config,
    JSON.stringify({
      compilerOptions: {
        ...modules,
        target: 'es2022',
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        noEmit: true,
        types: ['node'],
        typeRoots: [join(compilers, 'node_modules/@types')],
      },
      files: [file],
    }),
  );
  try {
    await run(process.execPath, [join(compilers, 'node_modules', version, 'bin/tsc'), '-p', config], { cwd: consumer });
    return '';
  } catch (error) {
    const failed = error as { stdout: string; stderr: string };
    return `${version} ${setup}:\n${failed.stdout}${failed.stderr}`;
  }
}

describe('the packed @tasklane/sdk in a project outside the workspace', () => {
  it('installs nothing else: no dependency, no TypeScript, at most 1.5 MB', async () => {
    expect(await readdir(join(consumer, 'node_modules'))).toEqual(expect.not.arrayContaining(['typescript', '@trpc']));
    const installed = (await readdir(join(consumer, 'node_modules'))).filter((name) => !name.startsWith('.'));
    expect(installed).toEqual(['@tasklane']);
    const { stdout } = await run('du', ['-sk', join(consumer, 'node_modules')]);
    expect(Number(stdout.split('\t')[0])).toBeLessThanOrEqual(1536);
    const manifest = JSON.parse(await readFile(join(consumer, 'node_modules/@tasklane/sdk/package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies ?? {}).toEqual({});
  });

  it('type-checks the guide strict, in every TypeScript version and module setup, ESM and CommonJS', async () => {
    const jobs = (Object.keys(TYPESCRIPTS) as (keyof typeof TYPESCRIPTS)[]).flatMap((version) => (Object.keys(SETUPS) as (keyof typeof SETUPS)[]).map((setup) => [version, setup] as const));
    const failures: string[] = [];
    // Two compilers at a time: the machine is shared.
    for (let index = 0; index < jobs.length; index += 2) {
      const results = await Promise.all(jobs.slice(index, index + 2).map(([version, setup]) => tsc(version, setup)));
      failures.push(...results.filter(Boolean));
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it('refuses a wrong input type at compile time', async () => {
    await writeFile(
      join(consumer, 'wrong.mts'),
      "import { createTasklaneClient } from '@tasklane/sdk';\nconst tl = createTasklaneClient({ baseUrl: 'http://localhost' });\nawait tl.tasks.list({ projectId: 'p', limit: '50' });\n",
    );
    const config = join(consumer, 'tsconfig.wrong.json');
    await writeFile(config, JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['wrong.mts'] }));
    const result = await run(process.execPath, [join(compilers, 'node_modules/ts-workspace/bin/tsc'), '-p', config], { cwd: consumer }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(result).toMatch(/wrong\.mts\(3,\d+\): error TS2322: Type 'string' is not assignable to type 'number'\./);
  });

  it('runs the guide as written against a live server on Node', async () => {
    const { source, expected } = await guideFlow();
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    await writeFile(join(consumer, 'flow.mjs'), outputText);
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', "const { main } = await import('./flow.mjs'); await main();"], {
      cwd: consumer,
      env: { ...process.env, TASKLANE_URL: server.baseUrl },
    });
    expect(stdout.trim().split('\n')).toEqual(expected);
  });

  it('loads from CommonJS', async () => {
    const { stdout } = await run(process.execPath, ['-e', "const sdk = require('@tasklane/sdk'); console.log(typeof sdk.createTasklaneClient, typeof sdk.TasklaneError)"], { cwd: consumer });
    expect(stdout.trim()).toBe('function function');
  });

  it('bundles into a browser page with Vite', async () => {
    await writeFile(join(consumer, 'index.html'), '<!doctype html><title>t</title><script type="module" src="./page.js"></script>');
    await writeFile(
      join(consumer, 'page.js'),
      "import { createTasklaneClient } from '@tasklane/sdk';\nconst tl = createTasklaneClient({ baseUrl: location.origin });\ndocument.title = typeof tl.tasks.create;\n",
    );
    await build({ root: consumer, logLevel: 'silent', configFile: false, build: { outDir: join(consumer, 'page-dist') } });
    const assets = await readdir(join(consumer, 'page-dist/assets'));
    const script = await readFile(join(consumer, 'page-dist/assets', assets.find((name) => name.endsWith('.js'))!), 'utf8');
    expect(script).toContain('Idempotency-Key'.toLowerCase());
    expect(script).not.toMatch(/from ?["']node:/);
  });
});
