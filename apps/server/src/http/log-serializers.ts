import type { FastifyRequest } from 'fastify';

/**
 * Query parameters that carry credentials: EventSource and tRPC's SSE link cannot send headers, and
 * an OpenID provider returns its authorization code and state in the callback's query.
 */
const SECRET_PARAMS = ['access_token', 'connectionParams', 'code', 'state'];

/** The URL with secret query values replaced, for logs. */
export function redactUrl(url: string): string {
  if (!url.includes('?')) return url;
  const parsed = new URL(url, 'http://localhost');
  let changed = false;
  for (const name of SECRET_PARAMS) {
    if (parsed.searchParams.has(name)) {
      parsed.searchParams.set(name, '[redacted]');
      changed = true;
    }
  }
  return changed ? `${parsed.pathname}${parsed.search}` : url;
}

/** Fastify's default request serializer, with the URL redacted. */
export const requestSerializer = (request: FastifyRequest) => ({
  method: request.method,
  // originalUrl: the URL as received (app.ts); the REST adapter rewrites `url` below its prefix.
  url: redactUrl(request.originalUrl),
  host: request.host,
  remoteAddress: request.ip,
  remotePort: request.socket?.remotePort,
});
