import type { FastifyInstance } from 'fastify';
import { Gauge, Registry } from 'prom-client';

/** One registry per app, so several apps in one process (tests, two instances) keep their own counts. */
export function createMetrics() {
  const registry = new Registry();
  return {
    registry,
    eventStreams: new Gauge({
      name: 'tasklane_event_streams_open',
      help: 'Open live event streams (SSE route and tRPC subscriptions)',
      labelNames: ['transport'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** `GET /metrics` in the Prometheus text format. */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
}
