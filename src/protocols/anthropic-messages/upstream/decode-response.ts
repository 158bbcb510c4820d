/** Anthropic `message` JSON -> IR (upstream side). */
import { GatewayError } from '../../../errors.js';
import type { IRChatResponse, IRContentPart } from '../../../ir/types.js';
import { messageResponseSchema } from '../anthropic-messages-api.js';
import { fromAnthropicStopReason } from './map-finish-reason.js';
import { fromAnthropicUsage } from './usage.js';

/** One response block -> IR part; server-tool blocks have no IR form and are left out. */
function decodeBlock(b: Record<string, unknown>): IRContentPart | undefined {
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? { type: 'text', text: b.text } : undefined;
    case 'thinking':
      return {
        type: 'reasoning',
        text: typeof b.thinking === 'string' ? b.thinking : '',
        ...(typeof b.signature === 'string' && b.signature ? { signature: b.signature } : {}),
      };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redactedData: typeof b.data === 'string' ? b.data : '' };
    case 'tool_use':
      return { type: 'tool-call', id: String(b.id ?? ''), name: String(b.name ?? ''), arguments: JSON.stringify(b.input ?? {}) };
    default:
      return undefined;
  }
}

export function decodeAnthropicResponse(json: unknown): IRChatResponse {
  const parsed = messageResponseSchema.safeParse(json);
  if (!parsed.success) throw new GatewayError('bad_gateway', 'The upstream answered with a malformed Anthropic message.');
  const res = parsed.data;
  const content = res.content.map((b) => decodeBlock(b)).filter((p): p is IRContentPart => p !== undefined);
  return {
    id: res.id,
    model: res.model ?? 'unknown',
    content,
    finishReason: fromAnthropicStopReason(res.stop_reason, res.stop_sequence),
    usage: fromAnthropicUsage(res.usage),
  };
}
