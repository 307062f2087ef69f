import { once } from 'node:events';
import type { Db } from '@tasklane/db';
import type { Activity } from '@tasklane/schemas';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthService } from '../../resources/auth/service';
import { errorBody, sendError } from '../rest/rest-errors';
import { requireProjectAccess } from '../../resources/policy/access';
import { DomainError } from '../../platform/errors';
import { callRefusal, runWithGrant, SESSION_GRANT } from '../../resources/policy/policy';
import type { AppProcedurePath } from '../trpc/router';
import { tokenNeedOf } from '../trpc/token-scopes';
import { SlowConsumerError, type EventsService } from '../../resources/activity/follow';

/** A client whose unsent output exceeds this is too slow; it is disconnected rather than buffered for. */
const MAX_UNSENT_BYTES = 1024 * 1024;
const EVENT_ID = /^\d{1,18}$/;

export interface EventStreamOptions {
  auth: AuthService;
  events: EventsService;
  db: Db;
  heartbeatMs: number;
}

/** The bearer token from the Authorization header, or from `?access_token=` (EventSource cannot set headers). */
export const authorizationOf = (request: FastifyRequest): string | undefined => {
  const token = (request.query as { access_token?: unknown }).access_token;
  return request.headers.authorization ?? (typeof token === 'string' ? `Bearer ${token}` : undefined);
};

/**
 * `GET /api/v1/projects/{id}/events`: a plain Fastify route, since the REST adapter does not stream.
 * Every open stream is ended when the app closes.
 */
export function registerEventStreamRoute(app: FastifyInstance, options: EventStreamOptions): void {
  const open = openStreamsOf(app);

  app.get('/api/v1/projects/:id/events', async (request: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>, reply) => {
    const caller = await authorizeStream(request, reply, options.auth, 'projects.events');
    if (!caller) return;
    const { userId, grant, lastEventId } = caller;
    try {
      await runWithGrant(grant, () => requireProjectAccess(options.db, request.params.id, userId));
    } catch (error) {
      if (error instanceof DomainError) return sendError(request, reply, 404, errorBody(404, error.message));
      throw error;
    }
    await serveStream(request, reply, open, options.heartbeatMs, formatEvent, (signal, cutOff) =>
      runWithGrant(grant, () => options.events.follow(userId, request.params.id, { lastEventId: lastEventId ?? null, signal, transport: 'sse', cutOff })),
    );
  });
}

/**
 * The caller of a stream request, its grant and the `Last-Event-ID` it resumes after (header, or
 * `?lastEventId=`); undefined once a refusal (401, 403, 400) has been sent.
 */
export async function authorizeStream(request: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply: FastifyReply, auth: AuthService, procedure: AppProcedurePath) {
  const claims = await auth.identify(authorizationOf(request));
  const userId = claims && (await auth.isCurrent(claims)) ? claims.userId : null;
  if (!userId) {
    reply.header('www-authenticate', 'Bearer');
    return void (await sendError(request, reply, 401, errorBody(401, 'Missing, invalid or expired token')));
  }
  // The same stream as the tRPC subscription, so the same rule: any scope may read it, in the projects its token reaches.
  const grant = claims?.grant ?? SESSION_GRANT;
  const refusal = callRefusal(grant, procedure, tokenNeedOf(procedure));
  if (refusal) return void (await sendError(request, reply, 403, errorBody(403, refusal.message, refusal.reason)));
  const lastEventId = (request.headers['last-event-id'] as string | undefined) ?? request.query.lastEventId;
  if (lastEventId !== undefined && !EVENT_ID.test(lastEventId)) {
    return void (await sendError(request, reply, 400, errorBody(400, 'Last-Event-ID must be an event id', 'INVALID_EVENT_ID')));
  }
  return { userId, grant, lastEventId };
}

/**
 * Serves the stream `start` opens as Server-Sent Events until it ends, the client leaves or the app
 * closes (`open` holds the app's open streams, ended on close).
 */
