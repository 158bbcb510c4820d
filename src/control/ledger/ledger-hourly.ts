/**
 * Hourly rollups of the ledger (`usage_hourly`): one line per UTC hour, key, model, provider and
 * status, added to in the transaction that writes the rows (like the daily ones). The console's
 * overview reads them: requests, errors, tokens and spend over time, and the top models and keys.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { NANO_PER_USD } from '../../limits/cost.js';
import type { LedgerRow } from './ledger-row.js';
import { dayOf } from './ledger-rollup.js';

export const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));

interface HourLine {
  hour: number;
  key_id: string;
  model: string;
  provider: string;
  status: number;
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cost_nano: number;
  latency_ms_sum: number;
}

/** The hourly rollup deltas of a batch of rows. */
export function hourlyRollupOf(rows: readonly LedgerRow[]): HourLine[] {
  const lines = new Map<string, HourLine>();
  let line: HourLine | undefined;
  for (const r of rows) {
    const hour = r.time - (r.time % HOUR_MS);
    const model = r.model ?? '';
    const provider = r.provider ?? '';
    // Rows in a row often share their line: no lookup then.
    if (line === undefined || line.hour !== hour || line.key_id !== r.keyId || line.model !== model || line.provider !== provider || line.status !== r.status) {
      const id = `${hour}\u0000${r.keyId}\u0000${model}\u0000${provider}\u0000${r.status}`;
      line = lines.get(id);
      if (!line) {
        line = { hour, key_id: r.keyId, model, provider, status: r.status, requests: 0, errors: 0, input_tokens: 0, output_tokens: 0, cost_nano: 0, latency_ms_sum: 0 };
        lines.set(id, line);
      }
    }
    line.requests += 1;
    if (r.status >= 400 || r.errorCode !== null) line.errors += 1;
    line.input_tokens += r.inputTokens ?? 0;
    line.output_tokens += r.outputTokens ?? 0;
    line.cost_nano += r.costUsd === null ? 0 : Math.round(r.costUsd * NANO_PER_USD);
    line.latency_ms_sum += r.latencyMs;
  }
  return [...lines.values()];
}

export async function addHourlyRollups(trx: Transaction<Database>, rows: readonly LedgerRow[]): Promise<void> {
  for (const line of hourlyRollupOf(rows)) {
    await trx
      .insertInto('usage_hourly')
      .values(line)
      .onConflict((oc) =>
        oc.columns(['hour', 'key_id', 'model', 'provider', 'status']).doUpdateSet({
          requests: sql`usage_hourly.requests + excluded.requests`,
          errors: sql`usage_hourly.errors + excluded.errors`,
          input_tokens: sql`usage_hourly.input_tokens + excluded.input_tokens`,
          output_tokens: sql`usage_hourly.output_tokens + excluded.output_tokens`,
          cost_nano: sql`usage_hourly.cost_nano + excluded.cost_nano`,
          latency_ms_sum: sql`usage_hourly.latency_ms_sum + excluded.latency_ms_sum`,
        }),
      )
      .execute();
  }
}

/** One point of the overview's charts. */
export interface SeriesPoint {
  /** The bucket's start, epoch ms (an hour, or a UTC day). */
  time: number;
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Mean latency of the bucket's requests (ms), null without requests. */
  avgLatencyMs: number | null;
}

export interface TopEntry {
  /** The model or key id ('' when the requests named no model). */
  id: string;
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export type OverviewWindow = '24h' | '7d' | '30d';
const WINDOW_MS: Record<OverviewWindow, number> = { '24h': DAY_MS, '7d': 7 * DAY_MS, '30d': 30 * DAY_MS };

/** 24 h and 7 d read the hourly rollups (one point an hour), 30 d the daily ones (one a day). */
export function windowBuckets(window: OverviewWindow, now: number): { daily: boolean; from: number; step: number; count: number } {
  if (window === '30d') {
    const today = now - (now % DAY_MS);
    return { daily: true, from: today - 29 * DAY_MS, step: DAY_MS, count: 30 };
  }
  const hours = WINDOW_MS[window] / HOUR_MS;
  const thisHour = now - (now % HOUR_MS);
  return { daily: false, from: thisHour - (hours - 1) * HOUR_MS, step: HOUR_MS, count: hours };
}

export interface OverviewFilter {
  keyId?: string;
  model?: string;
}

export class OverviewQueries {
  constructor(private readonly db: Kysely<Database>) {}

