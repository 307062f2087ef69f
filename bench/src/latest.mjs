// bench/results/latest.md, the one result file kept in git and quoted by docs/performance.md: the
// newest `npm run bench` run, then the newest `npm run bench:scale` run's section. Each rewrites its
// own part and keeps the other's.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const LATEST = new URL('../results/latest.md', import.meta.url).pathname;
const MARKER = '<!-- scale: written by bench/src/scale.mjs -->';
const current = () => (existsSync(LATEST) ? readFileSync(LATEST, 'utf8') : '');

/** Replaces the run's part, keeping the scale section. */
export function writeLatest(text) {
  const at = current().indexOf(MARKER);
  writeFileSync(LATEST, `${text}\n${at >= 0 ? `\n${current().slice(at)}` : ''}`);
}

/** Replaces the scale section, keeping the run's part. */
export function withScaleSection(text) {
  const before = current().split(MARKER)[0].trimEnd();
  writeFileSync(LATEST, `${before ? `${before}\n\n` : ''}${MARKER}\n\n## Scale\n\n${text}\n`);
}
