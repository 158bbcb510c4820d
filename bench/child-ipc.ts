import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Child side of the parent <-> child protocol: answer {type:'cpu'} with process.cpuUsage() and
 * {type:'mem'} with the RSS (the parent reads /proc instead where it can), exit on {type:'stop'}
 * or when the parent goes away.
 */
export function onStopMessage(cleanup: () => void): void {
  const stop = () => {
    try {
      cleanup();
    } finally {
      // process.exit (not a signal) so --cpu-prof gets to write its profile.
      process.exit(0);
    }
  };
  process.on('message', (msg: unknown) => {
    const type = msg && typeof msg === 'object' ? (msg as { type?: unknown }).type : undefined;
    if (type === 'stop') stop();
    else if (type === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ type: 'cpu', micros: user + system });
    } else if (type === 'mem') process.send?.({ type: 'mem', rss: process.memoryUsage().rss });
  });
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
}

/** Listens on an ephemeral loopback port, tells the parent the URL, and closes on stop. */
export function serveChild(server: Server): void {
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}` });
  });
  onStopMessage(() => server.close());
}
