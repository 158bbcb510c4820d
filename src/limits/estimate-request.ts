/**
 * What a request may cost in tokens, before it is sent: the input estimated by the protocols' one
 * estimator (protocols/shared/estimate-tokens.ts) — about four characters per token, a flat cost per image,
 * audio clip or document, whose base64 says little about its tokens — plus the requested maximum
 * output. One walk over the wire body serves every protocol (chat, messages, Gemini, responses,
 * images), iterative so that no body can drive it past the stack. Reserved against tokens per
 * minute; the real usage settles it afterwards.
 */
import { estimateInputTokens } from '../protocols/shared/estimate-tokens.js';

export { estimateInputTokens };

/** Output reserved when the request names no maximum (settled with the real usage afterwards). */
export const DEFAULT_OUTPUT_RESERVE = 4096;

export interface TokenEstimate {
  input: number;
  output: number;
}

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.ceil(v) : undefined;
}

/** The most output the request allows (times the number of choices), or DEFAULT_OUTPUT_RESERVE. */
function requestedOutputTokens(body: Record<string, unknown>): number {
  const gen = body.generationConfig ?? body.generation_config;
  const g = gen && typeof gen === 'object' ? (gen as Record<string, unknown>) : {};
  const max =
    positiveInt(body.max_completion_tokens) ??
    positiveInt(body.max_tokens) ??
    positiveInt(body.max_output_tokens) ??
    positiveInt(g.maxOutputTokens) ??
    positiveInt(g.max_output_tokens) ??
    DEFAULT_OUTPUT_RESERVE;
  const choices = positiveInt(body.n) ?? positiveInt(g.candidateCount) ?? positiveInt(g.candidate_count) ?? 1;
  return max * choices;
}

export function estimateChatRequest(body: Record<string, unknown>): TokenEstimate {
  return { input: estimateInputTokens(body), output: requestedOutputTokens(body) };
}
