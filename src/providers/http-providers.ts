import type { ProviderConfig } from '../config/schema.js';
import type { ProtocolName } from '../ir/types.js';
import type { FetchLike, Provider, UpstreamCall } from './types.js';

const DEFAULT_BASE: Record<string, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

export const ANTHROPIC_DEFAULT_VERSION = '2023-06-01';

/** The configured (or vendor default) base URL without a trailing slash. */
export function providerBase(cfg: ProviderConfig): string {
  return (cfg.baseURL ?? DEFAULT_BASE[cfg.type] ?? '').replace(/\/+$/, '');
}

function baseHeaders(cfg: ProviderConfig): Headers {
  const h = new Headers({ 'content-type': 'application/json' });
  for (const [k, v] of Object.entries(cfg.headers ?? {})) h.set(k, v);
  return h;
}

/** A vendor reached over HTTP: what differs per vendor is its protocol, path and auth headers. */
function httpProvider(
  cfg: ProviderConfig,
  fetch: FetchLike,
  timeoutMs: number,
  chatProtocol: ProtocolName,
  target: (base: string, headers: Headers, call: UpstreamCall) => string,
): Provider {
  const base = providerBase(cfg);
  return {
    id: cfg.id,
    type: cfg.type,
    config: cfg,
    chatProtocol,
    fetch,
    timeoutMs,
    secrets: cfg.apiKey ? [cfg.apiKey] : [],
    chatRequest(call) {
      const headers = baseHeaders(cfg);
      return { url: target(base, headers, call), headers };
    },
  };
}

/**
 * OpenAI and OpenAI-compatible servers: baseURL includes `/v1`, as in the openai SDK. Chat
 * Completions by default; `responsesApi` is the same server through the Responses API
 * (`/responses`), for models configured with `"api": "responses"`.
 */
export function createOpenAIProvider(cfg: ProviderConfig, fetch: FetchLike, timeoutMs: number): Provider {
  const endpoint = (path: string) => (base: string, headers: Headers): string => {
    if (cfg.apiKey) headers.set('authorization', `Bearer ${cfg.apiKey}`);
    return `${base}${path}`;
  };
  const chat = httpProvider(cfg, fetch, timeoutMs, 'openai-chat', endpoint('/chat/completions'));
  chat.responsesApi = httpProvider(cfg, fetch, timeoutMs, 'openai-responses', endpoint('/responses'));
  return chat;
}

/** Anthropic: baseURL without `/v1`, as in @anthropic-ai/sdk. */
export function createAnthropicProvider(cfg: ProviderConfig, fetch: FetchLike, timeoutMs: number): Provider {
  return httpProvider(cfg, fetch, timeoutMs, 'anthropic-messages', (base, headers, call) => {
    if (cfg.apiKey) headers.set('x-api-key', cfg.apiKey);
    headers.set('anthropic-version', call.inboundHeaders.get('anthropic-version') ?? ANTHROPIC_DEFAULT_VERSION);
    const beta = call.inboundHeaders.get('anthropic-beta');
    if (beta) headers.set('anthropic-beta', beta);
    return `${base}/v1/messages`;
  });
}

/**
 * Gemini: baseURL without the API version, as in @google/genai. generateContent by default;
 * `interactionsApi` is the same server through the Interactions API (`/v1beta/interactions`).
 */
export function createGeminiProvider(cfg: ProviderConfig, fetch: FetchLike, timeoutMs: number): Provider {
  const gemini = httpProvider(cfg, fetch, timeoutMs, 'gemini', (base, headers, call) => {
    if (cfg.apiKey) headers.set('x-goog-api-key', cfg.apiKey);
    const model = encodeURIComponent(call.upstreamModel.replace(/^models\//, ''));
    return call.stream ? `${base}/v1beta/models/${model}:streamGenerateContent?alt=sse` : `${base}/v1beta/models/${model}:generateContent`;
  });
  gemini.interactionsApi = httpProvider(cfg, fetch, timeoutMs, 'gemini-interactions', (base, headers) => {
    if (cfg.apiKey) headers.set('x-goog-api-key', cfg.apiKey);
    return `${base}/v1beta/interactions`;
  });
  return gemini;
}
