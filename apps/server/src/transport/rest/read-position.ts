import { parseLsn, type ReplicaSet } from '@tasklane/db';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The header (and the cookie) that carries a write's position in the primary's WAL back to the reads after it. */
export const POSITION_HEADER = 'tasklane-lsn';
const POSITION_COOKIE = 'tasklane_lsn';
/** Long enough for any replica the service still reads from to have replayed it (REPLICA_MAX_LAG_MS is at most 5 min). */
const COOKIE_SECONDS = 600;

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Requests of a reading method that wrote all the same (a sign-on callback makes a session). */
const wroteOnRead = new WeakSet<FastifyRequest>();

/** Marks a request that opened a transaction or ran a write: its answer carries a position whatever its method. */
export const markWrote = (request: FastifyRequest): void => {
  wroteOnRead.add(request);
};

/**
 * Read-your-writes across read replicas (docs/operations.md, "Read replicas"). Every successful
 * write's answer carries the primary's WAL position after its commit, in the `Tasklane-Lsn` header
 * and a cookie (the web app's other tabs send it too); a read that brings either back is served by a
 * replica only once that replica has replayed it (@tasklane/db replicas.ts). Without replicas
 * nothing is added and nothing is read.
 */
export function registerReadPosition(app: FastifyInstance, replicas: ReplicaSet | undefined): void {
  if (!replicas) return;
  app.addHook('onSend', async (request, reply, payload) => {
    if ((READS.has(request.method) && !wroteOnRead.has(request)) || reply.statusCode >= 400) return payload;
    const position = await replicas.position().catch(() => undefined);
    if (position) {
      reply.header(POSITION_HEADER, position);
      reply.header('set-cookie', `${POSITION_COOKIE}=${position}; Path=/; Max-Age=${COOKIE_SECONDS}; HttpOnly; SameSite=Lax`);
    }
    return payload;
  });
}

/**
 * The position a read must see: the later of its header and its cookie (a tab's own header may be
 * older than the cookie another tab's write set). Anything that is not a position is ignored.
 */
export function readPositionOf(request: FastifyRequest): bigint | undefined {
  const header = request.headers[POSITION_HEADER];
  let latest = typeof header === 'string' ? parseLsn(header) : undefined;
  for (const part of request.headers.cookie?.split(';') ?? []) {
    const [name, value] = part.trim().split('=', 2);
    if (name !== POSITION_COOKIE) continue;
    const position = parseLsn(value);
    if (position !== undefined && (latest === undefined || position > latest)) latest = position;
  }
  return latest;
}
