import { GatewayError, toGatewayError } from '../errors.js';
import { readSSEBatches, SSE_HEADERS } from '../http/sse.js';
import type { IRChatRequest, IRStreamEvent, IRUsage } from '../ir/types.js';
import { scrubbedStream } from '../redact.js';
import { codecFor } from '../protocols/registry.js';
import type { PassthroughCodec, ProtocolCodec, ResponseMeta } from '../protocols/types.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { RequestContext } from '../runtime.js';
import { responseFacts } from '../observability/genai.js';
import { admitModelCall, requestLimits } from '../limits/admission.js';
import { estimateChatRequest } from '../limits/estimate-request.js';
import { finishRequest } from '../limits/request-lease.js';
import { requestSecrets, scrubError, upstreamJsonResponse } from './common.js';
import { settingWarnings, WARNINGS_HEADER, warningsHeaderValue } from './setting-warnings.js';
import { textStreamReply, type Reply } from '../http/reply.js';
import { callUpstream, readUpstreamJson, type UpstreamResult } from './upstream-call.js';

export interface ChatCall {
  /** The client's protocol (its client side). */
  client: Pick<ProtocolCodec, 'client'>;
  model: ResolvedModel;
  /** The body exactly as received, and parsed. */
  raw: string;
  parsed: Record<string, unknown>;
  stream: boolean;
  /** Client-protocol switches for encoders/relays (e.g. includeUsage, Gemini alt=sse). */
  clientOptions?: Record<string, unknown>;
  /** Whether a streaming client asked for usage (OpenAI include_usage). */
  clientWantsUsage?: boolean;
  /** Content type of a streamed answer when it is not SSE (Gemini's JSON-array stream). */
  streamContentType?: string;
  /** The request already decoded (an endpoint that needed async work first, e.g. stored history). */
  ir?: IRChatRequest;
  /** Pass through on this route although the provider's chat protocol differs (e.g. OpenAI's /responses). */
  passthroughRoute?: PassthroughRoute;
}

/** Where and how a pass-through call goes when it is not the provider's chat endpoint. */
export interface PassthroughRoute {
  codec: PassthroughCodec;
  target: { url: string; headers: Headers };
  errorMessage: (status: number, bodyText: string) => string;
}

/** Headers and keep-alive policy of a streamed answer; every path's bytes pass the secret scrubber. */
function streamOf(ctx: RequestContext, call: ChatCall, source: AsyncGenerator<string>, onCancel: () => void, extra: Record<string, string> = {}): Reply {
  const gen = scrubbedStream(source, requestSecrets(ctx));
  if (!call.streamContentType) return textStreamReply(gen, onCancel, { ...SSE_HEADERS, ...extra });
  return textStreamReply(gen, onCancel, { 'content-type': call.streamContentType, 'cache-control': 'no-cache', ...extra }, false);
}

/** Admits a chat call against the key's and the model's limits (429 when one has no room). */
export async function admitChat(ctx: RequestContext, call: ChatCall): Promise<void> {
  if (ctx.principal) await admitModelCall(ctx, ctx.principal, call.model, () => estimateChatRequest(call.parsed));
}

/** Runs a chat call: pass-through when the upstream speaks the client's protocol, else translate. */
export async function runChat(ctx: RequestContext, call: ChatCall): Promise<Reply> {
  ctx.event.stream = call.stream;
  ctx.obs.requestBody(call.parsed);
  await admitChat(ctx, call);
  try {
    return await routeChat(ctx, call);
  } catch (err) {
    // Nothing reached the client: the reserved tokens go back and the slot is free.
    await finishRequest(requestLimits(ctx), call.model.pricing, { totalTokens: 0 });
    throw err;
  }
}

async function routeChat(ctx: RequestContext, call: ChatCall): Promise<Reply> {
  const provider = call.model.provider;
  if (call.passthroughRoute) {
    ctx.obs.routed(call.client.client.protocol, true);
    return passthrough(ctx, call, call.passthroughRoute);
  }
  ctx.obs.routed(provider.chatProtocol, provider.chatProtocol === call.client.client.protocol);
  if (provider.chatProtocol === call.client.client.protocol) {
    const codec = codecFor(provider.chatProtocol);
    const target = provider.chatRequest({ upstreamModel: call.model.upstreamModel, stream: call.stream, inboundHeaders: ctx.request.headers });
    return passthrough(ctx, call, { codec: codec.passthrough, target, errorMessage: codec.upstream.errorMessage });
  }
  const ir = call.ir ?? call.client.client.decodeRequest(call.parsed, { model: call.model.id, stream: call.stream });
  return translate(ctx, call, ir);
}

