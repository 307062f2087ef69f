// Where each scenario's cost goes, from a run's CPU per request on both sides (server process and
// PostgreSQL), against its bare floor: what the service (its promises: access check, history,
// webhooks, notifications, announcements; and its code) adds to the plain read or write, on the
// server and in PostgreSQL. Which part of it is the server's own code, a `--profile` run says
// (profile.mjs).
//   node bench/src/budget.mjs [bench/results/<run>.json]   (default: the newest run with PostgreSQL)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LABELS } from './report.mjs';

const resultsDir = new URL('../results/', import.meta.url).pathname;
const newest = () =>
  (existsSync(resultsDir) ? readdirSync(resultsDir) : [])
    .filter((name) => /^\d{4}-.*\d\.json$/.test(name))
    .sort()
    .reverse()
    .map((name) => join(resultsDir, name))
    .find((path) => JSON.parse(readFileSync(path, 'utf8')).sections?.some((section) => section.db === 'postgres' && section.rows.some((row) => row.floors)));
const path = process.argv[2] ?? newest();
if (!path) throw new Error('no run with floors in bench/results: run `npm run bench -- --db postgres` first, or name a run\'s JSON file');
const run = JSON.parse(readFileSync(path, 'utf8'));
const section = run.sections.find((candidate) => candidate.db === 'postgres');
const n = (value) => Math.round(value).toLocaleString('en-US');
const signed = (value) => `${value >= 0 ? '+' : '−'}${n(Math.abs(value))}`;

console.log(`${path}\n`);
console.log('| scenario | server µs/req: service / bare | PostgreSQL µs/req: service / bare | the service adds to the bare work: server, PostgreSQL |');
console.log('|---|---|---|---|');
for (const row of section.rows.filter((candidate) => candidate.floors)) {
  const { bare } = row.floors;
  console.log(
    `| ${LABELS[row.scenario]} | ${n(row.cpuUsPerRequest)} / ${n(bare.cpuUsPerRequest)} | ${n(row.databaseCpuUsPerRequest)} / ${n(bare.databaseCpuUsPerRequest)} | ${signed(row.cpuUsPerRequest - bare.cpuUsPerRequest)}, ${signed(row.databaseCpuUsPerRequest - bare.databaseCpuUsPerRequest)} |`,
  );
}
