/**
 * `ledger_rows`: the usage ledger, one row per request whose key is known (never prompt or answer
 * text). Written in batches by the ledger queue; keyed by (time, trace_id) (store version 5), indexed on (key_id, time).
 * `usage_daily`: the daily rollups every summary reads, one line per UTC day, key, model,
 * provider and status, added to in the transaction that writes the rows. Times are integer
 * milliseconds since the epoch; booleans are 0/1; `price` is JSON text.
 */
export interface LedgerRowsTable {
  trace_id: string;
  request_id: string | null;
  time: number;
  key_id: string;
  method: string;
  route: string;
  protocol: string | null;
  model: string | null;
  requested_model: string | null;
  resolved_model: string | null;
  provider: string | null;
  deployment: string | null;
  status: number;
  error_code: string | null;
  attempts: number;
  fallbacks: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  reasoning_tokens: number | null;
  images: number | null;
  video_seconds: number | null;
  cost_usd: number | null;
  price: string | null;
  latency_ms: number;
  ttft_ms: number | null;
  stream: number;
  byok: number;
  cache_hit: number;
}

export interface UsageDailyTable {
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  key_id: string;
  /** '' when the request named no model. */
  model: string;
  provider: string;
  status: number;
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  images: number;
  video_seconds: number;
  /** Cost in whole nano-dollars (exact sums). */
  cost_nano: number;
  latency_ms_sum: number;
}
