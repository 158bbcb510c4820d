/**
 * POST /v1/images/generations and POST /v1/images/edits (OpenAI Images API). OpenAI-style
 * upstreams get the caller's request (model rewritten, same encoding); Gemini image models get a
 * generateContent call per image and answer as `b64_json`.
 */
import type { IRWarning } from '../ir/types.js';
import type { SettingWarning } from '../observability/hooks.js';
import { WARNINGS_HEADER, warningsHeaderValue } from './setting-warnings.js';
import { GatewayError } from '../core/errors.js';
import { parseJsonObject } from '../request/body.js';
import { SSE_HEADERS } from '../wire/sse.js';
import type { IRUsage } from '../ir/types.js';
import { checkGeminiImageOptions, fromGeminiImageResponses, geminiImageResponseSchema, geminiImageTokens, imageGenerationSchema, openAIEditBody, openAIGenerationBody, parseEditJson, parseEditMultipart, toGeminiImageRequest, type GeminiImageResponse, type ImageEditRequest, type ImageGenerationRequest } from '../protocols/images/index.js';
import { parseOrThrow } from '../protocols/shared/zod-error.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { EndpointContext } from './services.js';
import { candidateModels, runAttempts } from '../routing/attempts.js';
import { admitFallbackModel, admitModelCall, requestLimits } from '../limits/admission.js';
import { estimateInputTokens } from '../limits/estimate-request.js';
import { settleRequest } from '../limits/request-lease.js';
import { authenticate, jsonResponse, requestSecrets, requireCapability, resolveModel, upstreamJsonResponse } from './common.js';
import type { Reply } from '../reply/reply.js';
import { callUpstream, notAnAnswer, readUpstreamJson, upstreamRequest, type UpstreamResult } from '../upstream/call.js';
import { fromUpstream } from '../upstream/failure.js';
import { byteRelayTransform, pumpReply } from '../upstream/stream-pump.js';
import { quoteInput } from '../core/quote-input.js';

/**
 * The Gemini answers a failed attempt already got (n images are n calls): the next attempt on the
 * same model asks only for the rest, and a request that fails in the end still pays for them.
 */
interface KeptImages {
  model: ResolvedModel;
  answers: GeminiImageResponse[];
}

type ImageCall = (
  | { kind: 'generate'; req: ImageGenerationRequest; body: Record<string, unknown> }
  | { kind: 'edit'; req: ImageEditRequest }
) & { kept?: KeptImages };

/** POST /v1/images/generations */
export async function imageGenerations(ctx: EndpointContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const bytes = await ctx.body.bytes();
  const body = parseJsonObject(new TextDecoder().decode(bytes));
  const req = parseOrThrow(imageGenerationSchema, body);
  const model = resolveModel(ctx, principal, req.model);
  return runImages(ctx, model, { kind: 'generate', req, body });
}

/** POST /v1/images/edits (multipart/form-data or JSON) */
export async function imageEdits(ctx: EndpointContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const contentType = ctx.request.headers.get('content-type') ?? '';
  const bytes = await ctx.body.bytes();
  let req: ImageEditRequest;
  if (/^multipart\/form-data/i.test(contentType)) req = await parseEditMultipart(bytes, contentType);
  else if (/^application\/json/i.test(contentType) || contentType === '') req = parseEditJson(parseJsonObject(new TextDecoder().decode(bytes)));
  else throw new GatewayError('invalid_request', `Unsupported Content-Type '${quoteInput(contentType)}'; send multipart/form-data or application/json.`);
  const model = resolveModel(ctx, principal, req.options.model);
  return runImages(ctx, model, { kind: 'edit', req });
}

