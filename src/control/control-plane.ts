/**
 * The operator's side of one gateway, built once and handed to createGateway through
 * `options.control`: the store (SQLite or PostgreSQL through Kysely) and the services on it. The
 * node/ side opens the database (node/db) and builds it; an embedding host can do the same with
 * its own Kysely instance.
 */
import type { Kysely } from 'kysely';
import type { MeterProvider } from '@opentelemetry/api';
import type { ChangeNotifier } from './change-notifier.js';
import type { Database, DatabaseDialect } from './db/database.js';
import { KeyCache } from './keys/key-cache.js';
import { KeyService } from './keys/key-service.js';
import { providerKeyCipher, sealLegacyProviderKeys } from './keys/provider-key-cipher.js';
import { LedgerQueue, type LedgerQueueOptions, type LedgerSink } from './ledger/ledger-queue.js';
import { ledgerMetrics } from './ledger/ledger-metrics.js';
import { SqlLedgerStore } from './ledger/sql-ledger-store.js';
import { SqlTaskStore } from './tasks/sql-task-store.js';
import { HEARTBEAT_MS, InstanceRegistry } from './instances/instance-registry.js';
import { OverviewQueries } from './ledger/ledger-hourly.js';

/** Without a notifier, how often instances look for key changes: a change reaches them within a second. */
export const KEY_POLL_MS = 500;
/** With a notifier (announcements arrive at once), the poll only covers a missed announcement. */
export const KEY_POLL_WITH_NOTIFIER_MS = 5_000;
/** How often `last_used_at` is written (batched, never per request). */
export const LAST_USED_FLUSH_MS = 5_000;

const WARN_EVERY_MS = 60_000;

export interface ControlPlaneOptions {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** Where background failures are reported (default console), at most once a minute. */
  logger?: { warn(message: string): void };
  /** The ledger's write queue: its bound, batch size, flush interval, write timeout (see LedgerQueueOptions). */
  ledger?: Pick<LedgerQueueOptions, 'maxRows' | 'batchSize' | 'flushIntervalMs' | 'retryMaxMs' | 'writeTimeoutMs' | 'warnEveryMs'> & {
    /** Where batches go instead of the database's ledger tables (a host's own sink; tests). */
    sink?: LedgerSink;
    /** Longest wait for queued rows at close() (default 10 000 ms). */
    closeDeadlineMs?: number;
  };
  /** Where the ledger's metrics go (default: the global meter provider). */
  meterProvider?: MeterProvider;
  /** Key-change announcements between instances (Redis pub/sub); without it, polling every KEY_POLL_MS. */
  notifier?: ChangeNotifier;
  /** Overrides the poll interval (ms). */
  keyPollMs?: number;
  /** No timers (a one-shot CLI command): the cache is loaded on demand only. */
  background?: boolean;
  /**
   * The operator's secret (at least 16 characters, the same on every instance) from which the key
   * that encrypts store keys' providerKeys at rest is derived (HKDF, AES-256-GCM). Without it a key
   * cannot be given providerKeys (409), and encrypted ones cannot be read (such keys are refused).
   */
  secret?: string;
  /** This instance's name in the console's instance list (default `instance`; the CLI passes the host name). */
  instanceName?: string;
}

export interface ControlPlane {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
  now: () => number;
  logger: { warn(message: string): void };
  /** The usage ledger's write queue: requests only enqueue; batches go to `usage` off the request path. */
  ledger: LedgerQueue;
  /** The usage ledger's rows and daily rollups (reads, summaries, retention). */
  usage: SqlLedgerStore;
  /** Task records (video generations): the video service's task store and the task center's list. */
  tasks: SqlTaskStore;
  /** The store's platform keys in memory (the request path reads only this). */
  keyCache: KeyCache;
  /** Key lifecycle for the admin API and the CLI. */
  keys: KeyService;
  /** The console overview's reads (hourly and daily rollups). */
  overview: OverviewQueries;
  /** The instances sharing the store (heartbeats), for the console. */
  instances: InstanceRegistry;
  /**
   * Requests a key made since an instant (the usage ledger's count), for GET /v1/key's
   * `usage.requestsToday`; absent without a ledger (then null there).
   */
  requestCount?: (keyId: string, since: number) => Promise<number>;
  /**
   * What a key spent since an instant on the gateway's credentials (nano-USD, from the ledger's
   * rows): where its budget period starts when no limit store holds the period's total.
   */
  budgetSpent?: (keyId: string, since: number) => Promise<number>;
  /** Stops background work and writes what is queued; does not close the database (its opener does). */
  close(): Promise<void>;
}

