import type { IRUsage } from '../../../ir/types.js';
import { totalOf } from '../../../ir/types.js';

/** IR usage -> usageMetadata, or undefined when nothing is known. */
export function toGeminiUsage(u: IRUsage | undefined): Record<string, number> | undefined {
  if (!u || (u.inputTokens === undefined && u.outputTokens === undefined)) return undefined;
  const reasoning = u.reasoningTokens ?? 0;
  const out: Record<string, number> = {
    promptTokenCount: u.inputTokens ?? 0,
    candidatesTokenCount: Math.max(0, (u.outputTokens ?? 0) - reasoning),
    totalTokenCount: totalOf(u) ?? 0,
  };
  if (u.reasoningTokens !== undefined) out.thoughtsTokenCount = u.reasoningTokens;
  if (u.cachedInputTokens !== undefined) out.cachedContentTokenCount = u.cachedInputTokens;
  return out;
}