  /** Every bucket of the window, oldest first (empty buckets as zeros, so the chart's axis is whole). */
  async series(window: OverviewWindow, now: number, filter: OverviewFilter = {}): Promise<SeriesPoint[]> {
    const w = windowBuckets(window, now);
    const lines = w.daily
      ? await this.db
          .selectFrom('usage_daily')
          .select([sql<string>`day`.as('bucket'), ...sums()])
          .where((eb) => eb.and([eb('day', '>=', dayOf(w.from)), ...(filter.keyId !== undefined ? [eb('key_id', '=', filter.keyId)] : []), ...(filter.model !== undefined ? [eb('model', '=', filter.model)] : [])]))
          .groupBy('day')
          .execute()
      : await this.db
          .selectFrom('usage_hourly')
          .select([sql<number>`hour`.as('bucket'), ...sums()])
          .where((eb) => eb.and([eb('hour', '>=', w.from), ...(filter.keyId !== undefined ? [eb('key_id', '=', filter.keyId)] : []), ...(filter.model !== undefined ? [eb('model', '=', filter.model)] : [])]))
          .groupBy('hour')
          .execute();
    const byTime = new Map<number, SeriesPoint>();
    for (const l of lines) {
      const time = w.daily ? Date.parse(`${String(l.bucket)}T00:00:00Z`) : num(l.bucket);
      const requests = num(l.requests);
      byTime.set(time, {
        time,
        requests,
        errors: num(l.errors),
        inputTokens: num(l.input_tokens),
        outputTokens: num(l.output_tokens),
        costUsd: num(l.cost_nano) / NANO_PER_USD,
        avgLatencyMs: requests ? Math.round(num(l.latency_ms_sum) / requests) : null,
      });
    }
    const out: SeriesPoint[] = [];
    for (let i = 0; i < w.count; i++) {
      const time = w.from + i * w.step;
      out.push(byTime.get(time) ?? { time, requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, avgLatencyMs: null });
    }
    return out;
  }

  /** The models or keys with the most requests in the window, at most `limit`. */
  async top(by: 'model' | 'key', window: OverviewWindow, now: number, limit: number): Promise<TopEntry[]> {
    const w = windowBuckets(window, now);
    const column = by === 'model' ? 'model' : 'key_id';
    const lines = w.daily
      ? await this.db.selectFrom('usage_daily').select([sql<string>`${sql.ref(column)}`.as('id'), ...sums()]).where('day', '>=', dayOf(w.from)).groupBy(column).orderBy(sql`sum(requests)`, 'desc').orderBy(column).limit(limit).execute()
      : await this.db.selectFrom('usage_hourly').select([sql<string>`${sql.ref(column)}`.as('id'), ...sums()]).where('hour', '>=', w.from).groupBy(column).orderBy(sql`sum(requests)`, 'desc').orderBy(column).limit(limit).execute();
    return lines.map((l) => ({
      id: String(l.id),
      requests: num(l.requests),
      errors: num(l.errors),
      inputTokens: num(l.input_tokens),
      outputTokens: num(l.output_tokens),
      costUsd: num(l.cost_nano) / NANO_PER_USD,
    }));
  }
}

/** The summed columns both rollup tables have. */
function sums() {
  return [
    sql<number>`sum(requests)`.as('requests'),
    sql<number>`sum(errors)`.as('errors'),
    sql<number>`sum(input_tokens)`.as('input_tokens'),
    sql<number>`sum(output_tokens)`.as('output_tokens'),
    sql<number>`sum(cost_nano)`.as('cost_nano'),
    sql<number>`sum(latency_ms_sum)`.as('latency_ms_sum'),
  ] as const;
}
