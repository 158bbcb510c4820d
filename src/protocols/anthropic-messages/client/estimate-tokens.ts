/**
 * A local input-token estimate for count_tokens when the upstream is not Anthropic: the shared
 * estimate (shared/estimate-tokens.ts) over what the model reads, with Anthropic's image cost.
 */
import { estimateInputTokens as estimate } from '../../shared/estimate-tokens.js';
import type { CountTokensRequest } from '../anthropic-messages-api.js';

/** Roughly what Anthropic charges for an image of about a megapixel. */
const MEDIA_TOKENS = 1600;

export function estimateInputTokens(req: CountTokensRequest): number {
  return estimate({ system: req.system, messages: req.messages, tools: req.tools }, { mediaTokens: MEDIA_TOKENS });
}
