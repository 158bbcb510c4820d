/** IR response -> Anthropic `message` JSON (the client side). */
import { nestsTooDeep } from '../../http/json-guard.js';
import type { IRChatResponse, IRContentPart, IRWarning } from '../../ir/types.js';
import type { ResponseMeta } from '../types.js';
import { toAnthropicStopReason } from './map-finish-reason.js';
import { toAnthropicUsage } from './usage.js';

/** Tool arguments (JSON text) -> the object Anthropic's `input` must be. */
export function toolInput(args: string): Record<string, unknown> {
  // Too deep to serialize again (JSON.stringify recurses): unusable, like invalid JSON.
  if (nestsTooDeep(args)) return {};
  try {
    const v = JSON.parse(args || '{}') as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // the model produced invalid JSON; an empty object keeps the message valid
  }
  return {};
}

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
