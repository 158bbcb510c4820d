/**
 * The operator's side of one gateway, built once and handed to createGateway through
 * `options.control`: the store (SQLite or PostgreSQL through Kysely) and the services on it. The
 * node/ side opens the database (node/db) and builds it; an embedding host can do the same with
 * its own Kysely instance.
 */
import type { Kysely } from 'kysely';
import type { MeterProvider } from '@opentelemetry/api';
import type { Database, DatabaseDialect } from './db/database.js';
import { LedgerQueue, type LedgerQueueOptions, type LedgerSink } from './ledger/ledger-queue.js';
import { ledgerMetrics } from './ledger/ledger-metrics.js';
import { SqlLedgerStore } from './ledger/sql-ledger-store.js';
import { SqlTaskStore } from './tasks/sql-task-store.js';

export interface ControlPlaneOptions {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** Where background failures are reported (default console). */
  logger?: { warn(message: string): void };
  /** The ledger's write queue: its bound, batch size, flush interval (see LedgerQueueOptions). */
  ledger?: Pick<LedgerQueueOptions, 'maxRows' | 'batchSize' | 'flushIntervalMs' | 'retryMaxMs' | 'warnEveryMs'> & {
    /** Where batches go instead of the database's ledger tables (a host's own sink; tests). */
    sink?: LedgerSink;
    /** Longest wait for queued rows at close() (default 10 000 ms). */
    closeDeadlineMs?: number;
  };
  /** Where the ledger's metrics go (default: the global meter provider). */
  meterProvider?: MeterProvider;
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
  /** Stops background work and writes what is queued; does not close the database (its opener does). */
  close(): Promise<void>;
}

export async function createControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? console;
  const closers: Array<() => Promise<void>> = [];
  let closed = false;
  const usage = new SqlLedgerStore(options.db);
  const metrics = ledgerMetrics(options.meterProvider);
  const { sink, closeDeadlineMs, ...queueOptions } = options.ledger ?? {};
  const ledger = new LedgerQueue(sink ?? usage, { ...queueOptions, now, warn: (m) => logger.warn(m), onDrop: metrics.dropped });
  metrics.watch(ledger);
  closers.push(() => ledger.close(closeDeadlineMs));
  return {
    db: options.db,
    dialect: options.dialect,
    now,
    logger,
    ledger,
    usage,
    tasks: new SqlTaskStore(options.db, now),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled(closers.map((c) => c()));
    },
  };
}
