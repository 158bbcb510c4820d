/**
 * `ledger_rows`: the usage ledger, one row per request whose key is known (never prompt or answer
 * text). Written in batches by the ledger queue; keyed by (time, trace_id) (store version 5), indexed
 * on (key, time). Its repeated strings are ids of `ledger_names` lines (`*_ref`, store version 6);
 * the `ledger_requests` view shows rows with their names.
 * `usage_daily`: the daily rollups every summary reads, one line per UTC day, key, model,
 * provider and status, added to in the transaction that writes the rows. Times are integer
 * milliseconds since the epoch; booleans are 0/1; `price` is JSON text.
 */
export interface LedgerRowsTable {
  trace_id: string;
  request_id: string | null;
  time: number;
  key_ref: number;
  method_ref: number;
  route_ref: number;
  protocol_ref: number | null;
  model_ref: number | null;
  requested_model_ref: number | null;
  resolved_model_ref: number | null;
  provider_ref: number | null;
  deployment_ref: number | null;
  status: number;
  error_code_ref: number | null;
  attempts: number;
  fallbacks: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  reasoning_tokens: number | null;
  images: number | null;
  video_seconds: number | null;
  cost_usd: number | null;
  price_ref: number | null;
  latency_ms: number;
  ttft_ms: number | null;
  stream: number;
  byok: number;
  cache_hit: number;
}

/** The ledger's repeated strings (key ids, routes, models, providers, error codes, prices), each once (store version 6). */
export interface LedgerNamesTable {
  id: number;
  name: string;
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
