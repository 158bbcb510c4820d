/**
 * The one local input-token estimate, for every protocol's count-tokens endpoint (when the upstream
 * cannot count) and for the limits' token reservation: about four characters per token over every
 * text the model reads, plus a flat cost per image, audio clip or document (their base64 says little
 * about their tokens; each protocol names what its vendor charges). One iterative walk over a wire
 * body or an IR request, so no body can drive it past the stack.
 */

/** The flat media cost when the caller names none. */
const DEFAULT_MEDIA_TOKENS = 1000;
/** Fields that are not read by the model (wire and IR names). */
const SKIP = new Set([
  'model', 'type', 'role', 'id', 'signature', 'encrypted_content', 'cache_control', 'metadata', 'user', 'stream_options', 'previous_response_id',
  'mimeType', 'mime_type', 'media_type', 'mediaType', 'kind', 'detail', 'format', 'providerOptions',
]);
/** Fields holding base64 payloads. */
const PAYLOAD = new Set(['data', 'file_data', 'b64_json']);

export function estimateInputTokens(body: unknown, opts: { mediaTokens?: number } = {}): number {
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
  return Math.max(1, Math.ceil(chars / 4) + media * (opts.mediaTokens ?? DEFAULT_MEDIA_TOKENS));
}
