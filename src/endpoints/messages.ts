/** POST /v1/messages and POST /v1/messages/count_tokens (Anthropic Messages protocol). */
import { GatewayError } from '../errors.js';
import { replaceTopLevelString } from '../http/json-splice.js';
import { parseJsonObject } from '../http/body.js';
import { validateCountTokensRequest, validateMessagesRequest } from '../protocols/anthropic-messages/client/decode-request.js';
import { estimateInputTokens } from '../protocols/anthropic-messages/client/estimate-tokens.js';
import { anthropicMessagesClient } from '../protocols/anthropic-messages/index.js';
import type { RequestContext } from '../runtime.js';
import { runChat } from './chat-pipeline.js';
import { authenticate, jsonResponse, requireCapability, resolveModel } from './common.js';
import { callUpstream, readUpstreamJson, upstreamRequest } from '../upstream/call.js';
import type { Reply } from '../http/reply.js';

/** Anthropic requires the header on every call; so does the gateway, to behave the same. */
function requireAnthropicVersion(ctx: RequestContext): void {
  if (!ctx.request.headers.get('anthropic-version')) {
    throw new GatewayError('invalid_request', 'anthropic-version: header is required', { param: 'anthropic-version' });
  }
}

/** The common start of both endpoints: key, version header, body, validation, model route. */
async function readAnthropicCall<T extends { model: string }>(ctx: RequestContext, validate: (body: Record<string, unknown>) => T) {
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
export async function messages(ctx: RequestContext): Promise<Reply> {
  const { raw, parsed, req, model } = await readAnthropicCall(ctx, validateMessagesRequest);
  return runChat(ctx, { client: anthropicMessagesClient, model, raw, parsed, validated: req, stream: req.stream === true, clientWantsUsage: true });
}

/** POST /v1/messages/count_tokens: forwarded to Anthropic upstreams, estimated locally otherwise. */
export async function countTokens(ctx: RequestContext): Promise<Reply> {
  const { raw, req, model } = await readAnthropicCall(ctx, validateCountTokensRequest);
  const provider = model.provider;
  if (provider.chatProtocol !== 'anthropic-messages') return jsonResponse(ctx, { input_tokens: estimateInputTokens(req) });
  const target = provider.chatRequest({ upstreamModel: model.upstreamModel, stream: false, inboundHeaders: ctx.request.headers });
  const url = new URL(target.url);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/count_tokens`;
  const body = replaceTopLevelString(raw, 'model', model.upstreamModel) ?? raw;
  const upstream = await callUpstream(provider, upstreamRequest(ctx, { url: url.toString(), headers: target.headers, body, protocol: 'anthropic-messages' }));
  const json = await readUpstreamJson(upstream, provider.id);
  if (typeof json.input_tokens !== 'number') throw new GatewayError('bad_gateway', `The upstream provider '${provider.id}' answered count_tokens without input_tokens.`);
  return jsonResponse(ctx, { input_tokens: json.input_tokens });
}
