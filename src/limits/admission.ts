/**
 * Admission of a request against its limits, in two steps:
 *
 * 1. `admitKey`, when the caller is known (every authenticated request): the key's requests per minute.
 * 2. `admitModelCall`, when the model and the body are known (calls that reach a model): the
 *    key's tokens per minute, concurrency and budget, and the model's requests and tokens per
 *    minute, concurrency and budget, all in one atomic acquire. Budgets are not checked (nor
 *    charged) when the caller's own upstream credential pays.
 * 3. `admitFallbackModel`, when the routing moves to a fallback model: that model's own limits.
 *
 * A refusal is a 429 with Retry-After (`insufficient_quota` for a spent budget); the tightest
 * requests and tokens limits are kept on the request for the `x-ratelimit-*` headers.
 */
import type { Principal } from '../auth/principal.js';
import type { LimitsConfig } from '../config/schema.js';
import { GatewayError } from '../core/errors.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { RequestContext } from '../request/context.js';
import type { TokenEstimate } from './estimate-request.js';
import { costOf, NANO_PER_USD } from './cost.js';
import { periodBounds } from './periods.js';
import type { AcquireResult, LimitCheck, LimitState, RateLimiter } from './rate-limiter.js';
import type { BudgetSeeds } from './budget-seeds.js';
import { RequestLease, type LeaseParts, type LimitSnapshot, type RequestLimits } from './request-lease.js';

const MINUTE_MS = 60_000;
/** A slot whose holder vanished (instance crash) frees itself this long after the longest allowed request. */
const LEASE_GRACE_MS = 60_000;

/** What admission uses of the gateway; built once per gateway. */
export interface AdmissionServices {
  rateLimiter: RateLimiter;
  now: () => number;
  /** The whole time a request may take (`timeouts.totalMs`): a concurrency slot outlives it by a grace period at most. */
  totalMs: number;
  /** Where a key's budget period starts when the store holds no total for it (the usage ledger's spend); absent without a ledger. */
  budgetSeeds?: Pick<BudgetSeeds, 'spent'>;
}

type Scope = { kind: 'key'; id: string } | { kind: 'model'; id: string };
type What = 'requests' | 'tokens' | 'concurrency' | 'budget';

interface Labeled {
  check: LimitCheck;
  scope: Scope;
  what: What;
  /** Budget only: the configured amount and period, for the message. */
  budget?: NonNullable<LimitsConfig['budget']>;
  /** A key's budget: the ledger's spend in the period (BudgetSeeds.spent), the check's seed once known. */
  seed?: ReturnType<BudgetSeeds['spent']>;
}

export function requestLimits(ctx: RequestContext): RequestLimits {
  if (!ctx.limits) ctx.limits = {};
  return ctx.limits;
}

function nameOf(scope: Scope, what: string): string {
  return `${scope.kind}:${encodeURIComponent(scope.id)}:${what}`;
}

/** The store name of a key's requests-per-minute window. */
function keyRequestsName(keyId: string): string {
  return nameOf({ kind: 'key', id: keyId }, 'rpm');
}

/** A key's requests-per-minute state, read without counting a request (GET /v1/key): a window check that takes nothing. */
export async function keyRequestsState(rateLimiter: RateLimiter, keyId: string, limit: number, now: number): Promise<{ limit: number; remaining: number; resetAt: number }> {
  const read = await rateLimiter.acquire([{ kind: 'window', name: keyRequestsName(keyId), limit: Number.MAX_SAFE_INTEGER, windowMs: MINUTE_MS, amount: 0 }], now);
  const state = read.states[0];
  return { limit, remaining: Math.max(0, limit - (state?.used ?? 0)), resetAt: state?.resetAt ?? now + MINUTE_MS };
}

/** The store name of a key's budget counter for `period` (GET /v1/key reads it). */
export function keyBudgetName(keyId: string, period: NonNullable<LimitsConfig['budget']>['period']): string {
  return nameOf({ kind: 'key', id: keyId }, `budget-${period}`);
}

/** Step 1: the key's requests per minute, counted for every authenticated request. */
export function admitKey(services: AdmissionServices, ctx: RequestContext, principal: Principal): Promise<void> | undefined {
  const state = requestLimits(ctx);
  if (state.keyAdmitted) return undefined;
  state.keyAdmitted = true;
  const rpm = principal.limits?.requestsPerMinute;
  // Most keys have no limit: no promise, no store call.
  if (!rpm) return undefined;
  const scope: Scope = { kind: 'key', id: principal.id };
  return run(services, ctx, [{ check: { kind: 'window', name: keyRequestsName(principal.id), limit: rpm, windowMs: MINUTE_MS, amount: 1 }, scope, what: 'requests' }]).then(() => undefined);
}

/**
 * Step 2: the limits of the call to `model`. `estimate` is asked only when a tokens-per-minute
 * limit applies (undefined: the call has no token cost, e.g. a video submission). A request that
 * was already admitted (a background run continuing its submission) keeps its lease.
 */
export async function admitModelCall(services: AdmissionServices, ctx: RequestContext, principal: Principal, model: ResolvedModel, estimate: () => TokenEstimate | undefined): Promise<void> {
  const state = requestLimits(ctx);
  if (state.modelAdmitted) return;
  state.modelAdmitted = true;
  if (!principal.limits && (model.direct || !model.limits)) return;
  const checks = new Checks(services, ctx, model, estimate);
  // The key's requests were counted in step 1.
  checks.add({ kind: 'key', id: principal.id }, principal.limits, false);
  if (!model.direct) checks.add({ kind: 'model', id: model.id }, model.limits, true);
  const parts = await checks.acquire();
  if (parts) state.lease = new RequestLease(services.rateLimiter, services.now, parts);
}

