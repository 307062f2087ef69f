import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ERROR_REASONS as SCHEMA_REASONS } from '@tasklane/schemas';
import { type AppProcedurePath, appRouter } from '@tasklane/server/router';
import { describe, expect, it } from 'vitest';
import { ERROR_REASONS, PROCEDURE_KINDS, type ProcedurePath, RESOURCES } from '../src/index';

/**
 * The generated procedure names are the router's, checked by tsc (`typecheck` compiles test/): a
 * procedure added to or removed from the router, with src/generated/api.ts not generated again,
 * makes this a type error naming the ones that differ.
 */
type Drift = [Exclude<AppProcedurePath, ProcedurePath>, Exclude<ProcedurePath, AppProcedurePath>] extends [never, never]
  ? true
  : { onlyInRouter: Exclude<AppProcedurePath, ProcedurePath>; onlyGenerated: Exclude<ProcedurePath, AppProcedurePath> };
type MustBeTrue<Check extends true> = Check;
export type GeneratedFromRouter = MustBeTrue<Drift>;

const sdkDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const routerPaths = Object.keys((appRouter as unknown as { _def: { procedures: Record<string, unknown> } })._def.procedures).sort();

describe('the SDK covers the router', () => {
  it('has a resource method for every procedure', () => {
    const covered = new Set(Object.values(RESOURCES).flatMap((methods) => Object.values(methods) as string[]));
    expect(routerPaths.filter((path) => !covered.has(path))).toEqual([]);
  });

  it('generated its types from the current router and schemas', async () => {
    expect(Object.keys(PROCEDURE_KINDS).sort()).toEqual(routerPaths);
    expect([...ERROR_REASONS]).toEqual([...SCHEMA_REASONS]);
    // Fails (exit 1) when src/generated/api.ts differs from what the generator writes now.
    await promisify(execFile)(process.execPath, [join(sdkDir, 'node_modules/tsx/dist/cli.mjs'), 'scripts/generate.ts', '--check'], { cwd: sdkDir });
  });
});
