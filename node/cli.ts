#!/usr/bin/env node
/** Standalone server: `modelgate [--config FILE] [--port N] [--host H] [timeouts, connection cap]`. */
import { readFileSync } from 'node:fs';
import { Server as NetServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { serve, SERVE_DEFAULTS, type ServeOptions } from '../adapters/node-serve.js';
import { embeddedDefault } from '../src/config/defaults.js';
import { ConfigError, interpolateEnv, readConfigJson } from '../src/config/load.js';
import type { GatewayConfigInput } from '../src/config/schema.js';
import { createGateway } from '../src/gateway/gateway.js';
import { SUPPORTED_PROVIDER_TYPES } from '../src/providers/registry.js';
import { createUndiciFetch } from './upstream-fetch.js';
import { redisSharedState } from './redis.js';
import { accessLogger, type LogFormat } from './access-log.js';
import { ACCESS_LOG_BATCHING, createLineWriter, type LineWriter } from './line-writer.js';
import { healthRoutes } from './health.js';
import { serveMetrics } from './prometheus.js';
import { openControlPlane } from './control.js';
import { ledgerSettings } from './ledger-settings.js';
import { startRetentionJob } from './ledger-retention-job.js';
import { SUBCOMMANDS } from './subcommands.js';

/** Stops accepting connections without closing the open ones (http.Server's close() closes idle ones at once). */
const netServerClose = NetServer.prototype.close;
/** How long the listener still accepts at shutdown (readiness already fails): connections waiting in its backlog are taken, not reset. */
const SHUTDOWN_READ_GRACE_MS = 500;

const HELP = `modelgate - AI model gateway

Usage: modelgate [--config FILE] [--port N] [--host H] [--db DB] [options]
       modelgate keys create|list|show|update|rotate|disable|enable|revoke [--db DB] [--json]
       modelgate usage [--by day|key|model|provider] [--from D] [--to D] [--db DB] [--json]
       modelgate usage purge [--days N] [--export FILE] [--db DB]

  --config FILE   JSON config (\${VAR} references are read from the environment).
                  Without it: the embedded default (mock provider + vendors whose
                  OPENAI_API_KEY / ANTHROPIC_API_KEY / GEMINI_API_KEY are set).
  --port N        default: $PORT or 8080
  --host H        default: 127.0.0.1
  --db DB         the store of keys, usage and the audit log: a SQLite file, "memory"
                  (nothing kept) or a postgres:// URL (several instances).
                  Default: $MODELGATE_DB, else $DATABASE_URL, else ./modelgate.db
                  (created on first start).

Admin API (/admin/v1, only when an admin key exists):
  MODELGATE_ADMIN_KEY         an admin key with read-write access (also config admin.keys)
  MODELGATE_SECRET            encrypts store keys' providerKeys at rest (also config
                              control.secret; the same on every instance). Without it a
                              SQLite file gets a generated one in <file>.secret (0600);
                              on PostgreSQL keys cannot be given providerKeys.
  MODELGATE_SESSION_SECRET    signs console sessions; the same on every instance (config admin.sessionSecret)

Usage ledger (one row per request of a known key, written in batches):
  MODELGATE_LEDGER_QUEUE_ROWS         rows held while the database is slow or away (50000)
  MODELGATE_LEDGER_FLUSH_MS           a row waits at most this long to be written (1000)
  MODELGATE_LEDGER_WRITE_TIMEOUT_MS   a batch write that hangs longer is given up and retried (15000)
  MODELGATE_LEDGER_WRITER             SQLite file: batches written by a worker thread (thread) or the main one (inline)
  MODELGATE_LEDGER_RETENTION_DAYS     rows kept (90); older ones are exported, then deleted
  MODELGATE_LEDGER_ROLLUP_RETENTION_DAYS  daily rollups kept (730)
  MODELGATE_LEDGER_EXPORT_DIR         where purged rows are exported as CSV (./modelgate-exports)

Against slow or stalled clients (each also from the environment variable shown):
  --headers-timeout-ms MS     receive the request headers within MS
                              (MODELGATE_HEADERS_TIMEOUT_MS, default ${SERVE_DEFAULTS.headersTimeoutMs})
  --request-timeout-ms MS     receive the whole request within MS; answers and streams
                              are not limited by it (MODELGATE_REQUEST_TIMEOUT_MS,
                              default ${SERVE_DEFAULTS.requestTimeoutMs}, 0 = none)
  --body-idle-timeout-ms MS   cut a request body that sends nothing for MS
                              (MODELGATE_BODY_IDLE_TIMEOUT_MS, default ${SERVE_DEFAULTS.bodyIdleTimeoutMs}, 0 = none)
  --keep-alive-timeout-ms MS  close an idle keep-alive connection after MS
                              (MODELGATE_KEEP_ALIVE_TIMEOUT_MS, default ${SERVE_DEFAULTS.keepAliveTimeoutMs})
  --max-connections N         drop connections beyond N (MODELGATE_MAX_CONNECTIONS, default: no cap)

Observability:
  --log-format json|text      access log, one line per request on stdout
                              (MODELGATE_LOG_FORMAT, default json)
  --access-log FILE           append the access log to FILE instead of stdout
                              (MODELGATE_ACCESS_LOG, default: stdout; - is stdout)
  --quiet                     no access log
  --metrics-port N            Prometheus metrics at http://HOST:N/metrics
                              (MODELGATE_METRICS_PORT, default: off)
  GET /healthz (liveness) and GET /readyz (Redis reachable when REDIS_URL is set)
  answer on the main port.
`;

/** Server timeouts and the connection cap from flags, else the environment; a bad value names its flag. */
function serverLimits(values: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv): ServeOptions {
  const out: ServeOptions = {};
  const read = (flag: string, envName: string, min: number): number | undefined => {
    const raw = values[flag] ?? env[envName];
    if (raw === undefined || raw === '' || typeof raw === 'boolean') return undefined;
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || n < min) throw new Error(`--${flag} (${envName}) must be a whole number >= ${min}, got ${JSON.stringify(raw)}`);
    return n;
  };
  const headers = read('headers-timeout-ms', 'MODELGATE_HEADERS_TIMEOUT_MS', 0);
  const request = read('request-timeout-ms', 'MODELGATE_REQUEST_TIMEOUT_MS', 0);
  const bodyIdle = read('body-idle-timeout-ms', 'MODELGATE_BODY_IDLE_TIMEOUT_MS', 0);
  const keepAlive = read('keep-alive-timeout-ms', 'MODELGATE_KEEP_ALIVE_TIMEOUT_MS', 0);
  const maxConnections = read('max-connections', 'MODELGATE_MAX_CONNECTIONS', 1);
  if (headers !== undefined) out.headersTimeoutMs = headers;
  if (request !== undefined) out.requestTimeoutMs = request;
  if (bodyIdle !== undefined) out.bodyIdleTimeoutMs = bodyIdle;
  if (keepAlive !== undefined) out.keepAliveTimeoutMs = keepAlive;
  if (maxConnections !== undefined) out.maxConnections = maxConnections;
  return out;
}

