import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to a PostgreSQL server, standing where a load balancer or a moved DNS name would:
 * `stop()` refuses new connections and cuts the open ones; `start()` listens again on the same port,
 * towards `upstreamPort` (which `retarget` changes, as a failover points the address elsewhere).
 */
export function tcpProxy(upstreamPort: number) {
  let server: Server | undefined;
  /** Port 0 at first; a restart listens where the server's pool connects. */
  let port = 0;
  let upstream = upstreamPort;
  const sockets = new Set<Socket>();
  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const target = connect(upstream, '127.0.0.1');
        for (const socket of [client, target]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {});
        }
        client.pipe(target).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });
  return {
    start,
    stop,
    port: () => port,
    retarget: (next: number) => {
      upstream = next;
    },
  };
}
