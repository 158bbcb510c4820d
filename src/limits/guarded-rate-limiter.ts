/**
 * A shared limit store (Redis) must never hold a request: every call gets a short deadline. When
 * the store fails or is late, `onError: "open"` serves the request without limits (and warns at
 * most once a minute), `"closed"` refuses it with a 503. Follow-up writes (settling tokens,
 * spending, releasing) never fail a request; a lease that could not be released ends with its
 * lease time.
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

export class GuardedRateLimiter implements RateLimiter {
  private lastWarning = Number.NEGATIVE_INFINITY;
  private pausedUntil = Number.NEGATIVE_INFINITY;

  constructor(private readonly inner: RateLimiter, private readonly options: StoreGuardOptions) {}

  async acquire(checks: readonly LimitCheck[], now: number): Promise<AcquireResult> {
    try {
      return await this.deadline(() => this.inner.acquire(checks, now), 'acquire');
    } catch (err) {
      this.warnOnce(err);
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
    await this.deadline(() => this.inner.spend(name, amount, resetAt, now), 'spend').catch((err: unknown) => this.warnOnce(err));
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
    const outcome = this.options.onError === 'open' ? 'serving requests without limits' : 'refusing requests with 503';
    this.options.warn(`modelgate: the rate-limit store failed (${reason}); ${outcome} (rateLimitStore.onError: "${this.options.onError}"). This warning repeats at most once a minute.`);
  }
}
