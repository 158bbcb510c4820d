/**
 * One embeddings call, whichever entry point it came in by (OpenAI `/v1/embeddings`, Gemini
 * `:embedContent` / `:batchEmbedContents`, `/v1beta/openai/embeddings`): admitted against the limits
 * (the inputs' tokens reserved), routed over the model's deployments and fallbacks, then
 * - OpenAI client, OpenAI(-compatible) upstream: pass-through (model rewritten, answer relayed);
 * - Gemini client, Gemini upstream: pass-through, a batch split to the vendor's per-call limit;
 * - across vendors: translated through the IR (Gemini answers floats: encoded to base64 when the
 *   OpenAI client asked for it, as the openai SDK does by default);
 * - a vendor without embeddings (Anthropic): a 400 naming the model.
 * The usage (the vendor's count, or the gateway's estimate where Gemini reports none) settles the
 * limits and prices the call like chat.
 */
import { GatewayError } from '../core/errors.js';
import { replaceTopLevelString } from '../wire/json-splice.js';
import type { Reply } from '../reply/reply.js';
import type { IREmbeddingRequest, IREmbeddingResponse } from '../ir/embeddings.js';
import type { IRUsage, IRWarning } from '../ir/types.js';
import { admitFallbackModel, admitModelCall, requestLimits } from '../limits/admission.js';
import type { TokenEstimate } from '../limits/estimate-request.js';
import { settleRequest } from '../limits/request-lease.js';
import type { SettingWarning } from '../observability/hooks.js';
import {
  chunked,
  decodeGeminiBatchEmbedResponse,
  decodeOpenAIEmbeddingsResponse,
  encodeGeminiBatchEmbedRequests,
  encodeGeminiEmbedResponse,
  encodeOpenAIEmbeddingsRequest,
  encodeOpenAIEmbeddingsResponse,
  geminiEmbedContentResponseSchema,
  geminiModelName,
  openAIEmbeddingsResponseSchema,
} from '../protocols/embeddings/index.js';
import { geminiModelSegment } from '../providers/gemini/veo.js';
import { candidateModels, runAttempts } from '../routing/attempts.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { EndpointContext } from './services.js';
import { callUpstream, readUpstreamJson, upstreamRequest } from '../upstream/call.js';
import { requireCapability, upstreamJsonResponse, upstreamJsonTextResponse } from './common.js';
import { WARNINGS_HEADER, warningsHeaderValue } from './setting-warnings.js';
import { cachePlan, CACHE_HEADER, type CachePlan } from '../cache/cache-policy.js';
import { hitCost, readCached, writeCached } from '../cache/cache-io.js';
import { cacheableEmbeddings } from '../cache/embeddings-answer.js';

/** How the caller wants its answer. */
export type EmbeddingsClient = { kind: 'openai'; encoding: 'float' | 'base64' } | { kind: 'gemini'; single: boolean };

export interface EmbeddingsCall {
  model: ResolvedModel;
  ir: IREmbeddingRequest;
  /** The body as received, and parsed. */
  raw: string;
  parsed: Record<string, unknown>;
  client: EmbeddingsClient;
}

/** What an answered call reports: the answer, its JSON text as the client gets it (without traceId, for the cache), its usage. */
interface Answered {
  reply: Reply;
  text: string;
  usage: IRUsage | undefined;
}

/** About four characters per token of text; a token array is its length. */
export function estimateEmbeddingTokens(ir: IREmbeddingRequest): number {
  let tokens = 0;
  for (const input of ir.inputs) tokens += 'text' in input ? Math.ceil(input.text.length / 4) : input.tokens.length;
  return Math.max(1, tokens);
}

const NEEDS = { capability: 'embedding' as const, image: false, pdf: false, tools: false };

