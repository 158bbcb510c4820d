import type { IRUsage } from '../../../ir/types.js';
import type { AnthropicUsage } from '../anthropic-messages-api.js';

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

/**
 * Usage counts of a stream so far: `message_start`'s, then each `message_delta`'s non-null values
 * on top (cumulative counts, never added).
 */
export function mergeAnthropicUsage(soFar: AnthropicUsage | undefined, next: unknown): AnthropicUsage | undefined {
  if (!next || typeof next !== 'object') return soFar;
  const merged: Record<string, unknown> = { ...soFar };
  for (const [k, v] of Object.entries(next)) if (v !== null && v !== undefined) merged[k] = v;
  return merged as AnthropicUsage;
}
