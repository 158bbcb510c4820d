/** The filters of ledger reads (`GET /requests`, `/usage`, `/usage/export`, the CLI), checked once at the edge. */
import type { UsageGroup } from './ledger-rollup.js';

/** A status filter: one HTTP status, or every success (< 400) or every error (>= 400). */
export type StatusFilter = number | 'success' | 'error';

export interface LedgerFilter {
  keyId?: string;
  model?: string;
  provider?: string;
  status?: StatusFilter;
  /** Inclusive, epoch ms. */
  from?: number;
  /** Exclusive, epoch ms. */
  to?: number;
}

export interface UsageQuery extends LedgerFilter {
  groupBy: UsageGroup;
}

/** A page of rows: newest first, continuing after the cursor of the last row of the page before. */
export interface RowPage {
  limit: number;
  after?: { time: number; traceId: string };
}
