/** POST /v1/messages and POST /v1/messages/count_tokens (Anthropic Messages protocol). */
import { GatewayError } from '../core/errors.js';
import { replaceTopLevelString } from '../wire/json-splice.js';
import { parseJsonObject } from '../request/body.js';
import { validateCountTokensRequest, validateMessagesRequest } from '../protocols/anthropic-messages/client/decode-request.js';
import { estimateInputTokens } from '../protocols/anthropic-messages/client/estimate-tokens.js';
import { anthropicMessagesClient } from '../protocols/anthropic-messages/index.js';
import type { EndpointContext } from './services.js';
import { runChat } from './chat-pipeline.js';
import { authenticate, jsonResponse, requireCapability, resolveModel } from './common.js';
import { countUpstream } from './count-tokens.js';
import type { Reply } from '../reply/reply.js';

/** Anthropic requires the header on every call; so does the gateway, to behave the same. */
function requireAnthropicVersion(ctx: EndpointContext): void {
  if (!ctx.request.headers.get('anthropic-version')) {
    throw new GatewayError('invalid_request', 'anthropic-version: header is required', { param: 'anthropic-version' });
  }
}

/** The common start of both endpoints: key, version header, body, validation, model route. */
async function readAnthropicCall<T extends { model: string }>(ctx: EndpointContext, validate: (body: Record<string, unknown>) => T) {
  const principal = await authenticate(ctx);
  requireAnthropicVersion(ctx);
  const raw = await ctx.body.text();
  const parsed = parseJsonObject(raw);
  const req = validate(parsed);
  const model = resolveModel(ctx, principal, req.model);
  requireCapability(model, 'chat');
  return { raw, parsed, req, model };
}

/** POST /v1/messages (also `?beta=true`, as the SDK's beta client and Claude Code send it). */
export async function messages(ctx: EndpointContext): Promise<Reply> {
  const { raw, parsed, req, model } = await readAnthropicCall(ctx, validateMessagesRequest);
  return runChat(ctx, { client: anthropicMessagesClient, model, raw, parsed, validated: req, stream: req.stream === true, clientWantsUsage: true });
}

/** POST /v1/messages/count_tokens: counted by Anthropic upstreams (count-tokens.ts), estimated locally otherwise. */
export async function countTokens(ctx: EndpointContext): Promise<Reply> {
  const { raw, parsed, req, model } = await readAnthropicCall(ctx, validateCountTokensRequest);
  const counted = await countUpstream(ctx, model, {
    protocol: 'anthropic-messages',
    parsed,
    counter: (target) => target.provider,
    body: (target) => replaceTopLevelString(raw, 'model', target.upstreamModel) ?? raw,
    read(json, provider) {
      if (typeof json.input_tokens !== 'number') throw new GatewayError('bad_gateway', `The upstream provider '${provider.id}' answered count_tokens without input_tokens.`);
      return json.input_tokens;
    },
  });
  return jsonResponse(ctx, { input_tokens: counted ?? estimateInputTokens(req) });
}