export async function serveStream<Entry>(
  request: FastifyRequest,
  reply: FastifyReply,
  open: Set<AbortController>,
  heartbeatMs: number,
  format: (entry: Entry) => string,
  start: (signal: AbortSignal, cutOff: (error: SlowConsumerError) => void) => Promise<AsyncGenerator<Entry>>,
): Promise<void> {
  // HEAD: the head GET would send, and no stream behind it.
  if (request.method === 'HEAD') {
    reply.hijack();
    reply.raw.writeHead(200, streamHead(request, reply)).end();
    return;
  }
  const controller = new AbortController();
  open.add(controller);
  // From here on: a client that leaves while the stream is still subscribing must release it too.
  reply.raw.once('close', () => controller.abort());
  try {
    let cutOff: SlowConsumerError | undefined;
    const events = await start(controller.signal, (error) => {
      cutOff = error;
      controller.abort();
    });
    await writeStream(request, reply, events, format, controller, heartbeatMs, () => cutOff);
  } finally {
    open.delete(controller);
  }
}

/** The status line's headers of a stream. */
const streamHead = (request: FastifyRequest, reply: FastifyReply) => ({
  ...(reply.getHeaders() as Record<string, string>),
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
  'x-request-id': request.id,
});

/** The set of a Fastify app's open streams, each aborted when the app closes. */
export function openStreamsOf(app: FastifyInstance): Set<AbortController> {
  const open = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const stream of open) stream.abort();
  });
  return open;
}

/** One SSE event; JSON has no raw newlines, so the data fits on one `data:` line. */
const formatEvent = (entry: Activity) => `id: ${entry.id}\nevent: ${entry.type}\ndata: ${JSON.stringify(entry)}\n\n`;

/** The frame that tells a client why its stream ends (no `id:`, so a reconnect still resumes after the last event). */
const formatStreamError = (error: SlowConsumerError) => `event: stream-error\ndata: ${JSON.stringify(errorBody(429, error.message, error.reason))}\n\n`;

async function writeStream<Entry>(
  request: FastifyRequest,
  reply: FastifyReply,
  events: AsyncGenerator<Entry>,
  format: (entry: Entry) => string,
  controller: AbortController,
  heartbeatMs: number,
  cutOff: () => SlowConsumerError | undefined,
): Promise<void> {
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, streamHead(request, reply));
  // Heartbeats ignore backpressure but are tiny. A client that stops reading is cut off when its
  // queue of events overflows; on a project too quiet for that, this bound catches it in the end.
  const heartbeat = setInterval(() => {
    response.write(': heartbeat\n\n');
    if (response.writableLength > MAX_UNSENT_BYTES) controller.abort();
  }, heartbeatMs);
  response.on('close', () => controller.abort());
  response.write(': connected\n\n');
  let error: unknown;
  try {
    // Waiting for the socket to drain lets events queue in the stream's bounded queue instead of
    // in memory here; when that queue overflows, follow() aborts the controller, which ends this wait.
    for await (const entry of events) {
      if (!response.write(format(entry))) await once(response, 'drain', { signal: controller.signal });
    }
  } catch (caught) {
    error = caught;
  } finally {
    clearInterval(heartbeat);
  }
  const slow = cutOff() ?? (error instanceof SlowConsumerError ? error : undefined);
  if (slow) {
    request.log.info({ reason: slow.reason }, 'event stream cut off: the client fell too far behind');
    response.write(formatStreamError(slow));
  } else if (error && !controller.signal.aborted) request.log.warn({ err: error }, 'event stream ended by an error');
  response.end();
  // A client that does not read does not take the end either, and would hold its connection (and
  // what is unsent) for good: it gets one heartbeat interval to read the rest, then is dropped.
  if (!response.writableFinished && !response.destroyed) {
    const drop = setTimeout(() => response.destroy(), heartbeatMs);
    response.once('close', () => clearTimeout(drop));
  }
}
