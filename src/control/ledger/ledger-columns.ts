/**
 * The ledger's rows in the database and back (store version 6): which column holds what, a row's
 * INSERT parameters, and the named columns (ids of `ledger_names` lines) read back as strings.
 */
import type { Selectable } from 'kysely';
import type { LedgerRowsTable } from '../db/schema-ledger.js';
import type { LedgerRow } from './ledger-row.js';

export const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));

/** The named text columns (store version 6): each a ledger_names id, from a row's string. The price is one too (its JSON text, see namesIn). */
const NAMED: ReadonlyArray<readonly [keyof LedgerRowsTable, (r: LedgerRow) => string | null]> = [
  ['key_ref', (r) => r.keyId],
  ['method_ref', (r) => r.method],
  ['route_ref', (r) => r.route],
  ['protocol_ref', (r) => r.protocol],
  ['model_ref', (r) => r.model],
  ['requested_model_ref', (r) => r.requestedModel],
  ['resolved_model_ref', (r) => r.resolvedModel],
  ['provider_ref', (r) => r.provider],
  ['deployment_ref', (r) => r.deployment],
  ['error_code_ref', (r) => r.errorCode],
];
const NAMED_COLUMNS: ReadonlyArray<keyof LedgerRowsTable> = [...NAMED.map(([column]) => column), 'price_ref'];

/** What a batch's rows are written with: the id of each of their strings, and each pricing object's JSON text (one per distinct object). */
export interface Batch {
  ids: ReadonlyMap<string, number>;
  prices: ReadonlyMap<object, string>;
}

/** The id of a named column's string, or null (the batch's ids hold every string of its rows). */
const ref = (b: Batch, name: string | null): number | null => (name === null ? null : (b.ids.get(name) as number));

/**
 * How each column is filled from a row, in the INSERT's column order (every column of the table:
 * the Record type makes a missing one a compile error). One table for the statement's columns and
 * its parameters, appended without an object per row.
 */
const COLUMN_VALUES: Readonly<Record<keyof LedgerRowsTable, (r: LedgerRow, b: Batch) => unknown>> = {
  trace_id: (r) => r.traceId,
  request_id: (r) => r.requestId,
  time: (r) => r.time,
  key_ref: (r, b) => b.ids.get(r.keyId),
  method_ref: (r, b) => b.ids.get(r.method),
  route_ref: (r, b) => b.ids.get(r.route),
  protocol_ref: (r, b) => ref(b, r.protocol),
  model_ref: (r, b) => ref(b, r.model),
  requested_model_ref: (r, b) => ref(b, r.requestedModel),
  resolved_model_ref: (r, b) => ref(b, r.resolvedModel),
  provider_ref: (r, b) => ref(b, r.provider),
  deployment_ref: (r, b) => ref(b, r.deployment),
  status: (r) => r.status,
  error_code_ref: (r, b) => ref(b, r.errorCode),
  attempts: (r) => r.attempts,
  fallbacks: (r) => r.fallbacks,
  input_tokens: (r) => r.inputTokens,
  output_tokens: (r) => r.outputTokens,
  cached_tokens: (r) => r.cachedTokens,
  reasoning_tokens: (r) => r.reasoningTokens,
  images: (r) => r.images,
  video_seconds: (r) => r.videoSeconds,
  cost_usd: (r) => r.costUsd,
  price_ref: (r, b) => (r.price ? ref(b, b.prices.get(r.price) ?? null) : null),
  latency_ms: (r) => r.latencyMs,
  ttft_ms: (r) => r.ttftMs,
  stream: (r) => (r.stream ? 1 : 0),
  byok: (r) => (r.byok ? 1 : 0),
  cache_hit: (r) => (r.cacheHit ? 1 : 0),
};
const VALUE_OF = Object.values(COLUMN_VALUES);

/** Every column named (null values), so a compiled multi-row INSERT lists them in COLUMN_VALUES' order. */
export const SAMPLE = Object.fromEntries(Object.keys(COLUMN_VALUES).map((c) => [c, null])) as unknown as LedgerRowsTable;

/** A row's values in the INSERT's column order, appended to `into`. */
export function pushParameters(into: unknown[], r: LedgerRow, b: Batch): void {
  for (let i = 0; i < VALUE_OF.length; i++) into.push((VALUE_OF[i] as (r: LedgerRow, b: Batch) => unknown)(r, b) ?? null);
}

/** Every string of the named columns of `rows` (prices as JSON text, made once per pricing object: a model's rows share its config's). */
export function namesIn(rows: readonly LedgerRow[]): { names: Set<string>; prices: Map<object, string> } {
  const names = new Set<string>();
  const prices = new Map<object, string>();
  for (const r of rows) {
    for (let i = 0; i < NAMED.length; i++) {
      const name = (NAMED[i] as (typeof NAMED)[number])[1](r);
      if (name !== null) names.add(name);
    }
    const p = r.price;
    if (p && !prices.has(p)) {
      const text = JSON.stringify(p);
      prices.set(p, text);
      names.add(text);
    }
  }
  return { names, prices };
}

/** Every id of the named columns of `found`. */
export function idsIn(found: ReadonlyArray<Selectable<LedgerRowsTable>>): Set<number> {
  const ids = new Set<number>();
  for (const d of found) {
    for (let i = 0; i < NAMED_COLUMNS.length; i++) {
      const id = d[NAMED_COLUMNS[i] as keyof LedgerRowsTable];
      if (id !== null && id !== undefined) ids.add(num(id));
    }
  }
  return ids;
}

export function fromDb(d: Selectable<LedgerRowsTable>, names: ReadonlyMap<number, string>): LedgerRow {
  const name = (id: number | string | null): string | null => (id === null ? null : (names.get(num(id)) ?? null));
  const price = name(d.price_ref);
  return {
    traceId: d.trace_id,
    requestId: d.request_id,
    time: num(d.time),
    keyId: name(d.key_ref) ?? '',
    method: name(d.method_ref) ?? '',
    route: name(d.route_ref) ?? '',
    protocol: name(d.protocol_ref),
    model: name(d.model_ref),
    requestedModel: name(d.requested_model_ref),
    resolvedModel: name(d.resolved_model_ref),
    provider: name(d.provider_ref),
    deployment: name(d.deployment_ref),
    status: num(d.status),
    errorCode: name(d.error_code_ref),
    attempts: num(d.attempts),
    fallbacks: num(d.fallbacks),
    inputTokens: numOrNull(d.input_tokens),
    outputTokens: numOrNull(d.output_tokens),
    cachedTokens: numOrNull(d.cached_tokens),
    reasoningTokens: numOrNull(d.reasoning_tokens),
    images: numOrNull(d.images),
    videoSeconds: numOrNull(d.video_seconds),
    costUsd: numOrNull(d.cost_usd),
    price: price ? (JSON.parse(price) as LedgerRow['price']) : null,
    latencyMs: num(d.latency_ms),
    ttftMs: numOrNull(d.ttft_ms),
    stream: num(d.stream) === 1,
    byok: num(d.byok) === 1,
    cacheHit: num(d.cache_hit) === 1,
  };
}