export async function runEmbeddings(ctx: EndpointContext, call: EmbeddingsCall): Promise<Reply> {
  requireCapability(call.model, 'embedding');
  ctx.event.stream = false;
  ctx.obs.requestBody(call.parsed);
  const entry = call.client.kind === 'openai' ? 'embeddings:openai' : `embeddings:gemini:${call.client.single ? 'embedContent' : 'batchEmbedContents'}`;
  const plan = cachePlan(ctx.principal, call.model, ctx.request.headers, entry, call.parsed);
  if (plan) {
    const hit = await answerHit(ctx, call.model, plan);
    if (hit) return hit;
  }
  const estimate = (): TokenEstimate => ({ input: estimateEmbeddingTokens(call.ir), output: 0 });
  if (ctx.principal) await admitModelCall(ctx.services.admission, ctx, ctx.principal, call.model, estimate);
  let model = call.model;
  try {
    const admitFallback = (fallback: ResolvedModel): Promise<void> => (ctx.principal ? admitFallbackModel(ctx.services.admission, ctx, fallback, estimate) : Promise.resolve());
    const answered = await runAttempts(
      ctx.services.routing,
      ctx,
      candidateModels(ctx.services.routing, ctx, call.model, () => NEEDS),
      (target) => {
        model = target;
        return attempt(ctx, { ...call, model: target });
      },
      undefined,
      admitFallback,
    );
    const costUsd = await settleRequest(requestLimits(ctx), model.pricing, answered.usage);
    ctx.obs.report({ ...(answered.usage ? { usage: answered.usage } : {}), ...(costUsd !== undefined ? { costUsd } : {}) });
    if (plan) {
      // Only a complete answer is kept (every vector there and not empty); errors were thrown above.
      if (cacheableEmbeddings(answered.text)) await writeCached(ctx.services, plan, { kind: 'json', body: answered.text, ...(answered.usage ? { usage: answered.usage } : {}) }, costUsd);
      answered.reply.headers.set(CACHE_HEADER, 'miss');
    }
    return answered.reply;
  } catch (err) {
    await settleRequest(requestLimits(ctx), call.model.pricing, { totalTokens: 0 });
    throw err;
  }
}

/** A hit: the stored answer, no upstream call; the limits count the request but no tokens; the (fractional) cost reported. */
async function answerHit(ctx: EndpointContext, model: ResolvedModel, plan: CachePlan): Promise<Reply | undefined> {
  const entry = await readCached(ctx.services, plan);
  if (entry?.answer.kind !== 'json') return undefined;
  if (ctx.principal) await admitModelCall(ctx.services.admission, ctx, ctx.principal, model, () => ({ input: 0, output: 0 }));
  const costUsd = hitCost(plan, entry);
  await settleRequest(requestLimits(ctx), model.pricing, { totalTokens: 0 }, true, costUsd);
  ctx.obs.report({ ...(entry.answer.usage ? { usage: entry.answer.usage } : {}), costUsd, cacheHit: true });
  const text = entry.answer.body;
  const reply = upstreamJsonTextResponse(ctx, text, JSON.parse(text) as Record<string, unknown>);
  reply.headers.set(CACHE_HEADER, 'hit');
  return reply;
}

async function attempt(ctx: EndpointContext, call: EmbeddingsCall): Promise<Answered> {
  const provider = call.model.provider;
  switch (provider.embeddingsApi) {
    case 'openai-embeddings':
      return call.client.kind === 'openai' ? openAIPassthrough(ctx, call) : viaOpenAI(ctx, call, call.client.single);
    case 'gemini-embed-content':
      return call.client.kind === 'gemini' ? geminiPassthrough(ctx, call, call.client.single) : viaGemini(ctx, call, call.client.encoding);
    default:
      throw new GatewayError('unsupported', `The model '${call.model.id}' is served by provider '${provider.id}' (${provider.type}), which has no embeddings API.`, { param: 'model', detail: 'model_not_supported' });
  }
}

function estimatedUsage(ir: IREmbeddingRequest): IRUsage {
  const tokens = estimateEmbeddingTokens(ir);
  return { inputTokens: tokens, totalTokens: tokens };
}

/** POST a JSON body to one of the provider's APIs; its JSON answer (and the text as it came). */
async function post(ctx: EndpointContext, model: ResolvedModel, path: string, body: string, protocol: 'openai-chat' | 'gemini', raw?: { text: string }): Promise<Record<string, unknown>> {
  const provider = model.provider;
  const target = provider.apiTarget(path);
  target.headers.set('content-type', 'application/json');
  const upstream = await callUpstream(provider, upstreamRequest(ctx, { url: target.url, headers: target.headers, body, protocol }, ctx.services.config.timeouts.streamIdleMs));
  return readUpstreamJson(upstream, provider.id, raw);
}

async function openAIPassthrough(ctx: EndpointContext, call: EmbeddingsCall): Promise<Answered> {
  const model = call.model;
  const body = replaceTopLevelString(call.raw, 'model', model.upstreamModel) ?? JSON.stringify({ ...call.parsed, model: model.upstreamModel });
  const raw = { text: '' };
  const json = await post(ctx, model, '/embeddings', body, 'openai-chat', raw);
  const checked = openAIEmbeddingsResponseSchema.safeParse(json);
  if (!checked.success || checked.data.data.length !== call.ir.inputs.length) {
    throw new GatewayError('bad_gateway', `The upstream provider '${model.provider.id}' answered with an unexpected embeddings response.`);
  }
  ctx.obs.answer({ model: checked.data.model ?? model.upstreamModel });
  const u = checked.data.usage;
  const tokens = u?.prompt_tokens ?? u?.total_tokens;
  const usage = tokens !== undefined ? { inputTokens: tokens, totalTokens: u?.total_tokens ?? tokens } : undefined;
  return { reply: upstreamJsonTextResponse(ctx, raw.text, json), text: raw.text, usage };
}

