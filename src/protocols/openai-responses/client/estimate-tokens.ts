/**
 * A local input-token estimate for `POST /v1/responses/input_tokens` when the upstream cannot
 * count (not OpenAI): the shared estimate (shared/estimate-tokens.ts) over the decoded request, so
 * the history of `previous_response_id` counts too.
 */
import type { IRChatRequest } from '../../../ir/types.js';
import { estimateInputTokens } from '../../shared/estimate-tokens.js';

export function estimateResponsesInputTokens(ir: IRChatRequest): number {
  return estimateInputTokens({ system: ir.system, messages: ir.messages, tools: ir.tools });
}
