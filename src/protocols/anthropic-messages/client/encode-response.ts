/** IR response -> Anthropic `message` JSON (the client side). */
import type { IRChatResponse, IRContentPart, IRWarning } from '../../../ir/types.js';
import type { ResponseMeta } from '../../types.js';
import { toolInput } from '../../shared/tool-arguments.js';
import { toAnthropicStopReason } from './map-finish-reason.js';
import { toAnthropicUsage } from './usage.js';

export function anthropicMessageId(id: string, meta: ResponseMeta): string {
  return id.startsWith('msg_') ? id : meta.newId('msg_');
}

function encodeBlock(part: IRContentPart): Record<string, unknown> | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'reasoning':
      if (part.redactedData !== undefined) return { type: 'redacted_thinking', data: part.redactedData };
      return { type: 'thinking', thinking: part.text, signature: part.signature ?? '' };
    case 'tool-call':
      return { type: 'tool_use', id: part.id, name: part.name, input: toolInput(part.arguments) };
    default:
      return undefined;
  }
}

export function encodeAnthropicResponse(res: IRChatResponse, meta: ResponseMeta, warnings: IRWarning[]): Record<string, unknown> {
  const content = res.content.map(encodeBlock).filter((b): b is Record<string, unknown> => b !== undefined);
  const stopReason = toAnthropicStopReason(res.finishReason);
  const out: Record<string, unknown> = {
    id: anthropicMessageId(res.id, meta),
    type: 'message',
    role: 'assistant',
    model: res.model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === 'stop_sequence' ? (res.finishReason.stopSequence ?? null) : null,
    usage: toAnthropicUsage(res.usage),
  };
  if (warnings.length) out.warnings = warnings;
  return out;
}
