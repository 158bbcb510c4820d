/** The price of one request from its real usage and the model's `pricing` (USD per million tokens). */
import type { PricingConfig } from '../config/schema.js';
import type { IRUsage } from '../ir/types.js';

/** Budgets are kept in whole nano-dollars, so totals add up exactly in memory and in Redis. */
export const NANO_PER_USD = 1e9;

/**
 * USD for `usage`, or undefined when the price or the usage is unknown. Cached input tokens (part
 * of inputTokens) cost `cachedInputPerMTok` (default: the input price); cache writes are priced as input.
 */
export function costOf(pricing: PricingConfig | undefined, usage: IRUsage | undefined): number | undefined {
  if (!pricing || !usage) return undefined;
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined;
  const input = usage.inputTokens ?? 0;
  const cached = Math.min(input, usage.cachedInputTokens ?? 0);
  const micro = (input - cached) * pricing.inputPerMTok + cached * (pricing.cachedInputPerMTok ?? pricing.inputPerMTok) + (usage.outputTokens ?? 0) * pricing.outputPerMTok;
  // Rounded to a nano-dollar, which also keeps float noise out of headers and hooks.
  return Math.round((micro / 1e6) * NANO_PER_USD) / NANO_PER_USD;
}

/** USD for `seconds` of video at the model's `perVideoSecond`, or undefined without that price. */
export function videoCostUsd(pricing: PricingConfig | undefined, seconds: number): number | undefined {
  if (pricing?.perVideoSecond === undefined) return undefined;
  return Math.round(pricing.perVideoSecond * seconds * NANO_PER_USD) / NANO_PER_USD;
}
