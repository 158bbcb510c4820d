import type { IRFinishReason } from '../../../ir/types.js';

const GEMINI_FINISH_REASONS = new Set([
  'STOP', 'MAX_TOKENS', 'SAFETY', 'RECITATION', 'LANGUAGE', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS', 'IMAGE_PROHIBITED_CONTENT', 'NO_IMAGE', 'IMAGE_RECITATION', 'IMAGE_OTHER',
  'FINISH_REASON_UNSPECIFIED',
]);

/** IR -> Gemini finishReason; a Gemini raw value is kept as is. */
export function toGeminiFinishReason(reason: IRFinishReason): string {
  if (reason.raw && GEMINI_FINISH_REASONS.has(reason.raw)) return reason.raw;
  switch (reason.unified) {
    case 'length': return 'MAX_TOKENS';
    case 'content-filter': return 'SAFETY';
    case 'error':
    case 'other': return 'OTHER';
    default: return 'STOP';
  }
}