/**
 * A fallback model the routing moves to: its own requests and tokens per minute, concurrency and
 * budget apply too (the key's were admitted with the model asked for), once per request and model.
 * What it holds joins the request's lease, so the end of the request settles and releases it.
 * Throws the 429 of its first limit without room (the routing then skips it).
 */
export async function admitFallbackModel(services: AdmissionServices, ctx: RequestContext, model: ResolvedModel, estimate: () => TokenEstimate | undefined): Promise<void> {
  if (model.direct || !model.limits) return;
  const state = requestLimits(ctx);
  const admitted = (state.fallbacksAdmitted ??= new Set<string>());
  if (admitted.has(model.id)) return;
  const checks = new Checks(services, ctx, model, estimate);
  checks.add({ kind: 'model', id: model.id }, model.limits, true);
  const parts = await checks.acquire();
  admitted.add(model.id);
  if (!parts) return;
  if (state.lease) state.lease.join(parts);
  else state.lease = new RequestLease(services.rateLimiter, services.now, parts);
}

/** The checks of one model call, acquired at once; what the call then holds as lease parts. */
class Checks {
  private readonly labeled: Labeled[] = [];
  private readonly own: boolean;
  private readonly now: number;
  private readonly leaseMs: number;
  private tokens: TokenEstimate | undefined | null = null;

  constructor(
    private readonly services: AdmissionServices,
    private readonly ctx: RequestContext,
    private readonly model: ResolvedModel,
    private readonly estimate: () => TokenEstimate | undefined,
  ) {
    this.own = model.provider.credential === 'caller';
    this.now = services.now();
    this.leaseMs = services.totalMs + LEASE_GRACE_MS;
  }

  private reserve(): TokenEstimate | undefined {
    if (this.tokens === null) this.tokens = this.estimate();
    return this.tokens;
  }

  add(scope: Scope, limits: LimitsConfig | undefined, withRequests: boolean): void {
    if (!limits) return;
    const labeled = this.labeled;
    if (withRequests && limits.requestsPerMinute) {
      labeled.push({ check: { kind: 'window', name: nameOf(scope, 'rpm'), limit: limits.requestsPerMinute, windowMs: MINUTE_MS, amount: 1 }, scope, what: 'requests' });
    }
    const t = limits.tokensPerMinute ? this.reserve() : undefined;
    if (limits.tokensPerMinute && t) {
      labeled.push({ check: { kind: 'window', name: nameOf(scope, 'tpm'), limit: limits.tokensPerMinute, windowMs: MINUTE_MS, amount: t.input + t.output }, scope, what: 'tokens' });
    }
    if (limits.concurrentRequests) {
      labeled.push({ check: { kind: 'concurrency', name: nameOf(scope, 'concurrent'), limit: limits.concurrentRequests, member: this.ctx.traceId, leaseMs: this.leaseMs }, scope, what: 'concurrency' });
    }
    if (limits.budget && !this.own) {
      const period = periodBounds(limits.budget.period, this.now);
      const seed = scope.kind === 'key' ? this.services.budgetSeeds?.spent(scope.id, period.start) : undefined;
      labeled.push({ check: { kind: 'budget', name: nameOf(scope, `budget-${limits.budget.period}`), limit: Math.round(limits.budget.usd * 1e9), resetAt: period.end }, scope, what: 'budget', budget: limits.budget, seed });
    }
  }

  /** Acquires every check (429 when one has no room); undefined when nothing is held. */
  async acquire(): Promise<LeaseParts | undefined> {
    const labeled = this.labeled;
    if (!labeled.length) return undefined;
    for (const l of labeled) {
      if (l.seed === undefined || l.check.kind !== 'budget') continue;
      // Known after the key's first call in the period; that first call waits for the ledger.
      const seed = typeof l.seed === 'number' ? l.seed : await l.seed;
      if (seed) l.check.seed = seed;
    }
    const result = await run(this.services, this.ctx, labeled);
    if (!result.states.length) return undefined; // the store could not be asked and onError is "open"
    const parts: LeaseParts = { tokenWindows: [], slots: [], budgets: [] };
    // A call whose usage never arrives (a stream the client left, or that broke off) still costs
    // something: its budgets get the price of its reservation, as its token windows keep it.
    const reserved = labeled.some((l) => l.what === 'budget') ? this.reserve() : undefined;
    const price = reserved ? costOf(this.model.pricing, { inputTokens: reserved.input, outputTokens: reserved.output }) : undefined;
    if (price) parts.estimatedCostNano = Math.round(price * NANO_PER_USD);
    labeled.forEach(({ check, what }, i) => {
      const s = result.states[i] as LimitState;
      if (check.kind === 'window' && what === 'tokens') parts.tokenWindows.push({ name: check.name, resetAt: s.resetAt, reserved: check.amount });
      else if (check.kind === 'concurrency') parts.slots.push({ name: check.name, member: check.member });
      else if (check.kind === 'budget') parts.budgets.push({ name: check.name, resetAt: check.resetAt });
    });
    return parts;
  }
}

/** One acquire: records the header snapshots, throws the 429 of the first limit without room. */
async function run(services: AdmissionServices, ctx: RequestContext, labeled: Labeled[]): Promise<AcquireResult> {
  const now = services.now();
  const result = await services.rateLimiter.acquire(labeled.map((l) => l.check), now);
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
