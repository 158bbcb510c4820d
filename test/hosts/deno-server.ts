/**
 * Serves a gateway with Deno.serve + the fetch adapter, for the host matrix in test/helpers/hosts.ts.
 * Run: deno run --allow-net --allow-env --allow-read --unstable-sloppy-imports test/hosts/deno-server.ts
 * Config (JSON) and mount prefix come from MODELGATE_TEST_CONFIG / MODELGATE_TEST_PREFIX; the URL is
 * printed as `LISTENING <url>` once the server is up.
 */
import { createFetchHandler } from '../../adapters/fetch.js';
import { createGateway } from '../../src/index.js';

interface DenoServer {
  addr: { port: number };
  shutdown(): Promise<void>;
}
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(opts: { port: number; hostname: string; onListen?: (addr: { port: number }) => void }, handler: (req: Request) => Promise<Response>): DenoServer;
  addSignalListener(signal: 'SIGTERM', fn: () => void): void;
  exit(code: number): never;
};

const config = JSON.parse(Deno.env.get('MODELGATE_TEST_CONFIG') ?? '{}') as Parameters<typeof createGateway>[0];
const prefix = Deno.env.get('MODELGATE_TEST_PREFIX') ?? '';
const gateway = createGateway(config, { env: {} });
const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: () => {} }, createFetchHandler(gateway, { prefix }));
console.log(`LISTENING http://127.0.0.1:${server.addr.port}`);
Deno.addSignalListener('SIGTERM', () => {
  void server.shutdown().then(() => gateway.close()).then(() => Deno.exit(0));
});
