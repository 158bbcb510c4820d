/**
 * Child process: modelgate as `npm start` runs it — createGateway with createUndiciFetch() and
 * serve() from adapters/node.ts — with a config pointing both providers at the mock upstream.
 */
import { serve } from '../adapters/node.js';
import { createGateway } from '../src/gateway.js';
import { createUndiciFetch } from '../src/node-fetch.js';
import { onStopMessage } from './child-ipc.js';
import { gatewayConfig } from './settings.js';

const upstream = process.env.BENCH_UPSTREAM;
if (!upstream) throw new Error('BENCH_UPSTREAM is required');
const gateway = createGateway(gatewayConfig(upstream), { fetch: createUndiciFetch(), env: {} });
const server = await serve(gateway, { port: 0, host: '127.0.0.1' });
process.send?.({ type: 'ready', url: server.url });
onStopMessage(() => server.server.close());
