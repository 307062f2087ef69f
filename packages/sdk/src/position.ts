/** The response header that carries a write's position in the server's WAL, and the request header that brings it back. */
export const POSITION_HEADER = 'tasklane-lsn';

/** `X/Y` (two hexadecimal halves) as a pair to compare; undefined for anything else. */
function halves(lsn: string): [number, number] | undefined {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(lsn);
  return match ? [Number.parseInt(match[1]!, 16), Number.parseInt(match[2]!, 16)] : undefined;
}

const later = (a: string, b: string | undefined): boolean => {
  const [x, y] = [halves(a), b === undefined ? undefined : halves(b)];
  if (!x) return false;
  return !y || x[0] > y[0] || (x[0] === y[0] && x[1] > y[1]);
};

/**
 * `fetch` that reads its own writes on a server with read replicas: it keeps the latest position a
 * response named (every write's answer does, when the server has replicas) and sends it with every
 * request after, so a replica serves the read only once it has replayed that write. A server
 * without replicas names none, and nothing is sent.
 */
export function readingOwnWrites(fetchImpl: typeof globalThis.fetch): typeof globalThis.fetch {
  let position: string | undefined;
  return async (input, init) => {
    let sent = init;
    if (position !== undefined) {
      const headers = new Headers(init?.headers);
      if (!headers.has(POSITION_HEADER)) headers.set(POSITION_HEADER, position);
      sent = { ...init, headers };
    }
    const response = await fetchImpl(input, sent);
    const answered = response.headers.get(POSITION_HEADER);
    if (answered !== null && later(answered, position)) position = answered;
    return response;
  };
}
