import type { GatewayError } from '../core/errors.js';
import { SSE_HEADERS } from '../wire/sse.js';
import type { IRChatRequest, IRFinishReason, IRStreamEvent, IRUsage, ProtocolName } from '../ir/types.js';
import { codecFor } from '../protocols/registry.js';
import type { PassthroughCodec, ResponseMeta } from '../protocols/types.js';
import { upstreamTarget, type ResolvedModel } from '../routing/model-registry.js';
import type { EndpointContext } from './services.js';
import { candidateModels, runAttempts } from '../routing/attempts.js';
import { chatNeeds } from '../routing/request-needs.js';
import { responseFacts, streamStartFacts } from '../observability/genai.js';
import type { RequestOutcome } from '../observability/response-event.js';
import { admitFallbackModel, admitModelCall, requestLimits } from '../limits/admission.js';
import { estimateChatRequest } from '../limits/estimate-request.js';
import { settleRequest } from '../limits/request-lease.js';
import { requestSecrets, scrubError, upstreamJsonResponse, upstreamJsonTextResponse } from './common.js';
import { settingWarnings, WARNINGS_HEADER, warningsHeaderValue } from './setting-warnings.js';
import type { Reply } from '../reply/reply.js';
import { callUpstream, notAnAnswer, readUpstreamJson, upstreamRequest, type UpstreamResult } from '../upstream/call.js';
import { pumpReply, sseTransform, type PumpOptions, type StreamTransform } from '../upstream/stream-pump.js';
import { responseHeader } from '../upstream/direct-body.js';
import { CACHE_HEADER } from '../cache/cache-policy.js';
import { hitCost, readCached } from '../cache/cache-io.js';
import { ChatAnswerRecorder } from '../cache/chat-replay.js';
import { answerChatHit, chatCachePlan, keepChatAnswer } from './chat-cache.js';

export type { ChatCall } from './chat-call.js';
import type { ChatCall } from './chat-call.js';


/**
 * pumpReply's options for a chat stream. A class, so its lazy `clientSignal` getter sits on the
 * prototype: an object literal with an accessor is a dictionary-mode object in V8, and the pump
 * reads these options per chunk.
 */
class ChatPump implements PumpOptions {
  readonly secrets: readonly string[];
  readonly headers: Record<string, string>;
  readonly keepAlive: boolean;
  readonly #ctx: EndpointContext;

  constructor(
    ctx: EndpointContext,
    call: ChatCall,
    readonly upstream: UpstreamResult,
    readonly transform: StreamTransform,
    readonly onEnd: (failure: GatewayError | undefined, completed: boolean) => Promise<void>,
    extra: Record<string, string>,
  ) {
    this.#ctx = ctx;
    const sse = !call.streamContentType;
    this.secrets = requestSecrets(ctx);
    this.headers = sse ? { ...SSE_HEADERS, ...extra } : { 'content-type': call.streamContentType as string, 'cache-control': 'no-cache', ...extra };
    this.keepAlive = sse;
  }

  /** Read only if the stream fails (whether the client had left): most streams never build the signal. */
  get clientSignal(): AbortSignal {
    return this.#ctx.signal;
  }

}

/** Headers and keep-alive policy of a streamed answer; the pump scrubs every byte of it. */
function streamOf(
  ctx: EndpointContext,
  call: ChatCall,
  upstream: UpstreamResult,
  transform: StreamTransform,
  onEnd: (failure: GatewayError | undefined, completed: boolean) => Promise<void>,
  extra: Record<string, string> = {},
): Reply {
  return pumpReply(new ChatPump(ctx, call, upstream, transform, onEnd, extra));
}

/**
 * A stream request answered with a document instead of an event stream (a JSON error object, a
 * proxy's or CDN's HTML page, XML, sent with 200): a 502 with the upstream's message before
 * anything reaches the client, retried and failed over, instead of a body relayed as if it were
 * events. Gemini's streams come as SSE (alt=sse) too. A missing or other type (text/plain from a
 * lax compatible server) is read as the stream it should be.
 */
async function refuseDocumentForStream(ctx: EndpointContext, call: ChatCall, upstream: UpstreamResult, protocol: ProtocolName): Promise<void> {
  const type = responseHeader(upstream.response, 'content-type');
  if (type === null || !isDocumentType(type)) return;
  const raw = { text: '' };
  try {
    await readUpstreamJson(upstream, call.model.provider.id, raw);
  } catch {
    // Not JSON after all: what came is still no stream.
  }
  throw notAnAnswer(call.model.provider.id, protocol, raw.text, requestSecrets(ctx));
}

