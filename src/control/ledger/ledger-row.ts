/**
 * One usage-ledger row per request whose key is known: who called what, where it went, what it
 * used and cost, how long it took and how it ended. Never prompt or answer text. Built from the
 * request's complete ResponseEvent (observability/hooks.ts), so every route and outcome (a 403, a
 * 429, an upstream 4xx, a stream the client left) has its row.
 */
import type { PricingConfig } from '../../config/schema.js';
import type { RequestEvent, UpstreamAttemptRecord } from '../../observability/hooks.js';
import type { ResponseEnd } from '../../observability/response-event.js';
import { quoteInput } from '../../core/quote-input.js';

/** A ledger row as the admin API answers it (`GET /admin/v1/requests`) and the CSV export writes it. */
export interface LedgerRow {
  traceId: string;
  /** The caller's Request-Id header, when it sent one. */
  requestId: string | null;
  /** When the request arrived, epoch ms. */
  time: number;
  keyId: string;
  method: string;
  /** The route template (`/v1/chat/completions`, `/v1/responses/{id}`). */
  route: string;
  /** The client's protocol on a model route (`openai-chat`, `anthropic-messages`, `gemini`, ...). */
  protocol: string | null;
  /** The gateway model that served the request (a fallback's id once the routing moved to it), else the one asked for. */
  model: string | null;
  /** The model id as the client named it. */
  requestedModel: string | null;
  /** The model the vendor reported using. */
  resolvedModel: string | null;
  provider: string | null;
  /** The upstream model name the deployment that answered was called with. */
  deployment: string | null;
  status: number;
  /** The gateway error code (`rate_limited`, `permission_denied`, `bad_gateway`, ...) when the request failed. */
  errorCode: string | null;
  /** Upstream calls made (retries and fallbacks included). */
  attempts: number;
  /** Fallback models the routing moved to. */
  fallbacks: number;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Part of inputTokens read from the vendor's prompt cache. */
  cachedTokens: number | null;
  /** Part of outputTokens spent on reasoning. */
  reasoningTokens: number | null;
  images: number | null;
  videoSeconds: number | null;
  costUsd: number | null;
  /** The pricing (USD per million tokens) costUsd was computed with. */
  price: PricingConfig | null;
  latencyMs: number;
  /** Streamed answers: time to the first token. */
  ttftMs: number | null;
  stream: boolean;
  /** The caller's own upstream credential paid (bring your own key). */
  byok: boolean;
  /** The vendor served part of the input from its prompt cache. */
  cacheHit: boolean;
}

/** Longest text a ledger row keeps of a name a caller or an upstream chose (a model, a path, a request id). */
export const LEDGER_TEXT_MAX = 200;

/**
 * A caller's or an upstream's text as the ledger stores it: NUL (which PostgreSQL's text refuses)
 * replaced, and cut to LEDGER_TEXT_MAX characters with an ellipsis (PostgreSQL refuses an index
 * entry over 8 KB, and a name is indexed: one such row would fail its whole batch, every retry).
 */
export function ledgerText(s: string): string;
export function ledgerText(s: string | null | undefined): string | null;
export function ledgerText(s: string | null | undefined): string | null {
  if (s === null || s === undefined) return null;
  // quoteInput cuts to its max plus the ellipsis, never inside a surrogate pair.
  return quoteInput(wellFormed(s.includes('\u0000') ? s.replaceAll('\u0000', '\uFFFD') : s), LEDGER_TEXT_MAX - 1);
}

type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };

/**
 * `s` with lone surrogates as U+FFFD: a database stores such a string changed (or refuses it), so
 * its ledger name would never be found again and the batch holding it would be retried for ever.
 */
function wellFormed(s: string): string {
  const w = s as WellFormedString;
  return w.isWellFormed() ? s : w.toWellFormed();
}

/**
 * The row of a finished request from its facts and how it ended (a ResponseEvent serves as both);
 * undefined when no key is known (nothing to account it to).
 */
export function ledgerRowOf(event: RequestEvent, end: ResponseEnd, now: number): LedgerRow | undefined {
  const keyId = event.keyId;
  if (keyId === undefined) return undefined;
  const u = end.usage;
  let attempts = 0;
  let fallbacks = 0;
  const tried = event.attempts;
  if (tried !== undefined) {
    // Distinct models after the first (a handful of attempts at most: no Set needed).
    for (let i = 0; i < tried.length; i++) {
      const a = tried[i] as UpstreamAttemptRecord;
      if (!a.skipped) attempts++;
      let seen = false;
      for (let j = 0; j < i && !seen; j++) seen = (tried[j] as UpstreamAttemptRecord).model === a.model;
      if (!seen && i > 0) fallbacks++;
    }
  }
  const cached = u?.cachedInputTokens;
  const status = end.status;
  return {
    traceId: event.traceId,
    requestId: ledgerText(event.requestId),
    time: Math.round(now - end.latencyMs),
    keyId: wellFormed(keyId),
    method: ledgerText(event.method),
    route: ledgerText(event.route ?? event.path),
    protocol: end.protocol ?? null,
    model: ledgerText(event.model ?? event.requestedModel),
    requestedModel: ledgerText(event.requestedModel),
    resolvedModel: ledgerText(end.resolvedModel),
    provider: event.provider ?? null,
    deployment: ledgerText(event.upstreamModel),
    status,
    errorCode: end.error?.code ?? (status >= 400 ? `http_${status}` : null),
    attempts,
    fallbacks,
    inputTokens: u?.inputTokens ?? null,
    outputTokens: u?.outputTokens ?? null,
    cachedTokens: cached ?? null,
    reasoningTokens: u?.reasoningTokens ?? null,
    images: end.media?.images ?? null,
    videoSeconds: end.media?.videoSeconds ?? null,
    costUsd: end.costUsd ?? null,
    price: end.pricing ?? null,
    latencyMs: Math.round(end.latencyMs),
    ttftMs: end.ttftMs === undefined ? null : Math.round(end.ttftMs),
    stream: event.stream === true,
    byok: event.providerCredential === 'caller',
    // Answered from the response cache (a prompt cache's reading is cachedTokens).
    cacheHit: end.cacheHit === true,
  };
}

/** The columns of the wire shape, in order (the CSV header). */
export const LEDGER_COLUMNS = [
  'traceId',
  'requestId',
  'time',
  'keyId',
  'method',
  'route',
  'protocol',
  'model',
  'requestedModel',
  'resolvedModel',
  'provider',
  'deployment',
  'status',
  'errorCode',
  'attempts',
  'fallbacks',
  'inputTokens',
  'outputTokens',
  'cachedTokens',
  'reasoningTokens',
  'images',
  'videoSeconds',
  'costUsd',
  'price',
  'latencyMs',
  'ttftMs',
  'stream',
  'byok',
  'cacheHit',
] as const satisfies ReadonlyArray<keyof LedgerRow>;
