/**
 * Child process: modelgate on Node with createUndiciFetch(), as `npm start` runs it, with a config
 * pointing both providers at the mock upstream. BENCH_HOST picks the host:
 * - `node` (default): serve() from adapters/node-serve.ts, the standalone server's node:http bridge;
 * - `express` / `koa`: the adapters' middleware in an Express 5 / Koa 3 app on node:http.
 * BENCH_UPSTREAM_CONNECTIONS raises the upstream pool (the memory scenario holds 1,000 streams;
 * the standalone server's default is 256 per origin). BENCH_CONTROL=sqlite turns the control plane
 * on as the standalone server has it (node/control.ts on a SQLite file in a temp dir: keys from the
 * store, the usage ledger written in batches): the config has no keys, a store key is created and
 * its secret sent to the parent with the URL.
 */
import { createServer } from 'node:http';
import { serve } from '../node/index.js';
import { createGateway } from '../src/gateway/gateway.js';
import { createUndiciFetch } from '../node/upstream-fetch.js';
import { onStopMessage, serveChild } from './child-ipc.js';
import { gatewayConfig } from './settings.js';
import type { LedgerRecorder } from '../src/control/ledger/ledger-recorder.js';

const upstream = process.env.BENCH_UPSTREAM;
if (!upstream) throw new Error('BENCH_UPSTREAM is required');
const connections = process.env.BENCH_UPSTREAM_CONNECTIONS ? Number(process.env.BENCH_UPSTREAM_CONNECTIONS) : undefined;
const controlMode = process.env.BENCH_CONTROL;
if (controlMode !== undefined && controlMode !== 'sqlite') throw new Error(`BENCH_CONTROL must be sqlite, got ${controlMode}`);
// Imported only here, so the config-keys server loads exactly what it loaded before the control plane existed.
const opened = controlMode ? await (await import('./control-store.js')).openBenchControlStore('bench') : undefined;
const storeKey = opened?.platformKey;
const config = opened ? { ...gatewayConfig(upstream), keys: [] } : gatewayConfig(upstream);
const gateway = createGateway(config, { fetch: createUndiciFetch(connections ? { connections } : {}), env: {}, ...(opened ? { control: opened.control } : {}), ...(await ledgerOverride()) });
const host = process.env.BENCH_HOST ?? 'node';

/**
 * BENCH_CONTROL_LEDGER (diagnosis, with BENCH_CONTROL): `none` drops every ledger row, `queue`
 * queues them for a sink that stores nothing; what the control plane costs besides its database.
 */
async function ledgerOverride(): Promise<{ ledger?: LedgerRecorder }> {
  const mode = process.env.BENCH_CONTROL_LEDGER;
  if (mode === undefined || mode === '') return {};
  if (mode === 'none') return { ledger: { enqueue: () => true } };
  if (mode === 'queue') return { ledger: new (await import('../src/control/ledger/ledger-queue.js')).LedgerQueue({ write: async () => undefined }) };
  throw new Error(`BENCH_CONTROL_LEDGER must be none or queue, got ${mode}`);
}

if (host === 'node') {
  const server = await serve(gateway, { port: 0, host: '127.0.0.1' });
  process.send?.({ type: 'ready', url: server.url, ...(storeKey ? { platformKey: storeKey } : {}) });
  onStopMessage(() => {
    server.server.close();
    opened?.removeSync();
  });
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
