/**
 * The ledger's rows in the database and back (store version 6): which column holds what, a row's
 * INSERT parameters, and the named columns (ids of `ledger_names` lines) read back as strings.
 */
import type { Selectable } from 'kysely';
import type { LedgerRowsTable } from '../db/schema-ledger.js';
import type { LedgerRow } from './ledger-row.js';

export const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));

/** A row's JSON text of its price, made once per pricing object (the model's pricing config, shared by its rows). */
const priceTexts = new WeakMap<object, string>();
function priceText(r: LedgerRow): string | null {
  const p = r.price;
  if (!p) return null;
  let text = priceTexts.get(p);
  if (text === undefined) {
    text = JSON.stringify(p);
    priceTexts.set(p, text);
  }
  return text;
}

/** The named columns (store version 6): each a ledger_names id, from a row's string. */
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
  ['price_ref', priceText],
];
export type Ids = ReadonlyMap<string, number>;

/** The id of a named column's string, or null (the batch's ids hold every string of its rows). */
const ref = (ids: Ids, name: string | null): number | null => (name === null ? null : (ids.get(name) as number));

/**
 * How each column is filled from a row, in the INSERT's column order (every column of the table:
 * the Record type makes a missing one a compile error). One table for the statement's columns and
 * its parameters, appended without an object per row.
 */
const COLUMN_VALUES: Readonly<Record<keyof LedgerRowsTable, (r: LedgerRow, ids: Ids) => unknown>> = {
  trace_id: (r) => r.traceId,
  request_id: (r) => r.requestId,
  time: (r) => r.time,
  key_ref: (r, ids) => ids.get(r.keyId),
  method_ref: (r, ids) => ids.get(r.method),
  route_ref: (r, ids) => ids.get(r.route),
  protocol_ref: (r, ids) => ref(ids, r.protocol),
  model_ref: (r, ids) => ref(ids, r.model),
  requested_model_ref: (r, ids) => ref(ids, r.requestedModel),
  resolved_model_ref: (r, ids) => ref(ids, r.resolvedModel),
  provider_ref: (r, ids) => ref(ids, r.provider),
  deployment_ref: (r, ids) => ref(ids, r.deployment),
  status: (r) => r.status,
  error_code_ref: (r, ids) => ref(ids, r.errorCode),
  attempts: (r) => r.attempts,
  fallbacks: (r) => r.fallbacks,
  input_tokens: (r) => r.inputTokens,
  output_tokens: (r) => r.outputTokens,
  cached_tokens: (r) => r.cachedTokens,
  reasoning_tokens: (r) => r.reasoningTokens,
  images: (r) => r.images,
  video_seconds: (r) => r.videoSeconds,
  cost_usd: (r) => r.costUsd,
  price_ref: (r, ids) => ref(ids, priceText(r)),
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
export function pushParameters(into: unknown[], r: LedgerRow, ids: Ids): void {
  for (let i = 0; i < VALUE_OF.length; i++) into.push((VALUE_OF[i] as (r: LedgerRow, ids: Ids) => unknown)(r, ids) ?? null);
}

/** Every string of the named columns of `rows`. */
export function namesIn(rows: readonly LedgerRow[]): Set<string> {
  const names = new Set<string>();
  for (const r of rows) {
    for (let i = 0; i < NAMED.length; i++) {
      const name = (NAMED[i] as (typeof NAMED)[number])[1](r);
      if (name !== null) names.add(name);
    }
  }
  return names;
}

/** Every id of the named columns of `found`. */
export function idsIn(found: ReadonlyArray<Selectable<LedgerRowsTable>>): Set<number> {
  const ids = new Set<number>();
  for (const d of found) {
    for (let i = 0; i < NAMED.length; i++) {
      const id = d[(NAMED[i] as (typeof NAMED)[number])[0]];
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

