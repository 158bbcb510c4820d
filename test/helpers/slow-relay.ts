/**
 * A TCP relay in front of a real service (Redis in the budget tests) that can turn slow: with a
 * delay set, every chunk waits that long before it is passed on, in order, as a store under load
 * answers late. `setDelay(0)` makes it fast again.
 */
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface SlowRelay {
  port: number;
  setDelay(ms: number): void;
  close(): Promise<void>;
}

export async function startSlowRelay(host: string, port: number): Promise<SlowRelay> {
  const sockets = new Set<Socket>();
  let delay = 0;
  const forward = (from: Socket, to: Socket) => {
    let chain = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      const wait = delay;
      chain = chain.then(async () => {
        if (wait) await new Promise((r) => setTimeout(r, wait));
        if (!to.destroyed) to.write(chunk);
      });
    });
  };
  const server = createServer((client) => {
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    forward(client, upstream);
    forward(upstream, client);
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
    setDelay(ms) {
      delay = ms;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
