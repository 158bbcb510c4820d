/**
 * When an upstream failure is worth another attempt, and how long to wait first: exponential
 * backoff with full jitter (a random delay between 0 and min(maxDelayMs, initialDelayMs * 2^n)),
 * or the upstream's own `retry-after` / `retry-after-ms` when it sent one, capped at maxDelayMs.
 */
import { GatewayError } from '../core/errors.js';
import { isUpstreamFailure } from '../upstream/failure.js';

/** Upstream statuses retried (529: Anthropic's "overloaded"). Connection errors are 502s, timeouts 504s. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

/** Failures that are the same on every attempt, even with the same status (a refused key, a redirect). */
const PERMANENT_DETAILS: ReadonlySet<string> = new Set(['upstream_credential_refused', 'provider_key_refused', 'upstream_redirect']);

export interface RetrySettings {
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** True for a failure of the upstream call (not the gateway's own) that another attempt may not meet. */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof GatewayError) || !isUpstreamFailure(err)) return false;
  if (err.detail !== undefined && PERMANENT_DETAILS.has(err.detail)) return false;
  return RETRYABLE_STATUSES.has(err.status);
}

/**
 * The wait before retry number `retry` (0 for the first retry). `retryAfterSeconds` (from the
 * upstream's answer) replaces the computed delay; both are capped at maxDelayMs.
 */
export function backoffDelayMs(retry: number, settings: RetrySettings, random: () => number, retryAfterSeconds?: number): number {
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0) {
    return Math.min(settings.maxDelayMs, Math.ceil(retryAfterSeconds * 1000));
  }
  const ceiling = Math.min(settings.maxDelayMs, settings.initialDelayMs * 2 ** Math.min(retry, 30));
  return Math.floor(random() * ceiling);
}

/** Waits `ms`, or rejects with the signal's reason as soon as one of `signals` aborts (the timer is cleared). */
export function sleep(ms: number, signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = signals.find((s) => s.aborted);
    if (aborted) return reject(aborted.reason);
    if (ms <= 0) return resolve();
    const finish = (fn: () => void) => {
      clearTimeout(timer);
      for (const s of signals) s.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = function (this: AbortSignal) {
      finish(() => reject(this.reason));
    };
    const timer = setTimeout(() => finish(resolve), ms);
    for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
  });
}
