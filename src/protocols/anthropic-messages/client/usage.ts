import type { IRUsage } from '../../../ir/types.js';

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
