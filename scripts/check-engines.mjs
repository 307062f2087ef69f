#!/usr/bin/env node
// Fails, naming them, when an installed package's `engines.node` admits no Node 20 release: the
// README promises Node >= 20, and such a package may use what Node 20 lacks. Reads the packages
// pnpm installed (node_modules/.pnpm), whatever Node runs this script. Run after the install.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

const PROMISED = '>=20.0.0 <21.0.0';
const store = new URL('../node_modules/.pnpm/', import.meta.url).pathname;

/** The package directories of one store entry: its own package, not the links to its dependencies. */
function* packagesIn(modules) {
  for (const name of readdirSync(modules)) {
    const path = join(modules, name);
    if (name.startsWith('@')) yield* packagesIn(path);
    else if (!lstatSync(path).isSymbolicLink()) yield path;
  }
}

const refused = new Set();
for (const entry of readdirSync(store, { withFileTypes: true })) {
  // node_modules: the links pnpm hoists for the store's own use, not packages of their own.
  if (!entry.isDirectory() || entry.name === 'node_modules') continue;
  for (const dir of packagesIn(join(store, entry.name, 'node_modules'))) {
    const { name, version, engines } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const range = engines?.node;
    if (typeof range === 'string' && semver.validRange(range) && !semver.intersects(range, PROMISED)) refused.add(`${name}@${version} wants node ${range}`);
  }
}

if (refused.size > 0) {
  console.error(`Installed packages that exclude Node 20 (README: Node >= 20); pin versions that allow it:\n  ${[...refused].sort().join('\n  ')}`);
  process.exit(1);
}
console.log('engines: every installed package allows Node 20');