/** A Gemini caller on an OpenAI(-compatible) upstream. */
async function viaOpenAI(ctx: EndpointContext, call: EmbeddingsCall, single: boolean): Promise<Answered> {
  const model = call.model;
  const encoded = encodeOpenAIEmbeddingsRequest(call.ir, model.upstreamModel);
  const json = await post(ctx, model, '/embeddings', JSON.stringify(encoded.body), 'openai-chat');
  const res = decodeOpenAIEmbeddingsResponse(json, model.provider.id, call.ir.inputs.length, model.upstreamModel);
  return answer(ctx, res, encodeGeminiEmbedResponse(res, single), encoded.warnings);
}

/** An OpenAI caller on Gemini: batches of the vendor's size, joined in order; usage estimated (Gemini reports none). */
async function viaGemini(ctx: EndpointContext, call: EmbeddingsCall, encoding: 'float' | 'base64'): Promise<Answered> {
  const model = call.model;
  const batches = encodeGeminiBatchEmbedRequests(call.ir, model.upstreamModel);
  const path = `/v1beta/models/${geminiModelSegment(model.upstreamModel)}:batchEmbedContents`;
  const answers = await Promise.all(batches.map(async (b) => decodeGeminiBatchEmbedResponse(await post(ctx, model, path, JSON.stringify(b), 'gemini'), model.provider.id, (b.requests as unknown[]).length)));
  const res: IREmbeddingResponse = { vectors: answers.flat(), model: model.upstreamModel, usage: estimatedUsage(call.ir) };
  const warnings: IRWarning[] = call.ir.user !== undefined ? [{ setting: 'user', action: 'dropped (not supported by gemini)', message: 'Gemini embeddings take no end-user id; it was not sent.' }] : [];
  return answer(ctx, res, encodeOpenAIEmbeddingsResponse(res, encoding), warnings);
}

/** A Gemini caller on Gemini: `:embedContent` as sent; a batch with its models rewritten, split and joined in order. */
async function geminiPassthrough(ctx: EndpointContext, call: EmbeddingsCall, single: boolean): Promise<Answered> {
  const model = call.model;
  const name = geminiModelName(model.upstreamModel);
  const segment = geminiModelSegment(model.upstreamModel);
  const usage = estimatedUsage(call.ir);
  ctx.obs.answer({ model: model.upstreamModel });
  if (single) {
    const body = 'model' in call.parsed ? (replaceTopLevelString(call.raw, 'model', name) ?? JSON.stringify({ ...call.parsed, model: name })) : call.raw;
    const raw = { text: '' };
    const json = await post(ctx, model, `/v1beta/models/${segment}:embedContent`, body, 'gemini', raw);
    if (!geminiEmbedContentResponseSchema.safeParse(json).success) {
      throw new GatewayError('bad_gateway', `The upstream provider '${model.provider.id}' answered with an unexpected embedContent response.`);
    }
    return { reply: upstreamJsonTextResponse(ctx, raw.text, json), text: raw.text, usage };
  }
  const requests = (call.parsed.requests as Array<Record<string, unknown>>).map((r) => ({ ...r, model: name }));
  const path = `/v1beta/models/${segment}:batchEmbedContents`;
  const answers = await Promise.all(chunked(requests).map(async (batch) => decodeGeminiBatchEmbedResponse(await post(ctx, model, path, JSON.stringify({ requests: batch }), 'gemini'), model.provider.id, batch.length)));
  const body = { embeddings: answers.flat().map((values) => ({ values })) };
  return { reply: upstreamJsonResponse(ctx, body), text: JSON.stringify(body), usage };
}

/** A translated answer: the dropped settings in the header and the hook events. */
function answer(ctx: EndpointContext, res: IREmbeddingResponse, body: Record<string, unknown>, warnings: IRWarning[]): Answered {
  ctx.obs.answer({ model: res.model });
  const named: SettingWarning[] = warnings.map((w) => ({ setting: w.setting, action: w.action, message: w.message }));
  const header = warningsHeaderValue(named);
  if (named.length) ctx.event.warnings = named;
  return { reply: upstreamJsonResponse(ctx, body, 200, header ? { [WARNINGS_HEADER]: header } : undefined), text: JSON.stringify(body), usage: res.usage };
}
