import type { IRUsage } from '../../../ir/types.js';
import { totalOf } from '../../../ir/types.js';

/** IR usage -> OpenAI usage object, or undefined when nothing is known. */
export function toOpenAIUsage(u: IRUsage): Record<string, unknown> | undefined {
  if (u.inputTokens === undefined && u.outputTokens === undefined) return undefined;
  const out: Record<string, unknown> = {
    prompt_tokens: u.inputTokens ?? 0,
    completion_tokens: u.outputTokens ?? 0,
    total_tokens: totalOf(u) ?? 0,
  };
  if (u.cachedInputTokens !== undefined) out.prompt_tokens_details = { cached_tokens: u.cachedInputTokens };
  if (u.reasoningTokens !== undefined) out.completion_tokens_details = { reasoning_tokens: u.reasoningTokens };
  return out;
}