/** A media type that is a document, never an event stream: JSON, HTML or XML of any flavour. */
function isDocumentType(contentType: string): boolean {
  const media = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return media !== 'text/event-stream' && /json|html|xml/.test(media);
}

/** Admits a chat call against the key's and the model's limits (429 when one has no room). */
export async function admitChat(ctx: EndpointContext, call: ChatCall): Promise<void> {
  if (ctx.principal) await admitModelCall(ctx.services.admission, ctx, ctx.principal, call.model, () => estimateChatRequest(call.parsed));
}

/** Runs a chat call: pass-through when the upstream speaks the client's protocol, else translate. */
export async function runChat(ctx: EndpointContext, call: ChatCall): Promise<Reply> {
  ctx.event.stream = call.stream;
  ctx.obs.requestBody(call.parsed);
  const plan = chatCachePlan(ctx, call);
  if (plan) {
    const entry = await readCached(ctx.services, plan);
    if (entry?.answer.kind === 'chat') return answerChatHit(ctx, call, entry.answer.response, hitCost(plan, entry), meta(ctx, call));
  }
  await admitChat(ctx, call);
  try {
    const reply = await routeChat(ctx, plan ? { ...call, cache: plan } : call);
    if (plan) reply.headers.set(CACHE_HEADER, 'miss');
    return reply;
  } catch (err) {
    // Nothing reached the client: the reserved tokens go back and the slot is free.
    await settleRequest(requestLimits(ctx), call.model.pricing, { totalTokens: 0 });
    throw err;
  }
}

/**
 * Over the model's deployments and its fallbacks, with retries (routing/attempts.ts). A call
 * prepared for one upstream API (a pass-through route, a request decoded for a protocol) only
 * moves to deployments that speak it.
 */
async function routeChat(ctx: EndpointContext, call: ChatCall): Promise<Reply> {
  const route = call.passthroughRoute;
  const protocol = call.model.provider.chatProtocol;
  const accepts = route ? (m: ResolvedModel) => route.target(m) !== undefined : call.ir ? (m: ResolvedModel) => m.provider.chatProtocol === protocol : undefined;
  const admitFallback = (model: ResolvedModel): Promise<void> => (ctx.principal ? admitFallbackModel(ctx.services.admission, ctx, model, () => estimateChatRequest(call.parsed)) : Promise.resolve());
  return runAttempts(ctx.services.routing,ctx, candidateModels(ctx.services.routing, ctx, call.model, () => chatNeeds(call.parsed)), (model) => attemptUpstream(ctx, { ...call, model }), accepts, admitFallback);
}

/** One upstream attempt of a chat call (`call.model` routed to one deployment): pass-through or translated. */
export async function attemptUpstream(ctx: EndpointContext, call: ChatCall): Promise<Reply> {
  const provider = call.model.provider;
  const route = call.passthroughRoute;
  const routeTarget = route?.target(call.model);
  if (route && routeTarget) {
    ctx.obs.routed(call.client.protocol, true);
    return passthrough(ctx, call, route.codec, routeTarget);
  }
  const sameProtocol = provider.chatProtocol === call.client.protocol && !call.translateFor?.(call.model);
  ctx.obs.routed(provider.chatProtocol, sameProtocol);
  if (sameProtocol) {
    const codec = codecFor(provider.chatProtocol);
    const target = provider.chatRequest({ upstreamModel: call.model.upstreamModel, stream: call.stream, inboundHeaders: ctx.request.headers });
    return passthrough(ctx, call, codec.passthrough, target);
  }
  const ir = call.ir ?? call.client.decodeRequest(call.parsed, { model: call.model.id, stream: call.stream, target: provider.chatProtocol, ...(call.validated !== undefined ? { validated: call.validated } : {}) });
  return translate(ctx, call, ir);
}

function meta(ctx: EndpointContext, call: ChatCall): ResponseMeta {
  return {
    traceId: ctx.traceId,
    upstreamModel: call.model.upstreamModel,
    created: Math.floor(ctx.services.now() / 1000),
    newId: (prefix) => `${prefix}${ctx.services.newId()}`,
    options: call.clientOptions ?? {},
    upstream: call.model.provider.chatProtocol,
  };
}

