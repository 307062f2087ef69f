import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: { id: string; type: string; time: string; taskId: string | null; resource: Record<string, unknown> };
  signatureValid: boolean;
}

/** A webhook receiver as a customer would write it: verifies the signature as docs/events.md shows. */
export function startReceiver(secretOf: () => string) {
  let server: Server | undefined;
  /** Port 0 at first; a restart listens where deliveries are addressed. */
  let port = 0;
  const received: ReceivedDelivery[] = [];
  let status = 200;

  const verify = (secret: string, timestamp: string, body: string, header: string) => {
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`);
    const given = Buffer.from(header);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };

  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((request, response) => {
        let raw = '';
        request.setEncoding('utf8');
        request.on('data', (chunk: string) => (raw += chunk));
        request.on('end', () => {
          const signatureValid = verify(secretOf(), String(request.headers['x-tasklane-timestamp']), raw, String(request.headers['x-tasklane-signature']));
          if (status < 300) received.push({ headers: request.headers, body: JSON.parse(raw), signatureValid });
          response.writeHead(signatureValid ? status : 401).end();
        });
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });

  return {
    /** Known once the receiver has started. */
    get url() {
      if (!port) throw new Error('the receiver has not started yet');
      return `http://127.0.0.1:${port}/hook`;
    },
    received,
    start,
    /** Stops listening: deliveries then fail with a refused connection. */
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    /** The status the receiver answers with (a non-2xx one records nothing). */
    answerWith: (next: number) => {
      status = next;
    },
  };
}
