/**
 * Child process: modelgate on Node with createUndiciFetch(), as `npm start` runs it, with a config
 * pointing both providers at the mock upstream. BENCH_HOST picks the host:
 * - `node` (default): serve() from adapters/node-serve.ts, the standalone server's node:http bridge;
 * - `express` / `koa`: the adapters' middleware in an Express 5 / Koa 3 app on node:http.
 * BENCH_UPSTREAM_CONNECTIONS raises the upstream pool (the memory scenario holds 1,000 streams;
 * the standalone server's default is 256 per origin).
 */
import { createServer } from 'node:http';
import { serve } from '../node/index.js';
import { createGateway } from '../src/gateway/gateway.js';
import { createUndiciFetch } from '../node/upstream-fetch.js';
import { onStopMessage, serveChild } from './child-ipc.js';
import { gatewayConfig } from './settings.js';

const upstream = process.env.BENCH_UPSTREAM;
if (!upstream) throw new Error('BENCH_UPSTREAM is required');
const connections = process.env.BENCH_UPSTREAM_CONNECTIONS ? Number(process.env.BENCH_UPSTREAM_CONNECTIONS) : undefined;
const gateway = createGateway(gatewayConfig(upstream), { fetch: createUndiciFetch(connections ? { connections } : {}), env: {} });
const host = process.env.BENCH_HOST ?? 'node';

if (host === 'node') {
  const server = await serve(gateway, { port: 0, host: '127.0.0.1' });
  process.send?.({ type: 'ready', url: server.url });
  onStopMessage(() => server.server.close());
} else if (host === 'express') {
  // Imported only here so the node-bridge child loads exactly what the standalone server loads.
  const [{ default: express }, { modelgate }] = await Promise.all([import('express'), import('../adapters/express.js')]);
  const app = express();
  // BENCH_EXPRESS_JSON=1: express.json() in front, as many apps have it (the adapter reuses its parse).
  if (process.env.BENCH_EXPRESS_JSON === '1') app.use(express.json({ limit: '32mb' }));
  app.use(modelgate(gateway));
  serveChild(createServer(app));
} else if (host === 'koa') {
  const [{ default: Koa }, { modelgate }] = await Promise.all([import('koa'), import('../adapters/koa.js')]);
  const app = new Koa();
  app.use(modelgate(gateway));
  serveChild(createServer(app.callback()));
} else throw new Error(`BENCH_HOST must be node, express or koa, got ${host}`);
