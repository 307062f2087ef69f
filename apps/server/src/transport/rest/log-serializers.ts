import type { FastifyRequest } from 'fastify';
// A CommonJS module whose exports Node cannot name statically: imported whole.
import stdSerializers from 'pino-std-serializers';

/**
 * Query parameters that carry credentials: EventSource and tRPC's SSE link cannot send headers, an
 * OpenID provider returns its authorization code and state in the callback's query, and the
 * unsubscribe link of notification emails carries a signed token that never expires.
 */
const SECRET_PARAMS = ['access_token', 'token', 'connectionParams', 'code', 'state'];

/** A calendar feed's address is its credential (`/ical/<token>.ics`). */
const FEED_TOKEN = /^\/ical\/[^/?]+\.ics/;

/** An invitation's link is its credential: the web app's page (`/invite/<token>`) and its accept route. */
const INVITE_PAGE = /^\/invite\/[^/?]+/;
const INVITE_ACCEPT = /^\/api\/v1\/invitations\/[^/?]+\/accept/;

/** The URL with secret query values, and a calendar feed's or an invitation's token, replaced, for logs. */
export function redactUrl(url: string): string {
  if (FEED_TOKEN.test(url)) url = url.replace(FEED_TOKEN, '/ical/[redacted].ics');
  if (INVITE_PAGE.test(url)) url = url.replace(INVITE_PAGE, '/invite/[redacted]');
  if (INVITE_ACCEPT.test(url)) url = url.replace(INVITE_ACCEPT, '/api/v1/invitations/[redacted]/accept');
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

/** Where a failed statement's parameters sit: drizzle's query error (`params`), postgres.js's in debug mode (`parameters`). */
const PARAMETER_FIELDS = new Set(['params', 'parameters']);

/** The text drizzle adds to its error's message (and so its stack) for each error of the chain that carries parameters. */
function parameterTexts(error: unknown): string[] {
  const texts: string[] = [];
  const seen = new Set<unknown>();
  for (let current = error; current && typeof current === 'object' && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    const { params } = current as { params?: unknown };
    if (params !== undefined) texts.push(`\nparams: ${String(params)}`);
  }
  return texts;
}

/** A copy of the serialized error without parameter fields, nor the parameters' text in its messages and stacks. */
function withoutParameters(value: unknown, texts: string[]): unknown {
  if (typeof value === 'string') return texts.reduce((text, parameters) => text.split(parameters).join(''), value);
  if (Array.isArray(value)) return value.map((item) => withoutParameters(item, texts));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, field]) => (PARAMETER_FIELDS.has(key) ? [] : [[key, withoutParameters(field, texts)]])),
  );
}

/**
 * pino's error serializer, without the parameters of a failed statement: they are what was
 * written or looked up (a token's digest, a user's text), which logs must never hold.
 */
export const errorSerializer = stdSerializers.wrapErrorSerializer(
  (serialized) => withoutParameters(serialized, parameterTexts(serialized.raw)) as Record<string, unknown>,
);
