import type { IRFinishReason, IRFinishReasonUnified } from '../../../ir/types.js';

export function fromOpenAIFinishReason(raw: string | null | undefined): IRFinishReason {
  const unified: IRFinishReasonUnified =
    raw === 'stop' ? 'stop'
    : raw === 'length' ? 'length'
    : raw === 'tool_calls' || raw === 'function_call' ? 'tool-calls'
    : raw === 'content_filter' ? 'content-filter'
    : 'other';
  return raw ? { unified, raw } : { unified };
}
