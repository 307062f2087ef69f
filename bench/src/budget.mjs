// What each hello-relative target of issue 5 leaves a request to spend on this machine's cores, set
// against what a run measured: `node bench/src/budget.mjs [bench/results/<run>.json]` (default: the
// newest run with a PostgreSQL section among the JSON files `npm run bench` leaves in bench/results,
// which git ignores: run the bench on this machine first).
//
// A target of r × hello asks for r × hello requests/s. The server, PostgreSQL and the load generator
// share the machine's cores, so at that rate one request may cost at most cores × 1 000 000 / (r × hello)
// µs of CPU in all, and the server's own part must also fit the one JavaScript thread that runs it:
// at most 1 000 000 / (r × hello) µs. The run measured the server's CPU and PostgreSQL's per request;
// the rest of the busy machine (autocannon, the kernel's network and journal work) is what is left
// of its busy time. (PostgreSQL's share counts every postgres process, its background writers too.)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LABELS, POSTGRES_TARGETS } from './report.mjs';

const resultsDir = new URL('../results/', import.meta.url).pathname;
const newest = () =>
  (existsSync(resultsDir) ? readdirSync(resultsDir) : [])
    .filter((name) => /^\d{4}-.*\d\.json$/.test(name))
    .sort()
    .reverse()
    .map((name) => join(resultsDir, name))
    .find((path) => JSON.parse(readFileSync(path, 'utf8')).sections?.some((section) => section.db === 'postgres'));
const path = process.argv[2] ?? newest();
if (!path) throw new Error('no run with a PostgreSQL section in bench/results: run `npm run bench -- --db postgres` first, or name a run\'s JSON file');
const run = JSON.parse(readFileSync(path, 'utf8'));
const section = run.sections.find((candidate) => candidate.db === 'postgres');
if (!section) throw new Error(`${path} has no PostgreSQL section`);
const cores = run.machine.cpus;
const hello = section.baselines.hello;
const n = (value) => Math.round(value).toLocaleString('en-US');

console.log(`${path}\n${cores} cores (${run.machine.cpuModel}), hello ${n(hello)} req/s\n`);
console.log('| scenario | target | target req/s | measured req/s | CPU µs/request the target allows (all cores / the server\'s thread) | measured µs/request: server + PostgreSQL + rest = total | what the target needs |');
console.log('|---|---|---:|---:|---|---|---|');
for (const row of section.rows) {
  const target = POSTGRES_TARGETS[row.scenario]?.hello;
  if (!target) continue;
  const wanted = target * hello;
  const machineAllows = (cores * 1e6) / wanted;
  const threadAllows = 1e6 / wanted;
  const total = (row.machineBusy * cores * 1e6) / row.rps;
  const rest = total - row.cpuUsPerRequest - row.databaseCpuUsPerRequest;
  const needs = [];
  if (row.rps >= wanted) needs.push('met');
  else {
    if (total > machineAllows) needs.push(`${Math.round(100 * (1 - machineAllows / total))} % less CPU per request in all`);
    if (row.cpuUsPerRequest > threadAllows) needs.push(`the server ${Math.round(100 * (1 - threadAllows / row.cpuUsPerRequest))} % less (one thread)`);
    if (needs.length === 0) needs.push('no more CPU: the idle share of the machine');
  }
  console.log(
    `| ${LABELS[row.scenario]} | ${target * 100} % of hello | ${n(wanted)} | ${n(row.rps)} | ${n(machineAllows)} / ${n(threadAllows)} | ${n(row.cpuUsPerRequest)} + ${n(row.databaseCpuUsPerRequest)} + ${n(rest)} = ${n(total)} | ${needs.join('; ')} |`,
  );
}
