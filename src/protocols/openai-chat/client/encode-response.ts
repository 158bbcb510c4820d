import type { IRChatResponse, IRWarning } from '../../../ir/types.js';
import type { ResponseMeta } from '../../types.js';
import { toOpenAIFinishReason } from './map-finish-reason.js';
import { toOpenAIUsage } from './usage.js';

/** IR response -> OpenAI chat.completion (plus the gateway's traceId). */
export function encodeOpenAIChatResponse(res: IRChatResponse, meta: ResponseMeta, warnings: IRWarning[]): Record<string, unknown> {
  let text = '';
  let hasText = false;
  let reasoning = '';
  const toolCalls: unknown[] = [];
  for (const part of res.content) {
    if (part.type === 'text') {
      text += part.text;
      hasText = true;
    } else if (part.type === 'reasoning') reasoning += part.text;
    else if (part.type === 'tool-call') {
      toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
    }
  }
  const message: Record<string, unknown> = { role: 'assistant', content: hasText ? text : null, refusal: null };
  if (reasoning) message.reasoning_content = reasoning;
  if (toolCalls.length) message.tool_calls = toolCalls;
  const out: Record<string, unknown> = {
    id: res.id.startsWith('chatcmpl') ? res.id : `chatcmpl-${res.id}`,
    object: 'chat.completion',
    created: res.created ?? meta.created,
    model: res.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: toOpenAIFinishReason(res.finishReason) }],
  };
  const usage = toOpenAIUsage(res.usage);
  if (usage) out.usage = usage;
  if (warnings.length) out.warnings = warnings;
  out.traceId = meta.traceId;
  return out;
}
