import type { Database } from '@tasklane/db';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's own series (CPU, memory, event-loop lag, GC, handles): collected once per process,
 * in a registry of this module rather than prom-client's global one, and shared by every app of
 * the process, because they describe the process (and the GC and event-loop observers cannot be
 * stopped, so one per app would pile up in tests that build many).
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Seconds; finer than prom-client's default at the low end, where reads answer. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';
export type RateLimit = 'auth_ip' | 'auth_email' | 'token';
export type PasswordOperation = 'hash' | 'verify';

/** One registry per app, so several apps in one process (tests, two instances) keep their own counts. */
export function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  let database: Database | undefined;
  let outboxDepth: (() => Promise<number>) | undefined;

  const poolGauge = (name: string, help: string, read: (stats: ReturnType<Database['poolStats']>) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        if (database) this.set(read(database.poolStats()));
      },
    });
  poolGauge('tasklane_db_pool_connections_max', 'Connections the database pool may open (PGlite: 1)', (stats) => stats.max);
  // Counted by the service around its own statements and transactions (packages/db: tracking.ts).
  poolGauge('tasklane_db_pool_connections_in_use', 'Pool connections running statements or held by a transaction, as the service counts them', (stats) => stats.inUse);
  poolGauge('tasklane_db_pool_waiting', 'Statements and transactions in flight beyond the pool size (queued or pipelined)', (stats) => stats.waiting);
  const queryDuration = new Histogram({
    name: 'tasklane_db_query_duration_seconds',
    help: 'Database statements from issue to result, the wait for a connection included',
    buckets: QUERY_BUCKETS,
    registers,
  });

  // Only with read replicas (DATABASE_REPLICA_URLS): which database ran the statements issued outside transactions.
  const counted = { primary: 0, replica: 0 };
  new Counter({
    name: 'tasklane_db_statements_total',
    help: 'Statements outside transactions by the database role that ran them (with DATABASE_REPLICA_URLS only)',
    labelNames: ['role'],
    registers,
    collect() {
      const statements = database?.replicas?.statements;
      if (!statements) return;
      for (const role of ['primary', 'replica'] as const) {
        this.inc({ role }, statements[role] - counted[role]);
        counted[role] = statements[role];
      }
    },
  });

  new Gauge({
    name: 'tasklane_webhook_outbox_depth',
    help: 'Webhook deliveries pending (due now or waiting for a retry), all instances together',
    registers,
    async collect() {
      if (outboxDepth) this.set(await outboxDepth());
    },
  });

  const metrics = {
    http: {
      requests: new Counter({
        name: 'http_requests_total',
        help: 'HTTP requests answered, by method, route template and status class',
        labelNames: ['method', 'route', 'status_class'] as const,
        registers,
      }),
      duration: new Histogram({
        name: 'http_request_duration_seconds',
        help: 'Time from receiving a request to its answer being sent, by method, route template and status class',
        labelNames: ['method', 'route', 'status_class'] as const,
        buckets: HTTP_BUCKETS,
        registers,
      }),
    },
    eventStreams: new Gauge({
      name: 'tasklane_event_streams_open',
      help: 'Open live event streams (SSE route and tRPC subscriptions)',
      labelNames: ['transport'] as const,
      registers,
    }),
    eventDispatchLag: new Histogram({
      name: 'tasklane_event_dispatch_lag_seconds',
      help: 'Events dispatched by this process (their notifications and webhook deliveries written), from the event to the dispatch\'s commit',
      buckets: QUERY_BUCKETS,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'tasklane_webhook_deliveries_total',
      help: 'Webhook delivery attempts by this process, by outcome: delivered, retrying (failed, retried later) or failed (given up)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    rateLimited: new Counter({
      name: 'tasklane_rate_limit_rejections_total',
      help: 'Requests (or calls of a tRPC batch) refused with 429, by limit: auth_ip, auth_email or token',
      labelNames: ['limit'] as const,
      registers,
    }),
    passwordWork: new Counter({
      name: 'tasklane_password_hashing_total',
      help: 'bcrypt runs (the CPU a password costs), by operation: hash (a new password) or verify (a login or a current password)',
      labelNames: ['operation'] as const,
      registers,
    }),
    /** The database whose pool and statements are measured from now on. */
    observeDatabase(observed: Database) {
      database = observed;
      observed.onQuerySettled((milliseconds) => queryDuration.observe(milliseconds / 1000));
    },
    /** How the webhook outbox's depth is read at each scrape. */
    observeWebhookOutbox(read: () => Promise<number>) {
      outboxDepth = read;
    },
  };
  for (const outcome of ['delivered', 'retrying', 'failed'] satisfies DeliveryOutcome[]) metrics.webhookDeliveries.inc({ outcome }, 0);
  for (const limit of ['auth_ip', 'auth_email', 'token'] satisfies RateLimit[]) metrics.rateLimited.inc({ limit }, 0);
  for (const operation of ['hash', 'verify'] satisfies PasswordOperation[]) metrics.passwordWork.inc({ operation }, 0);
  // Merged last: merge copies the metrics registered so far.
  return { ...metrics, registry: Registry.merge([processMetrics(), registry]) };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** The `route` label of a request that one Fastify route answers for many (REST's catch-all, tRPC's `/:path`). */
export type RouteLabel = (request: FastifyRequest) => string;

/**
 * Counts every answered request by its route *template* (`/api/v1/tasks/{id}`, never the raw URL,
 * so ids do not explode the series), method and status class. `labels` name the requests of a
 * route that stands for many, by the route's own URL; a request no route matched is `unmatched`.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics, labels: Record<string, RouteLabel>): void {
  // One child per label set, found by one string key, so label objects are built once per set
  // (prom-client still checks and hashes them per call: about 1.5 µs a request for both series).
  const children = new Map<string, { count: () => void; observe: (seconds: number) => void }>();
  const routeOf = (request: FastifyRequest) => {
    const url = request.routeOptions.url;
    if (url === undefined) return 'unmatched';
    const label = labels[url];
    return label ? label(request) : url;
  };
  // A callback hook, not an async one: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    const method = request.method;
    const route = routeOf(request);
    const statusClass = `${Math.floor(reply.statusCode / 100)}xx`;
    const key = `${method} ${route} ${statusClass}`;
    let child = children.get(key);
    if (!child) {
      const labels = { method, route, status_class: statusClass };
      const counter = metrics.http.requests.labels(labels);
      const histogram = metrics.http.duration.labels(labels);
      child = { count: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      children.set(key, child);
    }
    child.count();
    child.observe(reply.elapsedTime / 1000);
    done();
  });
}

/** `GET /metrics` in the Prometheus text format. */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
}
