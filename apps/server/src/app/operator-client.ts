import { request, type IncomingMessage } from 'node:http';
import { operatorSocketPath } from './data-dir';

/** What tells that no server listens on DATA_DIR's socket: none was ever made, or its server died. */
const NO_SERVER = new Set(['ENOENT', 'ECONNREFUSED']);

/**
 * One request to the server running on DATA_DIR, over its operator socket (src/transport/operator/server.ts);
 * undefined when no server runs there, so the caller opens the directory itself.
 */
export function askRunningServer(dataDir: string, path: string, body?: unknown): Promise<IncomingMessage | undefined> {
  const socketPath = operatorSocketPath(dataDir);
  if (!socketPath) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        socketPath,
        path,
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      },
      resolve,
    );
    sent.on('error', (error: NodeJS.ErrnoException) => (error.code && NO_SERVER.has(error.code) ? resolve(undefined) : reject(error)));
    sent.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** A response's whole body as JSON (the channel's answers are small). */
export async function jsonOf(response: IncomingMessage): Promise<{ message?: string }> {
  let text = '';
  for await (const chunk of response) text += String(chunk);
  try {
    return JSON.parse(text) as { message?: string };
  } catch {
    return { message: text };
  }
}