/** Admits the call against the limits (the prompt's tokens are reserved), then runs it. */
async function runImages(ctx: EndpointContext, model: ResolvedModel, call: ImageCall): Promise<Reply> {
  requireCapability(model, 'image');
  const prompt = call.kind === 'generate' ? call.req.prompt : call.req.options.prompt;
  if (ctx.principal) await admitModelCall(ctx.services.admission, ctx, ctx.principal, model, () => ({ input: estimateInputTokens(prompt), output: 0 }));
  try {
    // Over the model's deployments and its image-capable fallbacks, with retries (routing/attempts.ts).
    const needs = { capability: 'image' as const, image: call.kind === 'edit', pdf: false, tools: false };
    const admitFallback = (fallback: ResolvedModel): Promise<void> => (ctx.principal ? admitFallbackModel(ctx.services.admission, ctx, fallback, () => ({ input: estimateInputTokens(prompt), output: 0 })) : Promise.resolve());
    return await runAttempts(ctx.services.routing,ctx, candidateModels(ctx.services.routing, ctx, model, () => needs), (target) => routeImages(ctx, target, call), undefined, admitFallback);
  } catch (err) {
    // Images the upstream made before the request failed are paid for (budgets and the ledger see them).
    const kept = call.kept;
    if (!kept?.answers.length) {
      await settleRequest(requestLimits(ctx), model.pricing, { totalTokens: 0 });
      throw err;
    }
    const t = geminiImageTokens(kept.answers);
    const usage = { inputTokens: t.input, outputTokens: t.output, totalTokens: t.input + t.output };
    const costUsd = await settleRequest(requestLimits(ctx), kept.model.pricing, usage);
    ctx.obs.report({ usage, ...(costUsd !== undefined ? { costUsd } : {}), ...(kept.model.pricing ? { pricing: kept.model.pricing } : {}) });
    throw err;
  }
}

async function routeImages(ctx: EndpointContext, model: ResolvedModel, call: ImageCall): Promise<Reply> {
  const provider = model.provider;
  const stream = (call.kind === 'generate' ? call.req.stream : call.req.options.stream) === true;
  ctx.event.stream = stream;
  if (provider.imageApi === 'openai-images') {
    return openAIImages(ctx, model, call, stream);
  }
  if (provider.imageApi === 'gemini-generate-content') {
    if (/imagen/i.test(model.upstreamModel)) {
      throw new GatewayError('unsupported', `The model '${model.id}' is an Imagen model; its legacy :predict API is not supported. Use a Gemini image model (e.g. gemini-2.5-flash-image).`, { param: 'model' });
    }
    return geminiImages(ctx, model, call);
  }
  throw new GatewayError('unsupported', `The model '${model.id}' is served by provider '${provider.id}' (${provider.type}), which has no image API.`, { param: 'model' });
}

function usageOf(json: Record<string, unknown>): IRUsage | undefined {
  const u = json.usage as { input_tokens?: unknown; output_tokens?: unknown; total_tokens?: unknown } | undefined;
  if (!u || typeof u !== 'object') return undefined;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return { inputTokens: num(u.input_tokens), outputTokens: num(u.output_tokens), totalTokens: num(u.total_tokens) };
}

