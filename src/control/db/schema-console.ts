/**
 * The console's tables. `usage_hourly`: the ledger summed per UTC hour (epoch ms of its start),
 * key, model, provider and status, added to in the transaction that writes the rows (the overview's
 * 24 h and 7 d charts). `console_sessions`: sign-ins of the console (the cookie is signed; this row
 * lets sign-out end it on every instance). `instances`: each gateway instance's heartbeat.
 */
export interface UsageHourlyTable {
  hour: number;
  key_id: string;
  model: string;
  provider: string;
  status: number;
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  /** Whole nano-dollars. */
  cost_nano: number;
  latency_ms_sum: number;
}

export interface ConsoleSessionsTable {
  /** `ses_…` (random). */
  id: string;
  /** The admin key id that signed in (the audit log's actor). */
  actor: string;
  access: 'read' | 'write';
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface InstancesTable {
  /** Random per process start. */
  id: string;
  name: string;
  started_at: number;
  last_seen_at: number;
  /** JSON of InstanceStats. */
  stats: string;
}
