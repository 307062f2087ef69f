import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const sdkDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name: string) => join(sdkDir, 'node_modules/.bin', name);

async function files(dir: string): Promise<Map<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const found = new Map<string, string>();
  for (const entry of entries.filter((item) => item.isFile())) {
    const path = join(entry.parentPath, entry.name);
    found.set(relative(dir, path), await readFile(path, 'utf8'));
  }
  return found;
}

describe('the package as the ecosystem checks it', () => {
  it('publint (strict) and arethetypeswrong find no problem in the packed package', async () => {
    // Each exits non-zero on a problem, which rejects here with its report.
    await run(bin('publint'), ['--pack', 'npm', '--strict'], { cwd: sdkDir });
    await run(bin('attw'), ['--pack', '.', '--format', 'ascii'], { cwd: sdkDir });
  });

  it('the API reference in docs/sdk is what TypeDoc generates from the current source', async () => {
    const out = await mkdtemp(join(tmpdir(), 'tasklane-sdk-typedoc-'));
    try {
      await run(bin('typedoc'), ['--out', out, '--logLevel', 'Error'], { cwd: sdkDir });
      const fresh = await files(out);
      const committed = await files(join(sdkDir, '../../docs/sdk'));
      expect([...committed.keys()].sort(), 'run `pnpm --filter @tasklane/sdk docs`').toEqual([...fresh.keys()].sort());
      for (const [path, text] of fresh) expect(committed.get(path), `docs/sdk/${path} is stale: run \`pnpm --filter @tasklane/sdk docs\``).toBe(text);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
