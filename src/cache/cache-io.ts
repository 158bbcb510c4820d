/**
 * Reading and writing the response cache for one request: each call bounded by the store deadline,
 * a failing or late store being a miss (or an answer not kept), never a failed request.
 */
import { withDeadline } from '../core/deadline.js';
import type { CachePlan } from './cache-policy.js';
import type { CachedAnswer, CacheEntry, ResponseCache } from './response-cache.js';

export interface CacheDeps {
  /** `skipUntil`: the gateway's clock until which the cache is skipped after a failed call (see SKIP_AFTER_FAILURE_MS). */
  cache: { store: ResponseCache; timeoutMs: number; skipUntil?: number };
  now: () => number;
}

const late = () => new Error('response cache call timed out');

/**
 * After a store call fails or runs past its deadline, the cache is skipped (every lookup a miss,
 * nothing kept) for this long: a store that stopped answering costs one request the deadline, not
 * every cacheable request twice the deadline (read and write), until it answers again.
 */
const SKIP_AFTER_FAILURE_MS = 5000;

function skipping(deps: CacheDeps): boolean {
  const until = deps.cache.skipUntil;
  return until !== undefined && deps.now() < until;
}

function failed(deps: CacheDeps): void {
  deps.cache.skipUntil = deps.now() + SKIP_AFTER_FAILURE_MS;
}

/** The live entry for the plan (younger than `max-age` when asked), or undefined. */
export async function readCached(deps: CacheDeps, plan: CachePlan): Promise<CacheEntry | undefined> {
  if (!plan.read || skipping(deps)) return undefined;
  let text: string | undefined;
  try {
    text = await withDeadline(() => deps.cache.store.get(plan.key), deps.cache.timeoutMs, late, (e) => e);
  } catch {
    failed(deps);
    return undefined;
  }
  if (!text) return undefined;
  let entry: CacheEntry;
  try {
    entry = JSON.parse(text) as CacheEntry;
  } catch {
    return undefined;
  }
  if (!entry || typeof entry !== 'object' || !entry.answer || typeof entry.storedAt !== 'number') return undefined;
  if (plan.maxAgeMs !== undefined && deps.now() - entry.storedAt > plan.maxAgeMs) return undefined;
  return entry;
}

/** Keeps a complete, successful answer; a store failure only means it is not kept. */
export async function writeCached(deps: CacheDeps, plan: CachePlan, answer: CachedAnswer, costUsd: number | undefined): Promise<void> {
  if (skipping(deps)) return;
  const entry: CacheEntry = { answer, storedAt: deps.now(), ...(costUsd !== undefined ? { costUsd } : {}) };
  try {
    await withDeadline(() => deps.cache.store.set(plan.key, JSON.stringify(entry), plan.ttlMs), deps.cache.timeoutMs, late, (e) => e);
  } catch {
    // not kept: the next identical request is a miss
    failed(deps);
  }
}

/** What a hit costs: the configured fraction of the original price (0 by default). */
export function hitCost(plan: CachePlan, entry: CacheEntry): number {
  if (!plan.hitCostFraction || entry.costUsd === undefined) return 0;
  return Math.round(entry.costUsd * plan.hitCostFraction * 1e9) / 1e9;
}
