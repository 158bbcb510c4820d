import type { IRFinishReason } from '../../../ir/types.js';

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

const ANTHROPIC_REASONS = new Set<string>(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded']);

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
