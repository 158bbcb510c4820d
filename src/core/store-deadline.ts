/**
 * A shared store (Redis) must never hold a request: every call to a given conversation or task
 * store gets a short deadline, and any failure (refused connection, late answer, broken reply)
 * becomes a 503 `unavailable` in the caller's protocol shape. The late answer, if any, is dropped.
 * Callers decide what a failure means for them (a read answers 503; storing a finished response
 * keeps the answer and says it was not stored).
 */
import { withDeadline } from './deadline.js';
import { GatewayError } from './errors.js';

/** Default deadline of a store call, in ms (a healthy Redis answers in about one). */
export const DEFAULT_STORE_TIMEOUT_MS = 1000;

/** `store` with every method bounded by `timeoutMs`; `what` names the store in messages ("response store"). */
export function withStoreDeadline<T extends object>(store: T, what: string, timeoutMs: number): T {
  const unavailable = (cause: unknown): GatewayError =>
    cause instanceof GatewayError ? cause : new GatewayError('unavailable', `The ${what} is unavailable; try again shortly.`, { retryAfter: 1, cause });
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): Promise<unknown> =>
        withDeadline(
          () => (value as (...a: unknown[]) => unknown).apply(target, args),
          timeoutMs,
          () => new Error(`${what} call took longer than ${timeoutMs} ms`),
          unavailable,
        );
    },
  });
}
