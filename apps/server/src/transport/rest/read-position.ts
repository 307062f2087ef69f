import type { ReplicaSet } from '@tasklane/db';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The header (and the cookie) that carries a write's position in the primary's WAL back to the reads after it. */
export const POSITION_HEADER = 'tasklane-lsn';
const POSITION_COOKIE = 'tasklane_lsn';
/** Long enough for any replica the service still reads from to have replayed it (REPLICA_MAX_LAG_MS is far less). */
const COOKIE_SECONDS = 300;

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

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
    if (READS.has(request.method) || reply.statusCode >= 400) return payload;
    const position = await replicas.position().catch(() => undefined);
    if (position) {
      reply.header(POSITION_HEADER, position);
      reply.header('set-cookie', `${POSITION_COOKIE}=${position}; Path=/; Max-Age=${COOKIE_SECONDS}; HttpOnly; SameSite=Lax`);
    }
    return payload;
  });
}

/** The position a read must see, from its header or cookie (the later of the two is not worked out: the header wins). */
export function readPositionOf(request: FastifyRequest): string | undefined {
  const header = request.headers[POSITION_HEADER];
  if (typeof header === 'string' && header) return header;
  const cookie = request.headers.cookie;
  if (!cookie) return undefined;
  for (const part of cookie.split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === POSITION_COOKIE && value) return value;
  }
  return undefined;
}
