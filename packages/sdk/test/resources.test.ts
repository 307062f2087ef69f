import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ERROR_REASONS as SCHEMA_REASONS } from '@tasklane/schemas';
import { appRouter } from '@tasklane/server/router';
import { describe, expect, it } from 'vitest';
import { ERROR_REASONS, PROCEDURE_KINDS, RESOURCES } from '../src/index';

const sdkDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const routerPaths = Object.keys((appRouter as unknown as { _def: { procedures: Record<string, unknown> } })._def.procedures).sort();

describe('the SDK covers the router', () => {
  it('has a resource method for every procedure (a list method covers its REST-shaped twin)', () => {
    const covered = new Set<string>();
    for (const methods of Object.values(RESOURCES)) {
      for (const path of Object.values(methods) as string[]) {
        covered.add(path);
        if (path.endsWith('Page')) covered.add(path.slice(0, -'Page'.length));
      }
    }
    expect(routerPaths.filter((path) => !covered.has(path))).toEqual([]);
  });

  it('generated its types from the current router and schemas', async () => {
    expect(Object.keys(PROCEDURE_KINDS).sort()).toEqual(routerPaths);
    expect([...ERROR_REASONS]).toEqual([...SCHEMA_REASONS]);
    // Fails (exit 1) when src/generated/api.ts differs from what the generator writes now.
    await promisify(execFile)(process.execPath, [join(sdkDir, 'node_modules/tsx/dist/cli.mjs'), 'scripts/generate.ts', '--check'], { cwd: sdkDir });
  });
});