function every(ms: number, run: () => void): () => void {
  const timer = setInterval(run, ms);
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}

export async function createControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? console;
  const closers: Array<() => Promise<void> | void> = [];
  let warnedAt = -Infinity;
  const warn = (message: string): void => {
    const t = Date.now();
    if (t - warnedAt < WARN_EVERY_MS) return;
    warnedAt = t;
    logger.warn(`modelgate: ${message} (repeats at most once a minute)`);
  };
  const cipher = options.secret === undefined ? undefined : await providerKeyCipher(options.secret);
  // Rows from before providerKeys were encrypted: encrypted now, once (a no-op afterwards).
  if (cipher) await sealLegacyProviderKeys(options.db, cipher);
  const keyCache = new KeyCache(options.db, now, {
    ...(cipher ? { cipher } : {}),
    onUnreadable: (id, reason) => warn(`the providerKeys of key ${id} cannot be read (${reason}); the key is refused until they can be`),
  });
  await keyCache.refresh();
  const notifier = options.notifier;
  const keys = new KeyService({ db: options.db, cache: keyCache, now, ...(cipher ? { cipher } : {}), ...(notifier ? { announce: () => notifier.publish() } : {}) });
  const refresh = (): void => {
    keyCache.refresh().catch((err: unknown) => warn(`could not reload keys from the store: ${(err as Error).message}`));
  };
  const flush = (): Promise<void> => keyCache.flushLastUsed().catch((err: unknown) => warn(`could not record when keys were last used: ${(err as Error).message}`));
  if (options.background !== false) {
    if (notifier) {
      const unsubscribe = await notifier.subscribe(refresh);
      closers.push(unsubscribe);
    }
    closers.push(every(options.keyPollMs ?? (notifier ? KEY_POLL_WITH_NOTIFIER_MS : KEY_POLL_MS), refresh));
    closers.push(every(LAST_USED_FLUSH_MS, () => void flush()));
    closers.push(flush);
  }
  let closed = false;
  const usage = new SqlLedgerStore(options.db);
  const metrics = ledgerMetrics(options.meterProvider);
  const { sink, closeDeadlineMs, ...queueOptions } = options.ledger ?? {};
  const ledger = new LedgerQueue(sink ?? usage, { ...queueOptions, now, warn: (m) => logger.warn(m), onDrop: metrics.dropped });
  metrics.watch(ledger);
  closers.push(() => ledger.close(closeDeadlineMs));
  const instances = new InstanceRegistry(options.db, now, options.instanceName ?? 'instance');
  if (options.background !== false) {
    let beating: Promise<void> = Promise.resolve();
    const beat = (): void => {
      beating = instances.heartbeat({ ledger: ledger.stats() }).catch((err: unknown) => warn(`could not write this instance's heartbeat: ${(err as Error).message}`));
    };
    beat();
    closers.push(every(HEARTBEAT_MS, beat));
    closers.push(async () => {
      await beating;
      await instances.remove();
    });
  }
  return {
    db: options.db,
    dialect: options.dialect,
    now,
    logger,
    keyCache,
    keys,
    ledger,
    usage,
    tasks: new SqlTaskStore(options.db, now),
    overview: new OverviewQueries(options.db),
    instances,
    // Whole UTC days from the rollups (GET /v1/key asks from the start of today).
    requestCount: async (keyId, since) => (await usage.spendSince(keyId, since)).requests,
    budgetSpent: (keyId, since) => usage.budgetSpendNano(keyId, since),
    async close() {
      if (closed) return;
      closed = true;
      for (const c of closers) await Promise.resolve(c()).catch(() => undefined);
    },
  };
}