/** The access log's file writer; a path that cannot be opened fails the start naming the flag. */
function fileWriter(file: string): LineWriter {
  try {
    return createLineWriter(file, (err) => console.error(`modelgate: access log ${file} failed: ${err.message}`), ACCESS_LOG_BATCHING);
  } catch (err) {
    throw new Error(`--access-log (MODELGATE_ACCESS_LOG): ${(err as Error).message}`);
  }
}

/** The config's `control.secret`, its `${VAR}` references filled in (the rest of the config is filled in by createGateway). */
function controlSecretOf(config: GatewayConfigInput, env: Record<string, string | undefined> | false): string | undefined {
  const raw = config.control?.secret;
  if (typeof raw !== 'string') return undefined;
  return env ? (interpolateEnv(raw, env) as string) : raw;
}

async function main(): Promise<void> {
  const command = process.argv[2];
  const sub = command === undefined ? undefined : SUBCOMMANDS[command];
  if (sub) {
    const run = await sub();
    process.exitCode = await run(process.argv.slice(3), process.env);
    return;
  }
  const { values } = parseArgs({
    options: {
      config: { type: 'string', short: 'c' },
      db: { type: 'string' },
      port: { type: 'string', short: 'p' },
      host: { type: 'string' },
      'headers-timeout-ms': { type: 'string' },
      'request-timeout-ms': { type: 'string' },
      'body-idle-timeout-ms': { type: 'string' },
      'keep-alive-timeout-ms': { type: 'string' },
      'max-connections': { type: 'string' },
      'log-format': { type: 'string' },
      'access-log': { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
      'metrics-port': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const env = process.env;
  // stdout (these messages, and the access log unless it goes to a file): buffered, written out at exit.
  const out = createLineWriter(undefined, (err) => console.error(`modelgate: stdout failed: ${err.message}`), ACCESS_LOG_BATCHING);
  const say = out.writeNow;
  const limits = serverLimits(values, env);
  let config: GatewayConfigInput;
  // A config file's `${VAR}` references are filled in once, by createGateway (a value that itself
  // contains `${...}` is not expanded a second time); the embedded default is built final.
  let configEnv: Record<string, string | undefined> | false = false;
  if (values.config) {
    config = readConfigJson(readFileSync(values.config, 'utf8')) as GatewayConfigInput;
    configEnv = env;
    say(`modelgate: config ${values.config}`);
  } else {
    const def = embeddedDefault(env, SUPPORTED_PROVIDER_TYPES, () => `sk-mg-${randomBytes(18).toString('base64url')}`);
    config = def.config;
    say('modelgate: no --config given; using the embedded default (mock provider, model "mock-chat").');
    for (const n of def.notices) say(`modelgate: ${n}`);
    if (def.generatedKey) say(`modelgate: platform key (set MODELGATE_API_KEY to choose one): ${def.generatedKey}`);
    else say('modelgate: platform key taken from MODELGATE_API_KEY.');
  }
  const adminKey = env.MODELGATE_ADMIN_KEY;
  if (adminKey) {
    if (adminKey.length < 16) throw new Error(`MODELGATE_ADMIN_KEY: must be at least 16 characters (it has ${adminKey.length})`);
    const admin = (config.admin ??= {});
    admin.keys = [...(admin.keys ?? []), { id: 'env:MODELGATE_ADMIN_KEY', key: adminKey, access: 'write' }];
  }
  if (env.MODELGATE_SESSION_SECRET) (config.admin ??= {}).sessionSecret = env.MODELGATE_SESSION_SECRET;
  const logFormat = (values['log-format'] ?? env.MODELGATE_LOG_FORMAT ?? 'json') as LogFormat;
  if (logFormat !== 'json' && logFormat !== 'text') throw new Error(`--log-format must be json or text, got ${JSON.stringify(logFormat)}`);
  const rawMetricsPort = values['metrics-port'] ?? (env.MODELGATE_METRICS_PORT || undefined);
  const metricsPort = rawMetricsPort === undefined ? undefined : Number(rawMetricsPort);
  if (metricsPort !== undefined && (!/^\d+$/.test(String(rawMetricsPort).trim()) || metricsPort > 65535)) {
    throw new Error(`--metrics-port (MODELGATE_METRICS_PORT) must be 0-65535, got ${JSON.stringify(rawMetricsPort)}`);
  }
  const accessLogFile = values['access-log'] ?? (env.MODELGATE_ACCESS_LOG || undefined);
  const accessLog =
    values.quiet ? undefined
    : accessLogFile === undefined || accessLogFile === '-' ? out
    : fileWriter(accessLogFile);
  const port = Number(values.port ?? env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, got ${values.port ?? env.PORT}`);
  const shared = env.REDIS_URL ? await redisSharedState(env.REDIS_URL, env.MODELGATE_REDIS_PREFIX || 'modelgate:') : undefined;
  if (shared) {
    await shared.ready();
    say('modelgate: REDIS_URL set; task records, rate limits, stored responses and cached answers are shared through Redis.');
  }
  const host = values.host ?? '127.0.0.1';
  const metrics = metricsPort === undefined ? undefined : await serveMetrics(metricsPort, host);
  if (metrics) say(`modelgate: metrics at ${metrics.url}`);
  const configSecret = controlSecretOf(config, configEnv);
  const controlPlane = await openControlPlane(values.db, env, { ...(configSecret ? { configSecret } : {}), ...(shared ? { notifier: shared.notifier } : {}), ...(metrics ? { meterProvider: metrics.meterProvider } : {}) });
  say(`modelgate: store: ${controlPlane.database.description}; providerKeys secret: ${controlPlane.secretSource}`);
  // Task records live in the database when it is shared (PostgreSQL) or when nothing else is
  // (no Redis): the task center lists them. With Redis and a per-instance SQLite file, Redis keeps
  // them, so instances still share their tasks.
  const { taskStore: redisTasks, ...sharedRest } = shared?.options ?? {};
  const sharedOptions = redisTasks && controlPlane.database.dialect !== 'postgres' ? { ...sharedRest, taskStore: redisTasks } : sharedRest;
  const { connectMs, streamIdleMs } = config.timeouts ?? {};
  const upstreamFetch = createUndiciFetch({
    ...(typeof connectMs === 'number' ? { connectTimeoutMs: connectMs } : {}),
    ...(typeof streamIdleMs === 'number' ? { bodyTimeoutMs: streamIdleMs } : {}),
  });
  const retention = startRetentionJob(controlPlane.control, ledgerSettings(env).retention, (m) => say(m));
  const gateway = createGateway(config, {
    fetch: upstreamFetch,
    env: configEnv,
    video: { callbackSecret: env.MODELGATE_CALLBACK_SECRET || undefined },
    ...sharedOptions,
    ...(accessLog ? { hooks: { onResponse: accessLogger(logFormat, accessLog.write) } } : {}),
    ...(metrics ? { telemetry: { meterProvider: metrics.meterProvider } } : {}),
    control: controlPlane.control,
  });
  let stopping = false;
  const intercept = healthRoutes({ stopping: () => stopping, ...(shared ? { redisPing: (ms: number) => shared.ping(ms) } : {}) });
  const server = await serve(gateway, { ...limits, port, host, intercept });
  say(`modelgate: listening on ${server.url}`);

  const deadlineMs = Number(env.MODELGATE_SHUTDOWN_MS ?? 10_000);
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`modelgate: ${signal} received; no longer ready (GET /readyz 503), refusing new connections after ${SHUTDOWN_READ_GRACE_MS} ms, waiting up to ${deadlineMs} ms for requests in flight.`);
    // Connections a client opened before the signal may still wait in the listen backlog, their
    // requests already sent: closing the listener at once reset them (300 requests sent together,
    // SIGTERM right after: 77 reset, never answered). They are accepted for a moment more, then the
    // listener closes and idle connections with it.
    const grace = setTimeout(() => {
      netServerClose.call(server.server);
      server.server.closeIdleConnections();
      // Keep-alive connections whose last response finishes after this point turn idle later and
      // would hold server.close() open until the deadline: keep closing idle ones.
      const sweep = setInterval(() => server.server.closeIdleConnections(), 100);
      sweep.unref();
    }, SHUTDOWN_READ_GRACE_MS);
    grace.unref();
    const force = setTimeout(() => {
      say('modelgate: deadline reached; closing remaining connections.');
      server.server.closeAllConnections();
    }, deadlineMs);
    force.unref();
    // Whatever still hangs after the ledger's last write had its time (a database connection that
    // went silent keeps its pool from ending): the process exits anyway, saying so.
    const writeTimeoutMs = Number(env.MODELGATE_LEDGER_WRITE_TIMEOUT_MS || 15_000);
    const hard = setTimeout(() => {
      say('modelgate: shutdown did not finish in time (a store that stopped answering?); exiting.');
      process.exit(1);
    }, deadlineMs + writeTimeoutMs + 5_000);
    hard.unref();
    new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_READ_GRACE_MS))
      .then(() => server.close())
      .then(() => gateway.close())
      .then(() => retention.stop())
      .then(() => controlPlane.close())
      .then(() => upstreamFetch.close())
      .then(() => shared?.close())
      .then(() => metrics?.close())
      .then(() => {
        say('modelgate: stopped.');
        // The line writers write out what they hold on 'exit'.
        process.exit(0);
      })
      .catch((err: unknown) => {
        say(`modelgate: shutdown failed: ${(err as Error).message}`);
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(`modelgate: ${(err as Error).message}`);
  process.exit(1);
});
