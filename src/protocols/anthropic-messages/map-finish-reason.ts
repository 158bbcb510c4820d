import type { IRFinishReason, IRFinishReasonUnified } from '../../ir/types.js';

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

const ANTHROPIC_REASONS = new Set<string>(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded']);

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

/** IR -> Anthropic stop_reason; keeps an Anthropic upstream's own value when it has one. */
export function toAnthropicStopReason(reason: IRFinishReason): AnthropicStopReason {
  if (reason.raw && ANTHROPIC_REASONS.has(reason.raw)) return reason.raw as AnthropicStopReason;
  switch (reason.unified) {
    case 'length': return 'max_tokens';
    case 'tool-calls': return 'tool_use';
    case 'content-filter': return 'refusal';
    default: return reason.stopSequence ? 'stop_sequence' : 'end_turn';
  }
}