function meta(ctx: RequestContext, call: ChatCall): ResponseMeta {
  return {
    traceId: ctx.traceId,
    requestedModel: call.model.id,
    created: Math.floor(ctx.rt.now() / 1000),
    newId: (prefix) => `${prefix}${ctx.rt.newId()}`,
    options: call.clientOptions ?? {},
  };
}

/** The end of a call: cost, limits settled and released, the outcome reported (the gateway fires onResponse). */
async function finishEvent(ctx: RequestContext, call: ChatCall, usage: IRUsage | undefined, err?: GatewayError, streamCompleted?: boolean): Promise<void> {
  const costUsd = await finishRequest(requestLimits(ctx), call.model.pricing, usage);
  ctx.obs.report({
    ...(usage ? { usage } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    ...(err ? { error: { code: err.code, message: scrubError(ctx, err).message } } : {}),
    ...(streamCompleted !== undefined ? { streamCompleted } : {}),
  });
}

async function passthrough(ctx: RequestContext, call: ChatCall, route: PassthroughRoute): Promise<Reply> {
  const provider = call.model.provider;
  const codec = route.codec;
  const body = codec.prepareBody(call.raw, call.parsed, call.model.upstreamModel, call.stream);
  const upstream = await callUpstream(ctx, provider, { ...route.target, body }, route.errorMessage);
  if (!call.stream) {
    const json = await readUpstreamJson(upstream, provider.id);
    ctx.obs.answer(responseFacts(json));
    ctx.obs.answerContent(json);
    const { body: out, usage } = codec.finishSyncBody(json, ctx.traceId);
    await finishEvent(ctx, call, usage);
    return upstreamJsonResponse(ctx, out);
  }
  const relay = codec.createRelay({ clientWantsUsage: call.clientWantsUsage === true, options: call.clientOptions ?? {}, traceId: ctx.traceId });
  // `completed` is set only after the last byte was handed over: a client that leaves early
  // (cancel -> gen.return()) or an upstream failure leaves it false.
  let completed = false;
  let cancelled = false;
  const gen = (async function* () {
    let failure: GatewayError | undefined;
    try {
      upstream.touch();
      // Events that arrived together leave together (one write instead of one per event).
      for await (const batch of readSSEBatches(upstreamBody(upstream), upstream.touch)) {
        let text = '';
        try {
          for (const ev of batch) text += relay.relay(ev);
        } catch (err) {
          if (text) yield text;
          throw err;
        }
        if (text) yield text;
      }
      const tail = relay.end();
      if (tail) yield tail;
      completed = true;
    } catch (err) {
      failure = cancelled ? undefined : midStreamError(ctx, err, upstream);
      if (failure) yield relay.error(scrubError(ctx, failure));
    } finally {
      upstream.done();
      await finishEvent(ctx, call, relay.usage(), failure, completed);
    }
  })();
  return streamOf(ctx, call, gen, () => {
    cancelled = true;
    upstream.abort(new DOMException('Client disconnected', 'AbortError'));
    // The slot frees at once; the stream's cleanup (settling the usage) follows when the upstream stops.
    void ctx.limits?.lease?.release();
  });
}

async function translate(ctx: RequestContext, call: ChatCall, ir: IRChatRequest): Promise<Reply> {
  const provider = call.model.provider;
  const upstreamCodec = codecFor(provider.chatProtocol).upstream;
  const encoded = upstreamCodec.encodeRequest(ir, call.model.upstreamModel, provider.chatDialect);
  const body = encoded.body;
  // Dropped or adjusted settings, in the client's field names: header, hook events, sync body.
  const warnings = settingWarnings(call.client.client, encoded.warnings, call.parsed);
  const warningHeader = warningsHeaderValue(warnings);
  const headers: Record<string, string> = warningHeader ? { [WARNINGS_HEADER]: warningHeader } : {};
  if (warnings.length) ctx.event.warnings = warnings;
  const target = provider.chatRequest({ upstreamModel: call.model.upstreamModel, stream: call.stream, inboundHeaders: ctx.request.headers });
  const upstream = await callUpstream(ctx, provider, { ...target, body: JSON.stringify(body) }, upstreamCodec.errorMessage);
  const m = meta(ctx, call);
  if (warnings.length) m.warnings = warnings;
  if (!call.stream) {
    const json = await readUpstreamJson(upstream, provider.id);
    const res = upstreamCodec.decodeResponse(json);
    ctx.obs.answer({ id: res.id, model: res.model, finishReasons: [res.finishReason.raw ?? res.finishReason.unified] });
    ctx.obs.answerContent(res.content);
    await finishEvent(ctx, call, res.usage);
    return upstreamJsonResponse(ctx, call.client.client.encodeResponse(res, m, warnings), 200, headers);
  }
  const decoder = upstreamCodec.createStreamDecoder();
  const encoder = call.client.client.createStreamEncoder(m);
  let completed = false;
  let cancelled = false;
  const gen = (async function* () {
    let usage: IRUsage | undefined;
    let failure: GatewayError | undefined;
    const handle = (events: IRStreamEvent[]): string => {
      let text = '';
      for (const ev of events) {
        if (ev.type === 'error') throw ev.error;
        observeEvent(ctx, ev);
        if (ev.type === 'finish') usage = ev.usage;
        else if (ev.type === 'message-start' && ev.usage) usage = ev.usage;
        text += encoder.encode(ev);
      }
      return text;
    };
    try {
      upstream.touch();
      for await (const batch of readSSEBatches(upstreamBody(upstream), upstream.touch)) {
        let text = '';
        try {
          for (const ev of batch) text += handle(decoder.event(ev));
        } catch (err) {
          // What the earlier events of the batch produced still goes out before the error.
          if (text) yield text;
          throw err;
        }
        if (text) yield text;
      }
      const tail = handle(decoder.end()) + encoder.end();
      if (tail) yield tail;
      completed = true;
    } catch (err) {
      failure = cancelled ? undefined : midStreamError(ctx, err, upstream);
      if (failure) yield encoder.error(scrubError(ctx, failure));
    } finally {
      upstream.done();
      await finishEvent(ctx, call, usage, failure, completed);
    }
  })();
  return streamOf(
    ctx,
    call,
    gen,
    () => {
      cancelled = true;
      upstream.abort(new DOMException('Client disconnected', 'AbortError'));
      // The slot frees at once; the stream's cleanup (settling the usage) follows when the upstream stops.
      void ctx.limits?.lease?.release();
    },
    headers,
  );
}

/** What a translated stream tells the observer: the answer's id, model and finish reason, and its first token. */
function observeEvent(ctx: RequestContext, ev: IRStreamEvent): void {
  if (ev.type === 'message-start') ctx.obs.answer({ id: ev.id, model: ev.model });
  else if (ev.type === 'finish') ctx.obs.answer({ finishReasons: [ev.finishReason.raw ?? ev.finishReason.unified] });
  else if (ev.type === 'text-delta' || ev.type === 'reasoning-delta' || ev.type === 'tool-call-start') ctx.obs.firstToken();
}

function upstreamBody(upstream: UpstreamResult): ReadableStream<Uint8Array> {
  const body = upstream.response.body;
  if (!body) throw new GatewayError('bad_gateway', 'The upstream answered a stream request without a body.');
  return body;
}

/** Maps a failure inside a stream; undefined when the client itself went away. */
function midStreamError(ctx: RequestContext, err: unknown, upstream: UpstreamResult): GatewayError | undefined {
  if (ctx.signal.aborted) return undefined;
  if (err instanceof GatewayError) return err;
  if (upstream.signal.aborted) return new GatewayError('upstream_timeout', 'The upstream stream stalled and was cut off.');
  const g = toGatewayError(err);
  return g.code === 'internal' ? new GatewayError('bad_gateway', 'The upstream stream broke off.') : g;
}
