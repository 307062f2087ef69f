import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The dependency patches fix bugs (patches/README.md). Not every fix has a behavioural test that
// reaches it on every database (postgres.js's `unlisten` after a reconnect only on PostgreSQL), and a
// patch can stop being applied quietly (a `patchedDependencies` line dropped, a version bumped with
// the patch re-keyed but emptied). This reads each patch and checks that every line it adds is in the
// installed file that the workspace resolves.
const root = join(import.meta.dirname, '../../../..');
const workspace = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
const patchesReadme = readFileSync(join(root, 'patches/README.md'), 'utf8');

/** The `patchedDependencies:` block alone: `overrides:` has entries of the same shape (`name@range: version`). */
const patchedBlock = /^patchedDependencies:\n((?: {2}.*\n?)*)/m.exec(workspace)?.[1] ?? '';

const declared = [...patchedBlock.matchAll(/^ {2}'?((?:@[^/\s]+\/)?[^@\s']+)@([^':\s]+)'?:\s*(\S+)\s*$/gm)].map(
  ([, name, version, file]) => ({ name: name!, version: version!, file: file! }),
);

/** Every place in the workspace where the package resolves, at the patched version. */
function installedCopies(name: string, version: string): string[] {
  const owners = [root, ...['apps', 'packages'].flatMap((dir) => readdirSync(join(root, dir)).map((entry) => join(root, dir, entry))), join(root, 'bench')];
  const copies = new Set<string>();
  for (const owner of owners) {
    const candidate = join(owner, 'node_modules', name);
    if (!existsSync(join(candidate, 'package.json'))) continue;
    const real = realpathSync(candidate);
    if (JSON.parse(readFileSync(join(real, 'package.json'), 'utf8')).version === version) copies.add(real);
  }
  return [...copies];
}

/** file → lines the patch adds to it (blank lines and lines of only punctuation say nothing). */
function addedLines(patch: string): Map<string, string[]> {
  const byFile = new Map<string, string[]>();
  for (const section of patch.split(/^diff --git /m).slice(1)) {
    const file = /^a\/(\S+) b\//.exec(section)?.[1];
    if (!file) continue;
    const lines = section
      .split('\n')
      .filter((line) => line.startsWith('+') && !line.startsWith('+++'))
      .map((line) => line.slice(1).trim())
      .filter((line) => /[A-Za-z0-9]/.test(line));
    if (lines.length) byFile.set(file, lines);
  }
  return byFile;
}

describe('dependency patches', () => {
  it('declares at least one patch, each listed in patches/README.md', () => {
    expect(declared.length).toBeGreaterThan(0);
    for (const { name, version } of declared) expect(patchesReadme, `${name}@${version}`).toContain(`${name}@${version}`);
  });

  for (const { name, version, file } of declared) {
    it(`${name}@${version} is applied to every installed copy`, () => {
      const copies = installedCopies(name, version);
      expect(copies.length, `${name}@${version} is not installed in the workspace`).toBeGreaterThan(0);
      const added = addedLines(readFileSync(join(root, file), 'utf8'));
      expect(added.size).toBeGreaterThan(0);
      for (const copy of copies) {
        for (const [patched, lines] of added) {
          const installed = new Set(readFileSync(join(copy, patched), 'utf8').split('\n').map((line) => line.trim()));
          const missing = lines.filter((line) => !installed.has(line));
          expect(missing, `${copy}/${patched}`).toEqual([]);
        }
      }
    });
  }
});
