import type { IRFinishReason, IRFinishReasonUnified } from '../../ir/types.js';

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION', 'LANGUAGE']);

export const GEMINI_FINISH_REASONS = new Set([
  'STOP', 'MAX_TOKENS', 'SAFETY', 'RECITATION', 'LANGUAGE', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS', 'IMAGE_PROHIBITED_CONTENT', 'NO_IMAGE', 'IMAGE_RECITATION', 'IMAGE_OTHER',
  'FINISH_REASON_UNSPECIFIED',
]);

/** Gemini finishReason -> IR. There is no tool-call reason: STOP with function calls means tool calls. */
export function fromGeminiFinishReason(raw: string | undefined, hasToolCalls: boolean): IRFinishReason {
  let unified: IRFinishReasonUnified;
  if (raw === undefined || raw === 'STOP') unified = hasToolCalls ? 'tool-calls' : 'stop';
  else if (raw === 'MAX_TOKENS') unified = 'length';
  else if (FILTERED.has(raw)) unified = 'content-filter';
  else if (raw === 'MALFORMED_FUNCTION_CALL' || raw === 'UNEXPECTED_TOOL_CALL' || raw === 'TOO_MANY_TOOL_CALLS') unified = 'error';
  else unified = 'other';
  return raw ? { unified, raw } : { unified };
}

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
