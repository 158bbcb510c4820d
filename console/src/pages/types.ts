/** What the pages read from the admin API (the shapes of /admin/v1/openapi.json). */
export interface PageProps {
  canWrite: boolean;
}

export interface SeriesPoint {
  time: string;
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  avgLatencyMs: number | null;
}

export interface Series {
  window: string;
  step: 'hour' | 'day';
  points: SeriesPoint[];
}

export interface TopEntry {
  id: string;
  /** by=key: the key's name. */
  name?: string | null;
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface KeyRecord {
  id: string;
  prefix: string;
  last4: string;
  name: string;
  owner: string | null;
  models: string[];
  limits: { requestsPerMinute?: number; tokensPerMinute?: number; concurrentRequests?: number; budget?: { usd: number; period: 'day' | 'week' | 'month' } } | null;
  expiresAt: string | null;
  metadata: Record<string, string>;
  status: 'active' | 'disabled' | 'revoked';
  /** expiresAt has passed: refused whatever the status says. */
  expired: boolean;
  source: 'store' | 'config';
  createdAt: string | null;
  lastUsedAt: string | null;
}

export interface LedgerRow {
  traceId: string;
  time: string;
  keyId: string;
  keyName: string | null;
  route: string;
  model: string | null;
  provider: string | null;
  status: number;
  errorCode: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  latencyMs: number;
  stream: boolean;
}

export interface UsageBucket {
  bucket: string;
  /** groupBy=key: the key's name. */
  keyName?: string | null;
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}
