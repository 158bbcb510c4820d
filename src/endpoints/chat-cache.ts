/**
 * The response cache for chat calls (chat completions, Messages, generateContent, Responses with
 * `store: false`): which calls may use it, the answer of a hit in the caller's protocol (streamed
 * when asked, replaying the stored answer's events), and keeping a complete answer after a miss.
 * A hit calls no upstream: the limits count the request but no tokens, and it costs the configured
 * fraction of the original price (0 by default).
 */
import { cachePlan, CACHE_HEADER, type CachePlan } from '../cache/cache-policy.js';
import { writeCached } from '../cache/cache-io.js';
import { cacheableResponse, responseEvents } from '../cache/chat-replay.js';
import { Reply } from '../reply/reply.js';
import { ReplyHeaders } from '../reply/reply-headers.js';
import { SSE_HEADERS } from '../wire/sse.js';
import type { IRChatResponse } from '../ir/types.js';
import { admitModelCall, requestLimits } from '../limits/admission.js';
import { settleRequest } from '../limits/request-lease.js';
import type { ResponseMeta } from '../protocols/types.js';
import type { EndpointContext } from './services.js';
import { scrubContent } from '../core/redact.js';
import type { ChatCall } from './chat-call.js';
import { requestSecrets, upstreamJsonResponse } from './common.js';

const positive = (v: unknown): boolean => typeof v === 'number' && v > 1;

/** The cache plan of a chat call; undefined when it does not use the cache (not configured, not cacheable). */
export function chatCachePlan(ctx: EndpointContext, call: ChatCall): CachePlan | undefined {
  const body = call.parsed;
  const protocol = call.client.protocol;
  if (protocol === 'gemini-interactions') return undefined;
  // A stored response or one continuing stored state is not an exact repeat of a request.
  if (protocol === 'openai-responses' && (body.store !== false || body.background === true || body.previous_response_id != null || body.conversation != null)) return undefined;
  // A hit is encoded in the caller's protocol: a Responses turn whose encoder options could not be worked out is not cached.
  if (protocol === 'openai-responses' && !call.clientOptions?.responses) return undefined;
  const gen = (body.generationConfig ?? body.generation_config) as Record<string, unknown> | undefined;
  if (positive(body.n) || positive(gen?.candidateCount) || positive(gen?.candidate_count)) return undefined;
  return cachePlan(ctx.principal, call.model, ctx.request.headers, `chat:${protocol}`, body);
}

/** A hit: the stored answer in the caller's protocol, its usage and (fractional) cost reported, no upstream call. */
export async function answerChatHit(ctx: EndpointContext, call: ChatCall, res: IRChatResponse, costUsd: number, meta: ResponseMeta): Promise<Reply> {
  if (ctx.principal) await admitModelCall(ctx.services.admission, ctx, ctx.principal, call.model, () => ({ input: 0, output: 0 }));
  await settleRequest(requestLimits(ctx), call.model.pricing, { totalTokens: 0 }, true, costUsd);
  ctx.obs.answer({ id: res.id, model: res.model, finishReasons: [res.finishReason.raw ?? res.finishReason.unified] });
  ctx.obs.report({ usage: res.usage, costUsd, cacheHit: true });
  if (!call.stream) return upstreamJsonResponse(ctx, call.client.encodeResponse(res, meta, []), 200, { [CACHE_HEADER]: 'hit' });
  const encoder = call.client.createStreamEncoder(meta);
  let text = '';
  for (const ev of responseEvents(res)) text += encoder.encode(ev);
  text += encoder.end();
  const headers = new ReplyHeaders(call.streamContentType ? { 'content-type': call.streamContentType, 'cache-control': 'no-cache' } : SSE_HEADERS);
  headers.set(CACHE_HEADER, 'hit');
  return new Reply(200, headers, scrubContent(text, requestSecrets(ctx)));
}

/** Keeps a complete, successful answer of a miss (never an error, a cut-off stream or a refusal). */
export async function keepChatAnswer(ctx: EndpointContext, plan: CachePlan | undefined, res: IRChatResponse | undefined, costUsd: number | undefined): Promise<void> {
  if (!plan || !res || !cacheableResponse(res)) return;
  await writeCached(ctx.services, plan, { kind: 'chat', response: res }, costUsd);
}
