import type { IRUsage } from '../../ir/types.js';
import { totalOf } from '../../ir/types.js';
import type { UsageWire } from './schema.js';

export function fromOpenAIUsage(u: UsageWire | null | undefined): IRUsage {
  if (!u) return {};
  const out: IRUsage = {};
  if (u.prompt_tokens !== undefined) out.inputTokens = u.prompt_tokens;
  if (u.completion_tokens !== undefined) out.outputTokens = u.completion_tokens;
  if (u.total_tokens !== undefined) out.totalTokens = u.total_tokens;
  const cached = u.prompt_tokens_details?.cached_tokens;
  if (cached != null) out.cachedInputTokens = cached;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (reasoning != null) out.reasoningTokens = reasoning;
  return out;
}

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