/** The end of a call: cost, limits settled and released, the outcome reported (the gateway fires onResponse). */
async function finished(ctx: EndpointContext, model: ResolvedModel, usage: IRUsage | undefined, streamCompleted?: boolean, images?: number): Promise<void> {
  const costUsd = await settleRequest(requestLimits(ctx), model.pricing, usage);
  ctx.obs.report({
    ...(usage ? { usage } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    ...(model.pricing ? { pricing: model.pricing } : {}),
    ...(images !== undefined ? { media: { images } } : {}),
    ...(streamCompleted !== undefined ? { streamCompleted } : {}),
  });
}

async function openAIImages(ctx: EndpointContext, model: ResolvedModel, call: ImageCall, stream: boolean): Promise<Reply> {
  const provider = model.provider;
  const path = call.kind === 'generate' ? '/images/generations' : '/images/edits';
  const target = provider.apiTarget(path);
  let body: BodyInit;
  if (call.kind === 'generate') {
    body = JSON.stringify(openAIGenerationBody(call.body, model.upstreamModel, model.id));
    target.headers.set('content-type', 'application/json');
  } else {
    const encoded = openAIEditBody(call.req, model.upstreamModel, model.id);
    body = encoded.body;
    if (encoded.json) target.headers.set('content-type', 'application/json');
  }
  const upstream = await callUpstream(provider, upstreamRequest(ctx, { url: target.url, headers: target.headers, body, protocol: 'openai-chat' }, ctx.services.config.timeouts.streamIdleMs));
  if (stream) return relayImageStream(ctx, model, upstream);
  const raw = { text: '' };
  const json = await readUpstreamJson(upstream, provider.id, raw);
  // A 200 that is no Images answer (an error object sent with 200): a 502 with the upstream's message, retried and failed over.
  if (!Array.isArray(json.data)) throw notAnAnswer(provider.id, 'openai-chat', raw.text, requestSecrets(ctx));
  await finished(ctx, model, usageOf(json), undefined, json.data.length);
  return upstreamJsonResponse(ctx, json);
}

/** Image SSE from an OpenAI-style upstream, relayed as it arrives (events can be megabytes). */
function relayImageStream(ctx: EndpointContext, model: ResolvedModel, upstream: UpstreamResult): Reply {
  return pumpReply({
    upstream,
    transform: byteRelayTransform(),
    clientSignal: ctx.signal,
    secrets: requestSecrets(ctx),
    headers: SSE_HEADERS,
    onEnd: (_failure, completed) => finished(ctx, model, undefined, completed),
  });
}

async function geminiImages(ctx: EndpointContext, model: ResolvedModel, call: ImageCall): Promise<Reply> {
  const provider = model.provider;
  let request: { body: Record<string, unknown>; warnings: IRWarning[] };
  let n: number;
  if (call.kind === 'generate') {
    checkGeminiImageOptions(model.id, call.req, call.body);
    request = await toGeminiImageRequest(model.id, call.req.prompt, call.req);
    n = call.req.n ?? 1;
  } else {
    const raw = call.req.encoding === 'json' ? (call.req.json ?? {}) : Object.fromEntries(call.req.formFields ?? []);
    checkGeminiImageOptions(model.id, call.req.options, raw);
    request = await toGeminiImageRequest(model.id, call.req.options.prompt, call.req.options, call.req.images, call.req.mask);
    n = call.req.options.n ?? 1;
  }
  const text = JSON.stringify(request.body);
  const one = async (): Promise<GeminiImageResponse> => {
    const target = provider.chatRequest({ upstreamModel: model.upstreamModel, stream: false, inboundHeaders: ctx.request.headers });
    const upstream = await callUpstream(provider, upstreamRequest(ctx, { url: target.url, headers: target.headers, body: text, protocol: 'gemini' }, ctx.services.config.timeouts.streamIdleMs));
    const raw = { text: '' };
    const parsed = geminiImageResponseSchema.safeParse(await readUpstreamJson(upstream, provider.id, raw));
    // Neither candidates nor a prompt verdict (`{}`, an error object sent with 200): no answer, retried and failed over.
    if (!parsed.success || (parsed.data.candidates === undefined && parsed.data.promptFeedback === undefined)) throw notAnAnswer(provider.id, 'gemini', raw.text, requestSecrets(ctx));
    return parsed.data;
  };
  // Gemini makes one image per call; n images are n calls (candidateCount is not supported by image models).
  // A retry on the same model asks only for the images an earlier attempt did not get.
  const before = call.kept?.model.id === model.id ? call.kept.answers : [];
  const settled = await Promise.allSettled(Array.from({ length: n - before.length }, one));
  const answers = [...before];
  let failure: unknown;
  for (const s of settled) {
    if (s.status === 'fulfilled') answers.push(s.value);
    else failure ??= s.reason;
  }
  call.kept = { model, answers };
  if (failure !== undefined) throw failure;
  let out: ReturnType<typeof fromGeminiImageResponses>;
  try {
    out = fromGeminiImageResponses(answers, model.id, Math.floor(ctx.services.now() / 1000));
  } catch (err) {
    // A refusal or an empty answer read from the upstream's 200s: its attempt is counted (and a missing image is retried).
    throw err instanceof GatewayError ? fromUpstream(err, 200) : err;
  }
  await finished(ctx, model, { inputTokens: out.usage?.input_tokens, outputTokens: out.usage?.output_tokens, totalTokens: out.usage?.total_tokens }, undefined, out.data.length);
  // Settings Gemini could not take as sent: in the x-modelgate-warnings header and the hook events, never silently.
  const warnings: SettingWarning[] = request.warnings.map((w) => ({ setting: w.setting, action: w.action, message: w.message }));
  if (warnings.length) ctx.event.warnings = [...(ctx.event.warnings ?? []), ...warnings];
  const header = warningsHeaderValue(warnings);
  return upstreamJsonResponse(ctx, out, 200, header ? { [WARNINGS_HEADER]: header } : undefined);
}
