/**
 * Gemini generateContent entry points: POST /v1beta/models/{model}:generateContent,
 * :streamGenerateContent (`alt=sse` -> SSE, otherwise one streamed JSON array) and :countTokens.
 * The model comes from the path (`models/` prefix optional, `provider/model` ids with encoded or
 * plain slashes); it is the one authorized and routed. Credentials: Bearer, x-goog-api-key or
 * `?key=` — the client's query string is never forwarded upstream.
 */
import { GatewayError } from '../core/errors.js';
import { parseJsonObject } from '../request/body.js';
import { validateGeminiRequest } from '../protocols/gemini/client/decode-request.js';
import { estimateGeminiTokens } from '../protocols/gemini/client/estimate-tokens.js';
import { countTokensRequestSchema, systemInstructionSchema, toolSchema } from '../protocols/gemini/gemini-api.js';
import { geminiClient } from '../protocols/gemini/index.js';
import { parseOrThrow } from '../protocols/shared/zod-error.js';
import type { EndpointContext } from './services.js';
import { runChat } from './chat-pipeline.js';
import { authenticate, jsonResponse, requireCapability, resolveModel, upstreamJsonResponse } from './common.js';
import { countUpstream } from './count-tokens.js';
import type { Reply } from '../reply/reply.js';

/** `models/gemini-2.5-flash` or `gemini-2.5-flash` -> `gemini-2.5-flash`. */
export function modelFromPath(raw: string | undefined): string {
  const id = (raw ?? '').replace(/^models\//, '');
  if (!id) throw new GatewayError('invalid_request', 'The model name in the path is empty.', { param: 'model' });
  return id;
}

/** POST /v1beta/models/{model}:{action} */
export async function geminiModelAction(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  if (params.action === 'countTokens') return geminiCountTokens(ctx, params);
  const principal = await authenticate(ctx);
  const model = resolveModel(ctx, principal, modelFromPath(params.model));
  // Gemini image models (gemini-2.5-flash-image, ...) answer generateContent natively: pass-through.
  if (!(model.provider.chatProtocol === 'gemini' && model.capabilities.includes('image'))) requireCapability(model, 'chat');
  const raw = await ctx.body.text();
  const parsed = parseJsonObject(raw);
  const validated = validateGeminiRequest(parsed);
  const stream = params.action === 'streamGenerateContent';
  const sse = ctx.url.searchParams.get('alt') === 'sse';
  // Without alt=sse the stream is one JSON array, not an event stream.
  return runChat(ctx, {
    client: geminiClient,
    model,
    raw,
    parsed,
    validated,
    stream,
    clientWantsUsage: true,
    clientOptions: { sse, thoughts: validated.generationConfig?.thinkingConfig?.includeThoughts === true },
    ...(stream && !sse ? { streamContentType: 'application/json; charset=utf-8' } : {}),
  });
}

/** POST /v1beta/models/{model}:countTokens — counted by Gemini upstreams (count-tokens.ts), estimated otherwise. */
async function geminiCountTokens(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const principal = await authenticate(ctx);
  const model = resolveModel(ctx, principal, modelFromPath(params.model));
  requireCapability(model, 'chat');
  const raw = await ctx.body.text();
  const parsed = parseJsonObject(raw);
  const req = parseOrThrow(countTokensRequestSchema, parsed);
  const inner = req.generateContentRequest;
  if (!inner && !req.contents?.length) {
    throw new GatewayError('invalid_request', "Either 'contents' or 'generateContentRequest' is required.", { param: 'contents' });
  }
  if (inner && req.contents) throw new GatewayError('invalid_request', "Send either 'contents' or 'generateContentRequest', not both.", { param: 'contents' });

  const counted = await countUpstream(ctx, model, {
    protocol: 'gemini',
    parsed,
    counter: (target) => target.provider,
    body: (target) => (inner ? withInnerModel(raw, target.upstreamModel) : raw),
    read(json, provider) {
      if (typeof json.totalTokens !== 'number') throw new GatewayError('bad_gateway', `The upstream provider '${provider.id}' answered countTokens without totalTokens.`);
      return json;
    },
  });
  if (counted) return upstreamJsonResponse(ctx, counted);
  const system = inner?.systemInstruction === undefined ? undefined : parseOrThrow(systemInstructionSchema, inner.systemInstruction, 'generateContentRequest.systemInstruction');
  const tools = inner?.tools === undefined ? undefined : parseOrThrow(toolSchema.array(), inner.tools, 'generateContentRequest.tools');
  const totalTokens = estimateGeminiTokens(inner?.contents ?? req.contents ?? [], { systemInstruction: system, tools });
  return jsonResponse(ctx, { totalTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: totalTokens }] });
}

/** The body with its inner request's `model` set to `upstreamModel`: it must name the upstream's model, not the gateway's id. */
function withInnerModel(raw: string, upstreamModel: string): string {
  const json = JSON.parse(raw) as Record<string, Record<string, unknown>>;
  const key = Object.hasOwn(json, 'generateContentRequest') ? 'generateContentRequest' : 'generate_content_request';
  const inner = json[key] as Record<string, unknown>;
  inner.model = `models/${upstreamModel.replace(/^models\//, '')}`;
  return JSON.stringify(json);
}
