/**
 * A TCP relay in front of a real service (PostgreSQL in the ledger tests) that can go down and come
 * back on the same port, as a database restart looks to its clients: `down()` drops every relayed
 * connection and resets new ones at once; `up()` relays again.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface OutageRelay {
  port: number;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startOutageRelay(host: string, port: number): Promise<OutageRelay> {
  const sockets = new Set<Socket>();
  let isDown = false;
  const server: Server = createServer((client) => {
    if (isDown) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    down() {
      isDown = true;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    up() {
      isDown = false;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
