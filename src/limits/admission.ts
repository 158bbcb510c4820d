/**
 * Admission of a request against its limits, in two steps:
 *
 * 1. `admitKey`, when the caller is known (every authenticated request): the key's requests per minute.
 * 2. `admitModelCall`, when the model and the body are known (calls that reach a model): the
 *    key's tokens per minute, concurrency and budget, and the model's requests and tokens per
 *    minute, concurrency and budget, all in one atomic acquire. Budgets are not checked (nor
 *    charged) when the caller's own upstream credential pays.
 *
 * A refusal is a 429 with Retry-After (`insufficient_quota` for a spent budget); the tightest
 * requests and tokens limits are kept on the request for the `x-ratelimit-*` headers.
 */
import type { Principal } from '../auth/principal.js';
import type { LimitsConfig } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { RequestContext } from '../runtime.js';
import type { TokenEstimate } from './estimate-request.js';
import { costOf, NANO_PER_USD } from './cost.js';
import { periodBounds } from './periods.js';
import type { AcquireResult, LimitCheck, LimitState } from './rate-limiter.js';
import { RequestLease, type LeaseParts, type LimitSnapshot, type RequestLimits } from './request-lease.js';

const MINUTE_MS = 60_000;
/** A slot whose holder vanished (instance crash) frees itself this long after the longest allowed request. */
const LEASE_GRACE_MS = 60_000;

type Scope = { kind: 'key'; id: string } | { kind: 'model'; id: string };
type What = 'requests' | 'tokens' | 'concurrency' | 'budget';

interface Labeled {
  check: LimitCheck;
  scope: Scope;
  what: What;
  /** Budget only: the configured amount and period, for the message. */
  budget?: NonNullable<LimitsConfig['budget']>;
}

export function requestLimits(ctx: RequestContext): RequestLimits {
  if (!ctx.limits) ctx.limits = {};
  return ctx.limits;
}

function nameOf(scope: Scope, what: string): string {
  return `${scope.kind}:${encodeURIComponent(scope.id)}:${what}`;
}

/** Step 1: the key's requests per minute, counted for every authenticated request. */
export async function admitKey(ctx: RequestContext, principal: Principal): Promise<void> {
  const state = requestLimits(ctx);
  if (state.keyAdmitted) return;
  state.keyAdmitted = true;
  const rpm = principal.limits?.requestsPerMinute;
  if (!rpm) return;
  const scope: Scope = { kind: 'key', id: principal.id };
  await run(ctx, [{ check: { kind: 'window', name: nameOf(scope, 'rpm'), limit: rpm, windowMs: MINUTE_MS, amount: 1 }, scope, what: 'requests' }]);
}

/**
 * Step 2: the limits of the call to `model`. `estimate` is asked only when a tokens-per-minute
 * limit applies (undefined: the call has no token cost, e.g. a video submission). A request that
 * was already admitted (a background run continuing its submission) keeps its lease.
 */
export async function admitModelCall(ctx: RequestContext, principal: Principal, model: ResolvedModel, estimate: () => TokenEstimate | undefined): Promise<void> {
  const state = requestLimits(ctx);
  if (state.modelAdmitted) return;
  state.modelAdmitted = true;
  const own = model.provider.credential === 'caller';
  const now = ctx.rt.now();
  const leaseMs = ctx.rt.config.timeouts.totalMs + LEASE_GRACE_MS;
  let tokens: TokenEstimate | undefined | null = null;
  const reserve = (): TokenEstimate | undefined => {
    if (tokens === null) tokens = estimate();
    return tokens;
  };
  const amount = (): number | undefined => {
    const t = reserve();
    return t ? t.input + t.output : undefined;
  };
  const labeled: Labeled[] = [];
  const add = (scope: Scope, limits: LimitsConfig | undefined, withRequests: boolean): void => {
    if (!limits) return;
    if (withRequests && limits.requestsPerMinute) {
      labeled.push({ check: { kind: 'window', name: nameOf(scope, 'rpm'), limit: limits.requestsPerMinute, windowMs: MINUTE_MS, amount: 1 }, scope, what: 'requests' });
    }
    const n = limits.tokensPerMinute ? amount() : undefined;
    if (limits.tokensPerMinute && n !== undefined) {
      labeled.push({ check: { kind: 'window', name: nameOf(scope, 'tpm'), limit: limits.tokensPerMinute, windowMs: MINUTE_MS, amount: n }, scope, what: 'tokens' });
    }
    if (limits.concurrentRequests) {
      labeled.push({ check: { kind: 'concurrency', name: nameOf(scope, 'concurrent'), limit: limits.concurrentRequests, member: ctx.traceId, leaseMs }, scope, what: 'concurrency' });
    }
    if (limits.budget && !own) {
      const period = periodBounds(limits.budget.period, now);
      labeled.push({ check: { kind: 'budget', name: nameOf(scope, `budget-${limits.budget.period}`), limit: Math.round(limits.budget.usd * 1e9), resetAt: period.end }, scope, what: 'budget', budget: limits.budget });
    }
  };
  // The key's requests were counted in step 1.
  add({ kind: 'key', id: principal.id }, principal.limits, false);
  if (!model.direct) add({ kind: 'model', id: model.id }, model.limits, true);
  if (!labeled.length) return;
  const result = await run(ctx, labeled);
  if (!result.states.length) return; // the store could not be asked and onError is "open"
  const parts: LeaseParts = { tokenWindows: [], slots: [], budgets: [] };
  // A call whose usage never arrives (a stream the client left, or that broke off) still costs
  // something: its budgets get the price of its reservation, as its token windows keep it.
  const reserved = labeled.some((l) => l.what === 'budget') ? reserve() : undefined;
  const price = reserved ? costOf(model.pricing, { inputTokens: reserved.input, outputTokens: reserved.output }) : undefined;
  if (price) parts.estimatedCostNano = Math.round(price * NANO_PER_USD);
  labeled.forEach(({ check, what }, i) => {
    const s = result.states[i] as LimitState;
    if (check.kind === 'window' && what === 'tokens') parts.tokenWindows.push({ name: check.name, resetAt: s.resetAt, reserved: check.amount });
    else if (check.kind === 'concurrency') parts.slots.push({ name: check.name, member: check.member });
    else if (check.kind === 'budget') parts.budgets.push({ name: check.name, resetAt: check.resetAt });
  });
  state.lease = new RequestLease(ctx.rt.rateLimiter, ctx.rt.now, parts);
}

