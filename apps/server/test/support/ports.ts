import { createServer } from 'node:net';

/**
 * A port nobody listens on now, for a server process the test starts (it must be told its port).
 * In-process servers listen on port 0 instead and read the port they got: fixed ports collide
 * when several runs of the suite share a machine.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
