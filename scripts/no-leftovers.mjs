#!/usr/bin/env node
// Runs a command (`node scripts/no-leftovers.mjs npm test`) and fails, naming them, if it left the
// work tree or the temporary directory otherwise than it found them: a tracked file changed, an
// untracked one added (`git status --porcelain`), or a new entry in the temporary directory.
//
// In the temporary directory only the names the test suites and the tools they start use are
// compared (TRACKED_TMP below: the suites' own directories all begin with `tasklane-`), so
// package managers' caches and locks, and other processes on a shared machine, are not flagged.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';

const TRACKED_TMP = /^(tasklane|vitest|playwright|\.org\.chromium\.|lighthouse)/;

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node scripts/no-leftovers.mjs <command> [args...]');
  process.exit(2);
}

const workTree = () => {
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });
  if (status.status !== 0) throw new Error(`git status failed: ${status.stderr}`);
  return new Set(status.stdout.split('\n').filter(Boolean));
};
const temporary = () => new Set(readdirSync(tmpdir()).filter((name) => TRACKED_TMP.test(name)));

const before = { workTree: workTree(), temporary: temporary() };
const run = spawnSync(command, args, { stdio: 'inherit' });
if (run.error) throw run.error;

const added = (now, then) => [...now].filter((entry) => !then.has(entry)).sort();
const leftovers = [
  ...added(workTree(), before.workTree).map((line) => `work tree: ${line}`),
  ...added(temporary(), before.temporary).map((name) => `${tmpdir()}/${name}`),
];
if (leftovers.length > 0) {
  console.error(`\`${[command, ...args].join(' ')}\` left these behind:\n  ${leftovers.join('\n  ')}`);
  process.exit(1);
}
process.exit(run.status ?? 1);
