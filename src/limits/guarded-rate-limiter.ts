/**
 * A shared limit store (Redis) must never hold a request: every call gets a short deadline. When
 * the store fails or is late, `onError: "open"` serves the request without its request, token and
 * concurrency limits (and warns at most once a minute), `"closed"` refuses it with a 503.
 *
 * Budgets never fail open: a request with a budget to check is refused with a 503 (Retry-After,
 * `budget_store_unavailable`) whenever the store cannot answer, whatever `onError` says, or a slow
 * store under load would let every instance spend without limit. And a spend the store did not
 * take in time is not lost: it is kept here and written before the next budget check (which fails
 * closed until it is), so a budget is never undercounted. A late spend the store did apply is then
 * counted twice: a budget errs on the side of holding.
 *
 * Other follow-up writes (settling tokens, releasing) never fail a request; a lease that could not
 * be released ends with its lease time.
 */
import { withDeadline } from '../core/deadline.js';
import { GatewayError } from '../core/errors.js';
import { redact } from '../core/redact.js';
import type { AcquireResult, LimitCheck, RateLimiter } from './rate-limiter.js';

export interface StoreGuardOptions {
  timeoutMs: number;
  onError: 'open' | 'closed';
  warn: (message: string) => void;
  now: () => number;
}

const WARN_EVERY_MS = 60_000;
/** After a failure the store is left alone this long (calls fail at once), so a dead store costs one deadline, not one per call. */
const PAUSE_AFTER_FAILURE_MS = 1000;

interface UnsettledSpend {
  name: string;
  resetAt: number;
  amount: number;
}

function budgetUnavailable(): GatewayError {
  return new GatewayError('unavailable', "The limit store is unavailable, so this request's budget cannot be checked (budgets are never skipped); try again shortly.", {
    retryAfter: 1,
    detail: 'budget_store_unavailable',
  });
}

export class GuardedRateLimiter implements RateLimiter {
  private lastWarning = Number.NEGATIVE_INFINITY;
  private pausedUntil = Number.NEGATIVE_INFINITY;
  /** Spends the store did not take in time, per budget period: written before the next budget check. */
  private readonly unsettled = new Map<string, UnsettledSpend>();
  private settling: Promise<void> | undefined;

  constructor(private readonly inner: RateLimiter, private readonly options: StoreGuardOptions) {}

  /** Spends waiting to be written (for tests and metrics). */
  unsettledSpends(): number {
    return this.unsettled.size;
  }

  async acquire(checks: readonly LimitCheck[], now: number): Promise<AcquireResult> {
    const budgeted = checks.some((c) => c.kind === 'budget');
    try {
      // A budget is checked against every spend, including those the store missed.
      if (budgeted && this.unsettled.size) await this.settle(now);
      return await this.deadline(() => this.inner.acquire(checks, now), 'acquire');
    } catch (err) {
      this.warnOnce(err);
      if (budgeted) throw budgetUnavailable();
      if (this.options.onError === 'closed') {
        throw new GatewayError('unavailable', 'The rate-limit store is unavailable; try again shortly.', { retryAfter: 1, detail: 'rate_limit_store_unavailable' });
      }
      return { allowed: true, states: [] };
    }
  }

  async adjust(name: string, resetAt: number, delta: number, now: number): Promise<void> {
    await this.deadline(() => this.inner.adjust(name, resetAt, delta, now), 'adjust').catch((err: unknown) => this.warnOnce(err));
  }

  async spend(name: string, amount: number, resetAt: number, now: number): Promise<void> {
    await this.deadline(() => this.inner.spend(name, amount, resetAt, now), 'spend').catch((err: unknown) => {
      this.warnOnce(err);
      this.keep({ name, resetAt, amount });
    });
  }

  private keep(s: UnsettledSpend): void {
    const id = `${s.resetAt}\n${s.name}`;
    const held = this.unsettled.get(id);
    if (held) held.amount += s.amount;
    else this.unsettled.set(id, { ...s });
  }

  /** Writes the kept spends (one run at a time); rejects when the store still cannot take them (they stay kept). */
  private settle(now: number): Promise<void> {
    this.settling ??= (async () => {
      try {
        for (const [id, s] of [...this.unsettled]) {
          this.unsettled.delete(id);
          // A period that ended has nothing left to hold.
          if (s.resetAt <= now) continue;
          try {
            await this.deadline(() => this.inner.spend(s.name, s.amount, s.resetAt, now), 'spend');
          } catch (err) {
            this.keep(s);
            throw err;
          }
        }
      } finally {
        this.settling = undefined;
      }
    })();
    return this.settling;
  }

  async release(name: string, member: string): Promise<void> {
    await this.deadline(() => this.inner.release(name, member), 'release').catch((err: unknown) => this.warnOnce(err));
  }

  /** The store's answer, or a rejection once `timeoutMs` passed (the late answer is dropped). */
  private deadline<T>(start: () => Promise<T>, what: string): Promise<T> {
    if (this.options.now() < this.pausedUntil) return Promise.reject(new Error('rate-limit store failed moments ago'));
    const fail = (err: unknown): Error => {
      this.pausedUntil = this.options.now() + PAUSE_AFTER_FAILURE_MS;
      return err instanceof Error ? err : new Error(String(err));
    };
    return withDeadline(start, this.options.timeoutMs, () => new Error(`rate-limit store ${what} took longer than ${this.options.timeoutMs} ms`), fail);
  }

  private warnOnce(err: unknown): void {
    const now = this.options.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    const reason = redact(err instanceof Error ? err.message : 'unknown error').slice(0, 200);
    const outcome = this.options.onError === 'open' ? 'serving requests without request and token limits, refusing those with a budget with 503' : 'refusing requests with 503';
    this.options.warn(`modelgate: the rate-limit store failed (${reason}); ${outcome} (rateLimitStore.onError: "${this.options.onError}"). This warning repeats at most once a minute.`);
  }
}
