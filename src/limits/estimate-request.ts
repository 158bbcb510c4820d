/**
 * What a request may cost in tokens, before it is sent: the input estimated the way the protocol
 * estimators (estimate-tokens.ts) do it — about four characters per token, a flat cost per image,
 * audio clip or document, whose base64 says little about its tokens — plus the requested maximum
 * output. One walk over the wire body serves every protocol (chat, messages, Gemini, responses,
 * images), iterative so that no body can drive it past the stack. Reserved against tokens per
 * minute; the real usage settles it afterwards.
 */

const MEDIA_TOKENS = 1000;
/** Output reserved when the request names no maximum (settled with the real usage afterwards). */
export const DEFAULT_OUTPUT_RESERVE = 4096;
/** Fields that are not read by the model. */
const SKIP = new Set(['model', 'type', 'role', 'id', 'signature', 'encrypted_content', 'cache_control', 'metadata', 'user', 'stream_options', 'previous_response_id', 'mimeType', 'mime_type', 'media_type', 'detail', 'format']);
/** Fields holding base64 payloads. */
const PAYLOAD = new Set(['data', 'file_data', 'b64_json']);

export interface TokenEstimate {
  input: number;
  output: number;
}

export function estimateInputTokens(body: unknown): number {
  let chars = 0;
  let media = 0;
  const stack: Array<[unknown, string]> = [[body, '']];
  while (stack.length) {
    const [value, key] = stack.pop() as [unknown, string];
    if (typeof value === 'string') {
      if (value.startsWith('data:') || (PAYLOAD.has(key) && value.length > 256)) media++;
      else chars += value.length;
    } else if (Array.isArray(value)) {
      for (const v of value) stack.push([v, key]);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) if (!SKIP.has(k)) stack.push([v, k]);
    }
  }
  return Math.max(1, Math.ceil(chars / 4) + media * MEDIA_TOKENS);
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
