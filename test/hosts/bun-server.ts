/**
 * Serves a gateway with Bun.serve + the fetch adapter, for the host matrix in test/helpers/hosts.ts.
 * Config (JSON) and mount prefix come from MODELGATE_TEST_CONFIG / MODELGATE_TEST_PREFIX; the URL is
 * printed as `LISTENING <url>` once the server is up.
 */
import { createFetchHandler } from '../../adapters/fetch.js';
import { createGateway } from '../../src/index.js';

interface BunServer {
  port: number;
  stop(closeActiveConnections?: boolean): void;
}
declare const Bun: {
  serve(opts: { port: number; hostname: string; idleTimeout?: number; fetch: (req: Request) => Promise<Response> }): BunServer;
};

const config = JSON.parse(process.env.MODELGATE_TEST_CONFIG ?? '{}') as Parameters<typeof createGateway>[0];
const prefix = process.env.MODELGATE_TEST_PREFIX ?? '';
const gateway = createGateway(config);
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 0, fetch: createFetchHandler(gateway, { prefix }) });
console.log(`LISTENING http://127.0.0.1:${server.port}`);
process.on('SIGTERM', () => {
  server.stop(true);
  void gateway.close().then(() => process.exit(0));
});
