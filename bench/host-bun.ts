/**
 * Child process run by Bun (node_modules/.bin/bun): modelgate on `Bun.serve` through the fetch
 * adapter (adapters/fetch.ts), with Bun's own fetch as the upstream client. Same IPC protocol as
 * the node children (Bun implements node's child_process channel).
 */
import { createFetchHandler } from '../adapters/fetch.js';
import { createGateway } from '../src/gateway/gateway.js';
import { onStopMessage } from './child-ipc.js';
import { gatewayConfig } from './settings.js';

interface BunServer {
  port: number;
  stop(closeActiveConnections?: boolean): void;
}
interface BunRuntime {
  serve(options: { hostname: string; port: number; idleTimeout: number; fetch: (request: Request) => Promise<Response> }): BunServer;
}

const bun = (globalThis as { Bun?: BunRuntime }).Bun;
if (!bun) throw new Error('host-bun must run on Bun');
const upstream = process.env.BENCH_UPSTREAM;
if (!upstream) throw new Error('BENCH_UPSTREAM is required');
const gateway = createGateway(gatewayConfig(upstream), { env: {} });
// idleTimeout 0: long (paced) streams must not be cut by Bun's 10 s default.
const server = bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 0, fetch: createFetchHandler(gateway) });
process.send?.({ type: 'ready', url: `http://127.0.0.1:${server.port}` });
onStopMessage(() => server.stop(true));
