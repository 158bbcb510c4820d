/**
 * A TCP relay in front of a real service (Redis in the tests): `cut()` stops accepting and drops
 * every open connection, as a network outage would, while the service itself keeps running.
 */
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpRelay {
  port: number;
  /** Stop accepting and drop every relayed connection; resolves once the listener is closed. */
  cut(): Promise<void>;
}

export async function startTcpRelay(target: URL, defaultPort: number): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || defaultPort), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  let cut: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      cut ??= new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      return cut;
    },
  };
}
