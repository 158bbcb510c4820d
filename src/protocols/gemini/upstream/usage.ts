import type { IRUsage } from '../../../ir/types.js';
import type { UsageMetadataWire } from '../gemini-api.js';

/**
 * Gemini usageMetadata -> IR. Thinking tokens are not inside candidatesTokenCount, so output =
 * candidates + thoughts; tool-use prompt tokens count as input.
 */
export function fromGeminiUsage(u: UsageMetadataWire | null | undefined): IRUsage {
  if (!u) return {};
  const out: IRUsage = {};
  if (u.promptTokenCount !== undefined) out.inputTokens = u.promptTokenCount + (u.toolUsePromptTokenCount ?? 0);
  if (u.candidatesTokenCount !== undefined || u.thoughtsTokenCount !== undefined) {
    out.outputTokens = (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0);
  }
  if (u.thoughtsTokenCount !== undefined) out.reasoningTokens = u.thoughtsTokenCount;
  if (u.cachedContentTokenCount !== undefined) out.cachedInputTokens = u.cachedContentTokenCount;
  if (u.totalTokenCount !== undefined) out.totalTokens = u.totalTokenCount;
  return out;
}
