/**
 * The headers every response of a limited request carries, decided before the first byte: the
 * tightest requests and tokens limits in OpenAI's `x-ratelimit-*` form, and the cost of a sync
 * answer (`x-modelgate-cost-usd`; a stream's cost is only known at its end: see the onResponse hook).
 */
import { formatResetDuration } from './reset-format.js';
import type { LimitSnapshot, RequestLimits } from './request-lease.js';

function setLimit(headers: Headers, kind: 'requests' | 'tokens', snap: LimitSnapshot | undefined, now: number): void {
  if (!snap) return;
  headers.set(`x-ratelimit-limit-${kind}`, String(snap.limit));
  headers.set(`x-ratelimit-remaining-${kind}`, String(snap.remaining));
  headers.set(`x-ratelimit-reset-${kind}`, formatResetDuration(snap.resetAt - now));
}

/** USD with up to nine decimals and no exponent (`0.00000015`, not `1.5e-7`). */
export function formatUsd(usd: number): string {
  return usd.toFixed(9).replace(/\.?0+$/, '') || '0';
}

export function applyLimitHeaders(state: RequestLimits | undefined, headers: Headers, now: number): void {
  if (!state) return;
  setLimit(headers, 'requests', state.requests, now);
  setLimit(headers, 'tokens', state.tokens, now);
  if (state.costUsd !== undefined) headers.set('x-modelgate-cost-usd', formatUsd(state.costUsd));
}
