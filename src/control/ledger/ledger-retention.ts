/**
 * Retention of the ledger: rows older than `rowDays` (default 90) are exported (CSV, through the
 * caller's `exportCsv`) and then deleted, a batch at a time, so a large purge never holds a long
 * lock and nothing is deleted that was not exported first; rollup lines are kept longer
 * (`rollupDays`, default 730) and then deleted.
 */
import { CSV_HEADER, csvLines } from './ledger-csv.js';
import type { LedgerRow } from './ledger-row.js';

export const DEFAULT_ROW_RETENTION_DAYS = 90;
export const DEFAULT_ROLLUP_RETENTION_DAYS = 730;
const DAY_MS = 86_400_000;

/** What the purge needs of the store (SqlLedgerStore). */
export interface RetentionStore {
  oldestBefore(cutoff: number, limit: number): Promise<LedgerRow[]>;
  /** Deletes the rows with these keys. */
  deleteRows(rows: ReadonlyArray<Pick<LedgerRow, 'time' | 'traceId'>>): Promise<number>;
  deleteRollupsBefore(cutoff: number): Promise<number>;
  /** The hourly rollups (the console's overview): kept HOURLY_ROLLUP_DAYS. */
  deleteHourlyBefore?(cutoff: number): Promise<number>;
}

/** The overview charts read hourly lines of the last 7 days; a day more is kept. */
export const HOURLY_ROLLUP_DAYS = 8;

export interface RetentionOptions {
  now: number;
  rowDays?: number;
  rollupDays?: number;
  batchSize?: number;
  /**
   * Receives the rows about to be deleted as CSV (the header with the first batch); a rejection
   * stops the purge before that batch is deleted. Without it rows are deleted unexported.
   */
  exportCsv?: (csv: string) => Promise<void>;
}

export interface RetentionResult {
  rowsDeleted: number;
  rollupsDeleted: number;
  /** Epoch ms: rows before it were purged. */
  rowCutoff: number;
}

export async function purgeLedger(store: RetentionStore, options: RetentionOptions): Promise<RetentionResult> {
  const rowDays = options.rowDays ?? DEFAULT_ROW_RETENTION_DAYS;
  const rollupDays = Math.max(options.rollupDays ?? DEFAULT_ROLLUP_RETENTION_DAYS, rowDays);
  const batch = options.batchSize ?? 1000;
  const rowCutoff = options.now - rowDays * DAY_MS;
  let rowsDeleted = 0;
  let headerWritten = false;
  for (;;) {
    const rows = await store.oldestBefore(rowCutoff, batch);
    if (!rows.length) break;
    if (options.exportCsv) {
      await options.exportCsv(`${headerWritten ? '' : CSV_HEADER}${csvLines(rows)}`);
      headerWritten = true;
    }
    rowsDeleted += await store.deleteRows(rows);
    if (rows.length < batch) break;
  }
  const rollupsDeleted = await store.deleteRollupsBefore(options.now - rollupDays * DAY_MS);
  await store.deleteHourlyBefore?.(options.now - HOURLY_ROLLUP_DAYS * DAY_MS);
  return { rowsDeleted, rollupsDeleted, rowCutoff };
}
