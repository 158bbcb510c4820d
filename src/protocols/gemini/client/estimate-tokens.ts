/**
 * Local :countTokens estimate for upstreams that cannot count Gemini requests: the shared estimate
 * (shared/estimate-tokens.ts) over the contents, system instruction and tools, with the 258 tokens
 * Gemini charges for an image.
 */
import { estimateInputTokens } from '../../shared/estimate-tokens.js';
import type { GeminiContent, GeminiPart } from '../gemini-api.js';

const MEDIA_TOKENS = 258;

export function estimateGeminiTokens(contents: GeminiContent[], extra: { systemInstruction?: { parts: GeminiPart[] } | undefined; tools?: unknown } = {}): number {
  return estimateInputTokens({ contents, systemInstruction: extra.systemInstruction, tools: extra.tools }, { mediaTokens: MEDIA_TOKENS });
}
