import type { IRFinishReason, IRFinishReasonUnified } from '../../../ir/types.js';

export function fromAnthropicStopReason(raw: string | null | undefined, stopSequence?: string | null): IRFinishReason {
  const unified: IRFinishReasonUnified =
    raw === 'end_turn' || raw === 'stop_sequence' || raw === 'pause_turn' ? 'stop'
    : raw === 'max_tokens' || raw === 'model_context_window_exceeded' ? 'length'
    : raw === 'tool_use' ? 'tool-calls'
    : raw === 'refusal' ? 'content-filter'
    : 'other';
  const out: IRFinishReason = raw ? { unified, raw } : { unified };
  if (stopSequence) out.stopSequence = stopSequence;
  return out;
}
