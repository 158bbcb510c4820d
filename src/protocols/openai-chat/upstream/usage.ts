import type { IRUsage } from '../../../ir/types.js';
import type { UsageWire } from '../openai-chat-api.js';

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
