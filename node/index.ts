/**
 * The package's `modelgate/node` entry: the node:http bridge (adapters/node.ts), the standalone
 * server around it (adapters/node-serve.ts), and the Node-only pieces an embedder wires in: the
 * undici upstream client, the Redis-backed shared state, the control plane's database.
 * node/ imports adapters/, never the other way round (test/boundaries.test.ts).
 */
export * from '../adapters/node.js';
/** The standalone node:http server around the bridge (timeouts, connection cap). */
export { serve, SERVE_DEFAULTS, type ServeOptions, type RunningServer } from '../adapters/node-serve.js';
/** The Node upstream client the standalone server uses (undici keep-alive pool), for embedders: `createGateway(config, { fetch: createUndiciFetch() })`. */
export { createUndiciFetch, type NodeUpstreamFetch } from './upstream-fetch.js';
/** Redis-backed task, rate-limit and conversation stores for several instances (needs the optional `ioredis`). */
export { redisSharedState, type SharedState } from './redis.js';
/** The control plane's store (SQLite or PostgreSQL), migrated; for createControlPlane. */
export { openDatabase, type OpenedDatabase } from './db/open-database.js';
export { WorkerLedgerSink } from './db/worker-ledger-sink.js';
export { parseDatabaseTarget, resolveDatabaseTarget, type DatabaseTarget } from './db/database-target.js';
