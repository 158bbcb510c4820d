import type { IRFinishReason, IRFinishReasonUnified } from '../../../ir/types.js';

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION', 'LANGUAGE']);

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