/** One acquire: records the header snapshots, throws the 429 of the first limit without room. */
async function run(ctx: RequestContext, labeled: Labeled[]): Promise<AcquireResult> {
  const now = ctx.rt.now();
  const result = await ctx.rt.rateLimiter.acquire(labeled.map((l) => l.check), now);
  const state = requestLimits(ctx);
  labeled.forEach((l, i) => {
    const s = result.states[i];
    if (!s || l.check.kind !== 'window') return;
    const snap: LimitSnapshot = { limit: l.check.limit, remaining: Math.max(0, l.check.limit - s.used), resetAt: s.resetAt };
    if (l.what === 'requests') state.requests = tighter(state.requests, snap);
    else state.tokens = tighter(state.tokens, snap);
  });
  if (!result.allowed && result.denied !== undefined) {
    const l = labeled[result.denied] as Labeled;
    throw refusal(l, result.states[result.denied] as LimitState, now);
  }
  return result;
}

function tighter(a: LimitSnapshot | undefined, b: LimitSnapshot): LimitSnapshot {
  if (!a) return b;
  if (b.remaining !== a.remaining) return b.remaining < a.remaining ? b : a;
  return b.limit < a.limit ? b : a;
}

function whose(scope: Scope): string {
  return scope.kind === 'key' ? 'this API key' : `the model '${scope.id}'`;
}

function refusal(l: Labeled, s: LimitState, now: number): GatewayError {
  const seconds = (until: number): number => Math.max(1, Math.ceil((until - now) / 1000));
  const c = l.check;
  if (c.kind === 'budget') {
    const b = l.budget as NonNullable<LimitsConfig['budget']>;
    return new GatewayError('rate_limited', `You exceeded your current quota: the budget of $${b.usd} per ${b.period} of ${whose(l.scope)} is spent. It renews at ${new Date(c.resetAt).toISOString()}.`, {
      retryAfter: seconds(c.resetAt),
      detail: 'insufficient_quota',
    });
  }
  if (c.kind === 'concurrency') {
    return new GatewayError('rate_limited', `Limit of ${c.limit} concurrent requests reached for ${whose(l.scope)}.`, { retryAfter: 1, detail: 'rate_limit_exceeded' });
  }
  if (l.what === 'tokens') {
    const tooLarge = c.amount > c.limit;
    return new GatewayError(
      'rate_limited',
      tooLarge
        ? `Request too large: it may use about ${c.amount} tokens (estimated input plus the requested maximum output), more than the limit of ${c.limit} tokens per minute for ${whose(l.scope)}. Send less input or a lower maximum output.`
        : `Rate limit of ${c.limit} tokens per minute reached for ${whose(l.scope)}: used ${s.used}, requested about ${c.amount}.`,
      { retryAfter: seconds(s.resetAt), detail: 'rate_limit_exceeded' },
    );
  }
  return new GatewayError('rate_limited', `Rate limit of ${c.limit} requests per minute reached for ${whose(l.scope)}.`, { retryAfter: seconds(s.resetAt), detail: 'rate_limit_exceeded' });
}
