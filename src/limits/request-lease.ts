/**
 * What one admitted request holds until it ends: its token reservations, its concurrency slots
 * and the budgets its cost goes to. `settle` (real usage known) and `release` (response over,
 * client gone, or failed) each act once, however many paths report the end.
 */
import type { PricingConfig } from '../config/schema.js';
import type { IRUsage } from '../ir/types.js';
import { costOf, NANO_PER_USD } from './cost.js';
import type { RateLimiter } from './rate-limiter.js';

export interface LeaseParts {
  /** Token windows and how many tokens were reserved in each. */
  tokenWindows: Array<{ name: string; resetAt: number; reserved: number }>;
  /** Concurrency slots (name + this request's member id). */
  slots: Array<{ name: string; member: string }>;
  /** Budgets the cost is added to (none when the caller's own upstream credential pays). */
  budgets: Array<{ name: string; resetAt: number }>;
  /** The price of the reservation (estimated input + maximum output), charged when no usage is ever reported. */
  estimatedCostNano?: number;
}

export class RequestLease {
  private settled = false;
  private released = false;

  constructor(private readonly store: RateLimiter, private readonly now: () => number, private readonly parts: LeaseParts) {}

  /**
   * Replaces the token reservation with the real usage and adds the cost to the budgets (once).
   * `complete` false: the answer ended unfinished (the client left, the stream broke off), so the
   * usage seen is only what was reported before the end (Anthropic reports output tokens last).
   */
  async settle(usage: IRUsage | undefined, costNano: number | undefined, complete = true): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    const now = this.now();
    const work: Array<Promise<void>> = [];
    const actual = usage ? (usage.totalTokens ?? (usage.inputTokens === undefined && usage.outputTokens === undefined ? undefined : (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0))) : undefined;
    // Without a reported usage the reservation stands: the estimate is the best count there is.
    // An unfinished answer's usage is a floor: the reservation stands unless the usage passed it.
    if (actual !== undefined) {
      for (const w of this.parts.tokenWindows) {
        const used = complete ? actual : Math.max(actual, w.reserved);
        if (used !== w.reserved) work.push(this.store.adjust(w.name, w.resetAt, used - w.reserved, now));
      }
    }
    // Likewise the budgets: a call without reported usage, or an unfinished one, is charged at least
    // its reservation, or leaving a stream early would dodge the budget.
    const estimate = this.parts.estimatedCostNano;
    const charge = complete && usage !== undefined ? costNano : Math.max(costNano ?? 0, estimate ?? 0) || undefined;
    if (charge) for (const b of this.parts.budgets) work.push(this.store.spend(b.name, charge, b.resetAt, now));
    await Promise.all(work.map((p) => p.catch(() => undefined)));
  }

  /** Adds what a fallback model's admission holds (before the request ends). */
  join(more: LeaseParts): void {
    this.parts.tokenWindows.push(...more.tokenWindows);
    this.parts.slots.push(...more.slots);
    this.parts.budgets.push(...more.budgets);
    if (more.estimatedCostNano !== undefined) this.parts.estimatedCostNano = Math.max(this.parts.estimatedCostNano ?? 0, more.estimatedCostNano);
  }

  /** Frees the concurrency slots (once). */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await Promise.all(this.parts.slots.map((s) => this.store.release(s.name, s.member).catch(() => undefined)));
  }
}

/** A request's limit state: the tightest limits seen (for the headers), its lease and its cost. */
export interface LimitSnapshot {
  limit: number;
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
}

export interface RequestLimits {
  requests?: LimitSnapshot;
  tokens?: LimitSnapshot;
  lease?: RequestLease;
  /** USD, once the usage is known (sync answers: before the response leaves). */
  costUsd?: number;
  keyAdmitted?: boolean;
  /** Set once the model call was admitted (a background run continues its submission's admission). */
  modelAdmitted?: boolean;
  /** Fallback models whose own limits were admitted for this request. */
  fallbacksAdmitted?: Set<string>;
  /**
   * The lease belongs to a background run started by this request (heldByRun): the end of the
   * submission's answer leaves it alone, and the runner releases it when the run is over.
   */
  heldByRun?: boolean;
}

/**
 * The end of a request's upstream work: the cost from `pricing` and the real usage, and the lease
 * settled with them (`fixedCostUsd`: a price not from tokens, e.g. seconds of video). Returns the
 * cost (undefined when unknown). Safe to call on every path; the first call settles. The lease's
 * slots are released in one place, when the request's answer is over (releaseRequest, called by
 * the gateway for every route, and by the background runner for a run).
 */
export async function settleRequest(state: RequestLimits, pricing: PricingConfig | undefined, usage: IRUsage | undefined, complete = true, fixedCostUsd?: number): Promise<number | undefined> {
  // A cost known without token usage (seconds of video) is the cost.
  const cost = fixedCostUsd ?? costOf(pricing, usage);
  if (cost !== undefined && state.costUsd === undefined) state.costUsd = cost;
  await state.lease?.settle(usage, cost === undefined ? undefined : Math.round(cost * NANO_PER_USD), complete);
  return cost;
}

/**
 * Frees what the request holds (its concurrency slots; a lease never settled keeps its
 * reservation as the count), once. Undefined when there is nothing to release.
 */
export function releaseRequest(state: RequestLimits | undefined): Promise<void> | undefined {
  return state?.lease?.release();
}
