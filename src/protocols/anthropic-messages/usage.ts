import type { IRUsage } from '../../ir/types.js';
import type { AnthropicUsage } from './anthropic-api.js';

/**
 * Anthropic usage -> IR. Anthropic's `input_tokens` is only the uncached part of the prompt; the IR
 * counts the whole prompt, with the cached parts as sub-counts.
 */
export function fromAnthropicUsage(u: AnthropicUsage | null | undefined): IRUsage {
  if (!u) return {};
  const out: IRUsage = {};
  const read = u.cache_read_input_tokens ?? undefined;
  const write = u.cache_creation_input_tokens ?? undefined;
  if (u.input_tokens != null) out.inputTokens = u.input_tokens + (read ?? 0) + (write ?? 0);
  if (u.output_tokens != null) out.outputTokens = u.output_tokens;
  if (read !== undefined) out.cachedInputTokens = read;
  if (write !== undefined) out.cacheWriteTokens = write;
  const thinking = u.output_tokens_details?.thinking_tokens;
  if (thinking != null) out.reasoningTokens = thinking;
  if (out.inputTokens !== undefined && out.outputTokens !== undefined) out.totalTokens = out.inputTokens + out.outputTokens;
  return out;
}

/** IR usage -> Anthropic usage object (unknown counts become 0; Anthropic's fields are not optional). */
export function toAnthropicUsage(u: IRUsage): Record<string, number> {
  const read = u.cachedInputTokens ?? 0;
  const write = u.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (u.inputTokens ?? 0) - read - write),
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
    output_tokens: u.outputTokens ?? 0,
  };
}
