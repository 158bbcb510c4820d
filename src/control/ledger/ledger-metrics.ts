/**
 * The ledger's metrics: `modelgate.ledger.dropped_rows` (rows dropped because the queue was full,
 * a counter) and `modelgate.ledger.queued_rows` (rows waiting to be written, a gauge), on the
 * host's meter provider (default: the global one, a no-op until an SDK registers).
 */
import { metrics, ValueType, type MeterProvider } from '@opentelemetry/api';
import type { LedgerQueue } from './ledger-queue.js';

export interface LedgerMetrics {
  /** For LedgerQueueOptions.onDrop. */
  dropped(count: number): void;
  /** Starts reporting the queue's length on each collection. */
  watch(queue: LedgerQueue): void;
}

export function ledgerMetrics(provider: MeterProvider = metrics.getMeterProvider()): LedgerMetrics {
  const meter = provider.getMeter('modelgate', '0.1.0');
  const dropped = meter.createCounter('modelgate.ledger.dropped_rows', { description: 'Usage-ledger rows dropped because the write queue was full (the database slow or away).', unit: '{row}', valueType: ValueType.INT });
  const queued = meter.createObservableGauge('modelgate.ledger.queued_rows', { description: 'Usage-ledger rows waiting to be written.', unit: '{row}', valueType: ValueType.INT });
  return {
    dropped: (count) => dropped.add(count),
    watch: (queue) => queued.addCallback((result) => result.observe(queue.stats().queued)),
  };
}
