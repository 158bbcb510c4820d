import type { ProviderConfig } from '../config/schema.js';
import type { FetchLike, Provider, UpstreamCall } from './types.js';

const DEFAULT_BASE: Record<string, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

export const ANTHROPIC_DEFAULT_VERSION = '2023-06-01';

function baseOf(cfg: ProviderConfig): string {
  return (cfg.baseURL ?? DEFAULT_BASE[cfg.type] ?? '').replace(/\/+$/, '');
}

function baseHeaders(cfg: ProviderConfig): Headers {
  const h = new Headers({ 'content-type': 'application/json' });
  for (const [k, v] of Object.entries(cfg.headers ?? {})) h.set(k, v);
  return h;
}

/** OpenAI and OpenAI-compatible servers: baseURL includes `/v1`, as in the openai SDK. */
export function createOpenAIProvider(cfg: ProviderConfig, fetch: FetchLike, timeoutMs: number): Provider {
  const base = baseOf(cfg);
  return {
    id: cfg.id,
    type: cfg.type,
    config: cfg,
    chatProtocol: 'openai-chat',
    fetch,
    timeoutMs,
    secrets: cfg.apiKey ? [cfg.apiKey] : [],
    chatRequest() {
      const headers = baseHeaders(cfg);
      if (cfg.apiKey) headers.set('authorization', `Bearer ${cfg.apiKey}`);
      return { url: `${base}/chat/completions`, headers };
    },
  };
}

/** Anthropic: baseURL without `/v1`, as in @anthropic-ai/sdk. */
export function createAnthropicProvider(cfg: ProviderConfig, fetch: FetchLike, timeoutMs: number): Provider {
  const base = baseOf(cfg);
  return {
    id: cfg.id,
    type: cfg.type,
    config: cfg,
    chatProtocol: 'anthropic-messages',
    fetch,
    timeoutMs,
    secrets: cfg.apiKey ? [cfg.apiKey] : [],
    chatRequest(call: UpstreamCall) {
      const headers = baseHeaders(cfg);
      if (cfg.apiKey) headers.set('x-api-key', cfg.apiKey);
      headers.set('anthropic-version', call.inboundHeaders.get('anthropic-version') ?? ANTHROPIC_DEFAULT_VERSION);
      const beta = call.inboundHeaders.get('anthropic-beta');
      if (beta) headers.set('anthropic-beta', beta);
      return { url: `${base}/v1/messages`, headers };
    },
  };
}

/** Gemini: baseURL without the API version, as in @google/genai. */
export function createGeminiProvider(cfg: ProviderConfig, fetch: FetchLike, timeoutMs: number): Provider {
  const base = baseOf(cfg);
  return {
    id: cfg.id,
    type: cfg.type,
    config: cfg,
    chatProtocol: 'gemini',
    fetch,
    timeoutMs,
    secrets: cfg.apiKey ? [cfg.apiKey] : [],
    chatRequest(call: UpstreamCall) {
      const headers = baseHeaders(cfg);
      if (cfg.apiKey) headers.set('x-goog-api-key', cfg.apiKey);
      const model = encodeURIComponent(call.upstreamModel.replace(/^models\//, ''));
      const url = call.stream
        ? `${base}/v1beta/models/${model}:streamGenerateContent?alt=sse`
        : `${base}/v1beta/models/${model}:generateContent`;
      return { url, headers };
    },
  };
}

export function geminiBase(cfg: ProviderConfig): string {
  return baseOf(cfg);
}
export function providerBase(cfg: ProviderConfig): string {
  return baseOf(cfg);
}
