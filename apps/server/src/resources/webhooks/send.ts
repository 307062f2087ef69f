import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { literalHostRefused, publicOnlyLookup } from './target';

export interface DeliveryAttempt {
  url: string;
  secret: string;
  body: string;
  deliveryId: number;
  eventType: string;
}

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** `sha256=<hex HMAC-SHA256 of "timestamp.body">`, the value of X-Tasklane-Signature. */
export const signature = (secret: string, timestamp: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

/** POSTs one delivery; any 2xx counts as delivered. Never throws. */
export function sendDelivery(attempt: DeliveryAttempt, options: { timeoutMs: number; allowPrivate: boolean }): Promise<AttemptResult> {
  const url = new URL(attempt.url);
  if (!options.allowPrivate && literalHostRefused(url)) {
    return Promise.resolve({ ok: false, status: null, error: 'target address is not public' });
  }
  const timestamp = String(Math.floor(Date.now() / 1000));
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(attempt.body),
          'user-agent': 'Tasklane-Webhooks/1',
          'x-tasklane-event': attempt.eventType,
          'x-tasklane-delivery': String(attempt.deliveryId),
          'x-tasklane-timestamp': timestamp,
          'x-tasklane-signature': signature(attempt.secret, timestamp, attempt.body),
        },
        signal: AbortSignal.timeout(options.timeoutMs),
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        // The body is not needed; draining it lets the socket close cleanly.
        response.resume();
        response.on('end', () => resolve({ ok: status >= 200 && status < 300, status, error: status >= 200 && status < 300 ? null : `HTTP ${status}` }));
        response.on('error', (error) => resolve({ ok: false, status, error: error.message }));
      },
    );
    outgoing.on('error', (error) =>
      resolve({ ok: false, status: null, error: error.name === 'AbortError' || error.name === 'TimeoutError' ? `no response within ${options.timeoutMs} ms` : error.message }),
    );
    outgoing.end(attempt.body);
  });
}
