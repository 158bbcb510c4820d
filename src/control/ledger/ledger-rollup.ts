/**
 * Daily rollups of the ledger: one line per UTC day, key, model, provider and status, added to as
 * batches are written (in the same transaction), so a summary reads a few rollup lines rather than
 * every row. Cost is summed in whole nano-dollars so totals add up exactly.
 */
import { NANO_PER_USD } from '../../limits/cost.js';
import type { LedgerRow } from './ledger-row.js';

const DAY_MS = 86_400_000;

/** The UTC day of an epoch-ms time, as `YYYY-MM-DD`. */
export function dayOf(ms: number): string {
  return new Date(ms - (ms % DAY_MS)).toISOString().slice(0, 10);
}

/** What one rollup line counts. */
export interface RollupTotals {
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  images: number;
  videoSeconds: number;
  costNano: number;
  latencyMsSum: number;
}

export interface RollupLine extends RollupTotals {
  day: string;
  keyId: string;
  /** '' when the request named no model. */
  model: string;
  provider: string;
  status: number;
}

export function emptyTotals(): RollupTotals {
  return { requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, reasoningTokens: 0, images: 0, videoSeconds: 0, costNano: 0, latencyMsSum: 0 };
}

export function addTotals(into: RollupTotals, more: RollupTotals): void {
  into.requests += more.requests;
  into.errors += more.errors;
  into.inputTokens += more.inputTokens;
  into.outputTokens += more.outputTokens;
  into.cachedTokens += more.cachedTokens;
  into.reasoningTokens += more.reasoningTokens;
  into.images += more.images;
  into.videoSeconds += more.videoSeconds;
  into.costNano += more.costNano;
  into.latencyMsSum += more.latencyMsSum;
}

/** The rollup deltas of a batch of rows: one line per day, key, model, provider and status. */
export function rollupOf(rows: readonly LedgerRow[]): RollupLine[] {
  const lines = new Map<string, RollupLine>();
  // A batch's rows are mostly of one day: its name is made once (toISOString per row showed in profiles).
  let dayStart = Number.NaN;
  let day = '';
  let line: RollupLine | undefined;
  for (const r of rows) {
    const start = r.time - (r.time % DAY_MS);
    if (start !== dayStart) {
      dayStart = start;
      day = dayOf(r.time);
      line = undefined;
    }
    const model = r.model ?? '';
    const provider = r.provider ?? '';
    // Rows in a row often share their line (same key, model, provider and status): no lookup then.
    if (line === undefined || line.keyId !== r.keyId || line.model !== model || line.provider !== provider || line.status !== r.status) {
      const id = `${day}\u0000${r.keyId}\u0000${model}\u0000${provider}\u0000${r.status}`;
      line = lines.get(id);
      if (!line) {
        line = { day, keyId: r.keyId, model, provider, status: r.status, ...emptyTotals() };
        lines.set(id, line);
      }
    }
    line.requests += 1;
    if (r.status >= 400 || r.errorCode !== null) line.errors += 1;
    line.inputTokens += r.inputTokens ?? 0;
    line.outputTokens += r.outputTokens ?? 0;
    line.cachedTokens += r.cachedTokens ?? 0;
    line.reasoningTokens += r.reasoningTokens ?? 0;
    line.images += r.images ?? 0;
    line.videoSeconds += r.videoSeconds ?? 0;
    line.costNano += r.costUsd === null ? 0 : Math.round(r.costUsd * NANO_PER_USD);
    line.latencyMsSum += r.latencyMs;
  }
  return [...lines.values()];
}

export type UsageGroup = 'day' | 'key' | 'model' | 'provider';

/** One bucket of `GET /admin/v1/usage`. */
export interface UsageBucket {
  bucket: string;
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  images: number;
  videoSeconds: number;
  costUsd: number;
}

function bucketOf(line: RollupLine, by: UsageGroup): string {
  if (by === 'day') return line.day;
  if (by === 'key') return line.keyId;
  if (by === 'model') return line.model;
  return line.provider;
}

/** Rollup lines summed per bucket, in bucket order. */
export function groupUsage(lines: Iterable<RollupLine>, by: UsageGroup): UsageBucket[] {
  const sums = new Map<string, RollupTotals>();
  for (const line of lines) {
    const b = bucketOf(line, by);
    let t = sums.get(b);
    if (!t) sums.set(b, (t = emptyTotals()));
    addTotals(t, line);
  }
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([bucket, t]) => ({
      bucket,
      requests: t.requests,
      errors: t.errors,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      cachedTokens: t.cachedTokens,
      reasoningTokens: t.reasoningTokens,
      images: t.images,
      videoSeconds: t.videoSeconds,
      costUsd: t.costNano / NANO_PER_USD,
    }));
}