/** The end of a call: cost, limits settled and released, the outcome reported (the gateway fires onResponse). */
async function finishEvent(ctx: EndpointContext, call: ChatCall, reported: IRUsage | undefined, err?: GatewayError, streamCompleted?: boolean, finishReason?: IRFinishReason): Promise<number | undefined> {
  const usage = reported && saneUsage(reported);
  const costUsd = await settleRequest(requestLimits(ctx), call.model.pricing, usage, streamCompleted !== false);
  // Set field by field: conditional spreads build and copy an object per field (slow on Node 20).
  const outcome: RequestOutcome = {};
  if (usage) outcome.usage = usage;
  if (finishReason) outcome.finishReason = finishReason;
  if (costUsd !== undefined) outcome.costUsd = costUsd;
  if (call.model.pricing) outcome.pricing = call.model.pricing;
  if (err) outcome.error = { code: err.code, message: scrubError(ctx, err).message };
  if (streamCompleted !== undefined) outcome.streamCompleted = streamCompleted;
  ctx.obs.report(outcome);
  return costUsd;
}

async function passthrough(ctx: EndpointContext, call: ChatCall, codec: PassthroughCodec, target: { url: string; headers: Headers }): Promise<Reply> {
  const provider = call.model.provider;
  const body = codec.prepareBody(call.raw, call.parsed, call.model.upstreamModel, call.stream);
  const upstream = await callUpstream(provider, upstreamRequest(ctx, { url: target.url, headers: target.headers, body, protocol: codec.protocol }, ctx.services.config.timeouts.streamIdleMs));
  if (!call.stream) {
    const raw = { text: '' };
    const json = await readUpstreamJson(upstream, provider.id, raw);
    if (codec.isAnswer && !codec.isAnswer(json)) throw notAnAnswer(provider.id, codec.protocol, raw.text, requestSecrets(ctx));
    ctx.obs.answer(() => responseFacts(json));
    ctx.obs.answerContent(json);
    const { body: out, usage, asSent, finishReason } = codec.finishSyncBody(json, ctx.traceId);
    const costUsd = await finishEvent(ctx, call, usage, undefined, undefined, finishReason);
    if (call.cache) await keepChatAnswer(ctx, call.cache, codecFor(codec.protocol).upstream.decodeResponse(json), costUsd);
    return asSent ? upstreamJsonTextResponse(ctx, raw.text, out) : upstreamJsonResponse(ctx, out);
  }
  await refuseDocumentForStream(ctx, call, upstream, codec.protocol);
  const relay = codec.createRelay({ clientWantsUsage: call.clientWantsUsage === true, options: call.clientOptions ?? {}, traceId: ctx.traceId, target: provider.chatDialect });
  // A call whose answer is kept reads every event into the IR as it passes (the bytes still go as they came).
  const recording = call.cache ? { decoder: codecFor(codec.protocol).upstream.createStreamDecoder(provider.chatDialect), recorder: new ChatAnswerRecorder(call.model.upstreamModel) } : undefined;
  const nextLook = recording ? undefined : relay.nextLook?.bind(relay);
  const transform = sseTransform({
    refuseCutJson: true,
    first: (ev) => ctx.obs.answer(() => streamStartFacts(ev.data)),
    event: (ev, raw) => {
      if (recording) for (const e of recording.decoder.event(ev)) recording.recorder.record(e);
      return relay.relay(ev, raw);
    },
    end: () => {
      if (recording) for (const e of recording.decoder.end()) recording.recorder.record(e);
      return relay.end();
    },
    error: (err) => relay.error(err),
    ...(nextLook ? { nextLook } : {}),
  });
  return streamOf(ctx, call, upstream, transform, async (failure, completed) => {
    const costUsd = await finishEvent(ctx, call, relay.usage(), failure, completed, relay.finishReason());
    if (recording && !failure && completed) await keepChatAnswer(ctx, call.cache, recording.recorder.response(), costUsd);
  });
}

/** More tokens than any one request has: a count past it is an upstream's garbage. */
const MAX_TOKEN_COUNT = 1e12;

/**
 * The upstream's usage without counts no request can have (negative, not finite, absurdly large,
 * not a number: a relayed answer's usage is not validated): those are left out, so cost, limits,
 * the ledger and the rollups never take them in.
 */
