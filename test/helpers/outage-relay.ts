/**
 * A TCP relay in front of a real service (PostgreSQL in the ledger tests) that can go down and come
 * back on the same port, as a database restart looks to its clients: `down()` drops every relayed
 * connection (frozen ones too, with a reset) and resets new ones at once; `up()` relays again. `freeze()` is the other kind of
 * outage, a database that stops answering without closing anything (a failover that leaves the old
 * connections silently dead): every open connection stops carrying bytes for good (it is never
 * closed, so its client waits for ever), and new connections are held unanswered until `up()`.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface OutageRelay {
  port: number;
  down(): void;
  /** Open connections go silent for good; new ones wait, unanswered, until up(). */
  freeze(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startOutageRelay(host: string, port: number): Promise<OutageRelay> {
  const sockets = new Set<Socket>();
  /** Frozen connections and the ones held while frozen: closed only by close() (frozen) or up() (held). */
  const frozen = new Set<Socket>();
  const held = new Set<Socket>();
  let state: 'up' | 'down' | 'frozen' = 'up';
  const server: Server = createServer((client) => {
    client.on('error', () => undefined);
    if (state === 'down') {
      client.resetAndDestroy();
      return;
    }
    if (state === 'frozen') {
      held.add(client);
      return;
    }
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      if (frozen.has(client)) return;
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
      state = 'down';
      for (const s of sockets) s.destroy();
      sockets.clear();
      // A restart resets the silently dead connections too (their clients learn it only now).
      for (const s of frozen) s.resetAndDestroy();
      frozen.clear();
    },
    freeze() {
      state = 'frozen';
      for (const s of sockets) {
        // Nothing more crosses in either direction, and nothing is closed.
        s.unpipe();
        s.pause();
        s.removeAllListeners('data');
        frozen.add(s);
      }
      sockets.clear();
    },
    up() {
      state = 'up';
      for (const s of held) s.destroy();
      held.clear();
    },
    close() {
      for (const s of [...sockets, ...frozen, ...held]) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
