import { GatewayError } from '../../../core/errors.js';
import type { IRChatResponse, IRContentPart } from '../../../ir/types.js';
import { chatResponseSchema } from '../openai-chat-api.js';
import { fromOpenAIFinishReason } from './map-finish-reason.js';
import { fromOpenAIUsage } from './usage.js';

/** OpenAI chat.completion -> IR; a malformed answer is a 502. */
export function decodeOpenAIChatResponse(json: unknown): IRChatResponse {
  const parsed = chatResponseSchema.safeParse(json);
  if (!parsed.success || parsed.data.choices.length === 0) {
    throw new GatewayError('bad_gateway', 'The upstream answered with a malformed chat completion.');
  }
  const res = parsed.data;
  const choice = res.choices[0] as (typeof res.choices)[number];
  const content: IRContentPart[] = [];
  if (choice.message.reasoning_content) content.push({ type: 'reasoning', text: choice.message.reasoning_content });
  if (choice.message.content) content.push({ type: 'text', text: choice.message.content });
  else if (choice.message.refusal) content.push({ type: 'text', text: choice.message.refusal, refusal: true });
  for (const call of choice.message.tool_calls ?? []) {
    content.push({ type: 'tool-call', id: call.id, name: call.function.name, arguments: call.function.arguments || '{}' });
  }
  return {
    id: res.id ?? 'chatcmpl-upstream',
    model: res.model ?? 'unknown',
    content,
    finishReason: fromOpenAIFinishReason(choice.finish_reason),
    usage: fromOpenAIUsage(res.usage),
    ...(res.created !== undefined ? { created: res.created } : {}),
  };
}
