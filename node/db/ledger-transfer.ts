/**
 * Node-only: ledger rows packed for the writer thread (worker-ledger-sink.ts -> ledger-worker.ts).
 *
 * postMessage copies an array of row objects with the structured clone algorithm, field name by
 * field name: measured on this machine (2026-11-28, 200-row parts) 2.1 us of the main thread per
 * row to post, as much again for the thread to read, in all about 4 us of CPU per request on the
 * same core; the ledger-sink bench (bench/ledger-sink.ts, one core) measured the writer thread at
 * 15.6 us per row against 11.5 written inline. Here a part is one Float64Array (moved to the
 * thread, not copied: its buffer is transferred) with a fixed number of slots per row, plus the
 * part's distinct strings and pricing objects, each once: numbers as they are (null as NaN, which
 * no ledger number is), strings and prices as their index (-1: null), booleans as 0 or 1.
 */
import type { PricingConfig } from '../../src/config/schema.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';

/** A part of a batch as it crosses to the thread. */
export interface PackedRows {
  count: number;
  numbers: Float64Array<ArrayBuffer>;
  strings: string[];
  prices: PricingConfig[];
}

/** Slots per row in `numbers` (every LedgerRow field: packRows and unpackRows list them in this order; the round-trip test holds them to LedgerRow). */
const SLOTS = 29;

/** The values a part refers to by index (-1: null): each repeated one (key id, model, route, a pricing object) once, a row's own ones (trace id) as they come. */
class Table<T> {
  readonly items: T[] = [];
  private readonly seen = new Map<T, number>();

  once(v: T | null): number {
    if (v === null) return -1;
    let i = this.seen.get(v);
    if (i === undefined) {
      i = this.items.push(v) - 1;
      this.seen.set(v, i);
    }
    return i;
  }

  own(v: T | null): number {
    return v === null ? -1 : this.items.push(v) - 1;
  }
}

const n = (v: number | null): number => (v === null ? NaN : v);
const back = (v: number): number | null => (Number.isNaN(v) ? null : v);

export function packRows(rows: readonly LedgerRow[]): PackedRows {
  const numbers = new Float64Array(rows.length * SLOTS);
  const t = new Table<string>();
  const prices = new Table<PricingConfig>();
  let o = 0;
  for (const r of rows) {
    numbers[o] = t.own(r.traceId);
    numbers[o + 1] = t.own(r.requestId);
    numbers[o + 2] = r.time;
    numbers[o + 3] = t.once(r.keyId);
    numbers[o + 4] = t.once(r.method);
    numbers[o + 5] = t.once(r.route);
    numbers[o + 6] = t.once(r.protocol);
    numbers[o + 7] = t.once(r.model);
    numbers[o + 8] = t.once(r.requestedModel);
    numbers[o + 9] = t.once(r.resolvedModel);
    numbers[o + 10] = t.once(r.provider);
    numbers[o + 11] = t.once(r.deployment);
    numbers[o + 12] = r.status;
    numbers[o + 13] = t.once(r.errorCode);
    numbers[o + 14] = r.attempts;
    numbers[o + 15] = r.fallbacks;
    numbers[o + 16] = n(r.inputTokens);
    numbers[o + 17] = n(r.outputTokens);
    numbers[o + 18] = n(r.cachedTokens);
    numbers[o + 19] = n(r.reasoningTokens);
    numbers[o + 20] = n(r.images);
    numbers[o + 21] = n(r.videoSeconds);
    numbers[o + 22] = n(r.costUsd);
    numbers[o + 23] = prices.once(r.price);
    numbers[o + 24] = r.latencyMs;
    numbers[o + 25] = n(r.ttftMs);
    numbers[o + 26] = r.stream ? 1 : 0;
    numbers[o + 27] = r.byok ? 1 : 0;
    numbers[o + 28] = r.cacheHit ? 1 : 0;
    o += SLOTS;
  }
  return { count: rows.length, numbers, strings: t.items, prices: prices.items };
}

/** The rows of a packed part, appended to `into`. */
export function unpackRows(packed: PackedRows, into: LedgerRow[] = []): LedgerRow[] {
  const { numbers: v, strings, prices } = packed;
  const s = (i: number): string | null => (i < 0 ? null : (strings[i] as string));
  for (let o = 0; o < packed.count * SLOTS; o += SLOTS) {
    const price = v[o + 23] as number;
    into.push({
      traceId: s(v[o] as number) as string,
      requestId: s(v[o + 1] as number),
      time: v[o + 2] as number,
      keyId: s(v[o + 3] as number) as string,
      method: s(v[o + 4] as number) as string,
      route: s(v[o + 5] as number) as string,
      protocol: s(v[o + 6] as number),
      model: s(v[o + 7] as number),
      requestedModel: s(v[o + 8] as number),
      resolvedModel: s(v[o + 9] as number),
      provider: s(v[o + 10] as number),
      deployment: s(v[o + 11] as number),
      status: v[o + 12] as number,
      errorCode: s(v[o + 13] as number),
      attempts: v[o + 14] as number,
      fallbacks: v[o + 15] as number,
      inputTokens: back(v[o + 16] as number),
      outputTokens: back(v[o + 17] as number),
      cachedTokens: back(v[o + 18] as number),
      reasoningTokens: back(v[o + 19] as number),
      images: back(v[o + 20] as number),
      videoSeconds: back(v[o + 21] as number),
      costUsd: back(v[o + 22] as number),
      price: price < 0 ? null : (prices[price] as PricingConfig),
      latencyMs: v[o + 24] as number,
      ttftMs: back(v[o + 25] as number),
      stream: v[o + 26] === 1,
      byok: v[o + 27] === 1,
      cacheHit: v[o + 28] === 1,
    });
  }
  return into;
}
