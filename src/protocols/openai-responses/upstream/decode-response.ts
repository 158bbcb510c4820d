/** OpenAI Responses `response` object -> IR (upstream side). */
import { GatewayError } from '../../../core/errors.js';
import type { IRChatResponse } from '../../../ir/types.js';
import { finishOf, fromResponsesUsage, partsOfItem } from './map-response.js';
import { responseObjectSchema } from './responses-wire.js';

export function decodeResponsesResponse(json: unknown): IRChatResponse {
  const parsed = responseObjectSchema.safeParse(json);
  if (!parsed.success) throw new GatewayError('bad_gateway', 'The upstream answered with a malformed Responses API response.');
  const res = parsed.data;
  const content = res.output.flatMap((item) => partsOfItem(item));
  return {
    id: res.id,
    model: res.model ?? 'unknown',
    content,
    finishReason: finishOf(res, content.some((p) => p.type === 'tool-call')),
    usage: fromResponsesUsage(res.usage),
    ...(res.created_at !== undefined ? { created: res.created_at } : {}),
  };
}
