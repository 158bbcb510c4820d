/**
 * GET /v1/key: a platform key's own view of itself (OpenRouter's `/key`): its name, models, limits,
 * expiry and status, spend in the current budget period and what remains of the budget, requests
 * today and its requests-per-minute state. Never the secret.
 */
import type { Reply } from '../reply/reply.js';
import { keyBudgetName, keyRequestsState } from '../limits/admission.js';
import { NANO_PER_USD } from '../limits/cost.js';
import { periodBounds } from '../limits/periods.js';
import type { EndpointContext } from './services.js';
import { authenticate, jsonResponse } from './common.js';

const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

export async function getOwnKey(ctx: EndpointContext): Promise<Reply> {
  // Not counted against the key's requests per minute: it still answers when they are spent.
  const principal = await authenticate(ctx, { admit: false });
  const now = ctx.services.now();
  const stored = ctx.services.control?.keyCache.get(principal.id);
  const fromConfig = stored ? undefined : ctx.services.config.keys.find((k) => k.id === principal.id);
  const limits = principal.limits ?? null;
  const budget = limits?.budget;
  const day = periodBounds('day', now);
  const period = budget ? periodBounds(budget.period, now) : day;
  let spendUsd: number | null = null;
  let used: number | undefined;
  if (budget) {
    // A budget check with no ceiling takes nothing: it reads the period's total (which starts
    // from the ledger's spend when the store has none yet, as a model call's check does).
    const seed = await ctx.services.admission.budgetSeeds?.spent(principal.id, period.start);
    const read = await ctx.services.rateLimiter.acquire([{ kind: 'budget', name: keyBudgetName(principal.id, budget.period), limit: Number.MAX_SAFE_INTEGER, resetAt: period.end, ...(seed ? { seed } : {}) }], now);
    used = read.states[0]?.used;
    if (used !== undefined) spendUsd = used / NANO_PER_USD;
  }
  const count = ctx.services.control?.requestCount;
  const requestsToday = count ? await count(principal.id, day.start).catch(() => null) : null;
  const rpmLimit = limits?.requestsPerMinute;
  const rpm = rpmLimit ? await keyRequestsState(ctx.services.rateLimiter, principal.id, rpmLimit, now) : undefined;
  return jsonResponse(ctx, {
    object: 'key',
    id: principal.id,
    name: stored?.row.name ?? principal.id,
    models: principal.models ?? ['*'],
    limits,
    expiresAt: iso(stored?.row.expires_at),
    status: stored?.row.status ?? (fromConfig?.disabled ? 'disabled' : 'active'),
    source: stored ? 'store' : fromConfig ? 'config' : 'host',
    usage: {
      periodStart: new Date(period.start).toISOString(),
      spendUsd,
      budgetRemainingUsd: budget && used !== undefined ? budgetRemainingUsd(budget.usd, used) : null,
      requestsToday,
    },
    rateLimit: { requests: rpm ? { limit: rpm.limit, remaining: rpm.remaining, resetAt: new Date(rpm.resetAt).toISOString() } : null },
  });
}

/** What is left of a budget of `usd` after `usedNano` nano-dollars, counted in whole nano-dollars as spend is (3.3 spent of 4 leaves 0.7, not 0.7000000000000002). */
export function budgetRemainingUsd(usd: number, usedNano: number): number {
  return Math.max(0, Math.round(usd * NANO_PER_USD) - usedNano) / NANO_PER_USD;
}
