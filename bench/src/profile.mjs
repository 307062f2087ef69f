// A CPU profile of the server (`npm run bench -- --profile --scenarios <one> --rounds 1`) summed
// up over the last stretch of at least 2 s in which the server was busy (the measured scenario:
// not its start, the logins or the warm-up): the share of its busy samples by where the code comes
// from (a package, the service's own code, Node itself) and the functions with the most self time.
//   node bench/src/profile.mjs bench/results/profiles/<run>/<file>.cpuprofile [top]
import { readFileSync } from 'node:fs';

const [file, top = '25'] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/src/profile.mjs <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8'));
const idleIds = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
// Sample times, then 250 ms bins: busy when under 70 % of the bin's samples are idle.
const times = [];
let clock = profile.startTime;
for (const delta of profile.timeDeltas) times.push((clock += delta));
const BIN = 250_000;
const bins = new Map();
profile.samples.forEach((id, index) => {
  const bin = Math.floor((times[index] - profile.startTime) / BIN);
  const counts = bins.get(bin) ?? { idle: 0, all: 0 };
  counts.all += 1;
  if (idleIds.has(id)) counts.idle += 1;
  bins.set(bin, counts);
});
const lastBin = Math.max(...bins.keys());
let stretch;
for (let bin = 0, start = -1; bin <= lastBin + 1; bin++) {
  const counts = bins.get(bin);
  const busy = counts && counts.idle / counts.all < 0.7;
  if (busy && start < 0) start = bin;
  if (!busy && start >= 0) {
    if (bin - start >= 8) stretch = [start, bin];
    start = -1;
  }
}
if (!stretch) throw new Error('no busy stretch of 2 s or more in this profile');
const within = (index) => {
  const bin = Math.floor((times[index] - profile.startTime) / BIN);
  return bin >= stretch[0] && bin < stretch[1];
};
const selfSamples = new Map();
let total = 0;
profile.samples.forEach((id, index) => {
  if (!within(index) || idleIds.has(id)) return;
  selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
  total += 1;
});

/** Where a function's code lives: a package name, "service" (apps/server, packages/*), "node", or what V8 calls it. */
function originOf(url, name) {
  if (!url) return name.startsWith('(') ? name : 'node (native)';
  const match = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1];
  if (url.startsWith('node:')) return 'node';
  if (url.includes('/apps/server/dist/')) {
    return 'service (apps/server, packages/*)';
  }
  return url;
}

const byOrigin = new Map();
const byFunction = new Map();
for (const node of profile.nodes) {
  const samples = selfSamples.get(node.id) ?? 0;
  if (!samples) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const origin = originOf(url, functionName);
  byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + samples);
  const key = `${functionName || '(anonymous)'} ${origin}:${lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + samples);
}
const share = (samples) => `${((100 * samples) / total).toFixed(1)} %`;
console.log(`${file}: ${total} busy samples in the last busy stretch (${((stretch[1] - stretch[0]) * BIN / 1e6).toFixed(2)} s)\n\nby origin (share of busy samples):`);
for (const [origin, samples] of [...byOrigin].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${share(samples).padStart(7)}  ${origin}`);
console.log(`\ntop ${top} functions by self time:`);
for (const [key, samples] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) console.log(`  ${share(samples).padStart(7)}  ${key}`);
