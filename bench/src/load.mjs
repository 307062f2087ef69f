// The load generator, run as its own process so it never shares an event loop with a server.
// Usage: node load.mjs <spec.json>; prints one JSON line with the result.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { primeWritesFrom, rememberWritten, requestFor, writtenEntries } from './scenarios.mjs';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const fixtures = spec.fixtures;
rememberWritten(spec.written ?? []);
if (spec.writesDatabaseUrl) await primeWritesFrom(spec.writesDatabaseUrl, fixtures);
let nextConnection = 0;
let turns = [];
const errorSamples = [];

const step = {
  setupRequest(request, context) {
    context.fixture ??= nextConnection++ % fixtures.length;
    const turn = (turns[context.fixture] = (turns[context.fixture] ?? -1) + 1);
    const built = requestFor(spec.scenario, fixtures[context.fixture], turn);
    return { ...request, ...built, headers: { ...request.headers, ...built.headers } };
  },
  onResponse(status, body) {
    if ((status < 200 || status > 299) && errorSamples.length < 5) errorSamples.push({ status, body: String(body).slice(0, 300) });
  },
};

/**
 * autocannon gives each connection a fresh copy of `initialContext` after every pass over its
 * request list; seeding that copy with the connection's fixture keeps its own token all run long.
 */
function setupClient(client) {
  client.requestIterator.initialContext = { fixture: client.requestIterator.context.fixture };
}

function run(duration) {
  return autocannon({ url: spec.url, connections: spec.connections, duration, requests: [step], setupClient, timeout: 30 });
}

let warmupRequests = 0;
if (spec.warmup > 0) {
  warmupRequests = (await run(spec.warmup)).requests.total;
  errorSamples.length = 0;
  nextConnection = 0;
  turns = [];
}
const result = await run(spec.duration);
const errors = result.errors + result.timeouts + result.non2xx;
process.stdout.write(
  `${JSON.stringify({
    scenario: spec.scenario,
    connections: spec.connections,
    duration: spec.duration,
    requests: result.requests.total,
    warmupRequests,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors,
    statusCodes: result.statusCodeStats,
    errorSamples,
    written: writtenEntries(),
  })}\n`,
);