function saneUsage(u: IRUsage): IRUsage {
  const fields = Object.keys(u) as Array<keyof IRUsage>;
  if (fields.every((k) => isCount(u[k]))) return u;
  const out: IRUsage = {};
  for (const k of fields) {
    const v = u[k];
    if (isCount(v)) out[k] = v;
  }
  return out;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_TOKEN_COUNT;

/** What the upstream decoders name the model when the upstream's answer does not. */
const UNREPORTED_MODEL = 'unknown';

async function translate(ctx: EndpointContext, call: ChatCall, ir: IRChatRequest): Promise<Reply> {
  const provider = call.model.provider;
  const upstreamCodec = codecFor(provider.chatProtocol).upstream;
  const encoded = upstreamCodec.encodeRequest(ir, call.model.upstreamModel, upstreamTarget(call.model));
  const body = encoded.body;
  // Dropped or adjusted settings, in the client's field names: header, hook events, sync body.
  const warnings = settingWarnings(call.client, encoded.warnings, call.parsed);
  const warningHeader = warningsHeaderValue(warnings);
  const headers: Record<string, string> = warningHeader ? { [WARNINGS_HEADER]: warningHeader } : {};
  if (warnings.length) ctx.event.warnings = warnings;
  const target = provider.chatRequest({ upstreamModel: call.model.upstreamModel, stream: call.stream, inboundHeaders: ctx.request.headers });
  const upstream = await callUpstream(provider, upstreamRequest(ctx, { ...target, body: JSON.stringify(body) }, ctx.services.config.timeouts.streamIdleMs));
  const m = meta(ctx, call);
  if (warnings.length) m.warnings = warnings;
  if (!call.stream) {
    const json = await readUpstreamJson(upstream, provider.id);
    const res = upstreamCodec.decodeResponse(json);
    // An upstream that names no model (a bare compatible server): the deployment's model is the one used.
    if (res.model === UNREPORTED_MODEL) res.model = call.model.upstreamModel;
    ctx.obs.answer({ id: res.id, model: res.model, finishReasons: [res.finishReason.raw ?? res.finishReason.unified] });
    ctx.obs.answerContent(res.content);
    const costUsd = await finishEvent(ctx, call, res.usage, undefined, undefined, res.finishReason);
    await keepChatAnswer(ctx, call.cache, res, costUsd);
    return upstreamJsonResponse(ctx, call.client.encodeResponse(res, m, warnings), 200, headers);
  }
  await refuseDocumentForStream(ctx, call, upstream, provider.chatProtocol);
  const decoder = upstreamCodec.createStreamDecoder(provider.chatDialect);
  const encoder = call.client.createStreamEncoder(m);
  let usage: IRUsage | undefined;
  let finishReason: IRFinishReason | undefined;
  const recorder = call.cache ? new ChatAnswerRecorder(call.model.upstreamModel) : undefined;
  const handle = (events: IRStreamEvent[]): string => {
    let text = '';
    for (const ev of events) {
      if (ev.type === 'error') throw ev.error;
      // An upstream that names no model (a bare compatible server): the deployment's model is the one used.
      if (ev.type === 'message-start' && ev.model === UNREPORTED_MODEL) ev.model = call.model.upstreamModel;
      observeEvent(ctx, ev);
      recorder?.record(ev);
      if (ev.type === 'finish') {
        usage = ev.usage;
        finishReason = ev.finishReason;
      }
      else if (ev.type === 'message-start' && ev.usage) usage = ev.usage;
      text += encoder.encode(ev);
    }
    return text;
  };
  const transform = sseTransform({
    event: (ev) => handle(decoder.event(ev)),
    end: () => handle(decoder.end()) + encoder.end(),
    error: (err) => encoder.error(err),
  });
  return streamOf(
    ctx,
    call,
    upstream,
    transform,
    async (failure, completed) => {
      const costUsd = await finishEvent(ctx, call, usage, failure, completed, finishReason);
      if (recorder && !failure && completed) await keepChatAnswer(ctx, call.cache, recorder.response(), costUsd);
    },
    headers,
  );
}

/** What a translated stream tells the observer: the answer's id, model and finish reason, and its first token. */
function observeEvent(ctx: EndpointContext, ev: IRStreamEvent): void {
  if (ev.type === 'message-start') ctx.obs.answer({ id: ev.id, model: ev.model });
  else if (ev.type === 'finish') ctx.obs.answer({ finishReasons: [ev.finishReason.raw ?? ev.finishReason.unified] });
  else if (ev.type === 'text-delta' || ev.type === 'reasoning-delta' || ev.type === 'tool-call-start') ctx.obs.firstToken();
}
