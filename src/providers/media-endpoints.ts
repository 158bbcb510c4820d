/**
 * URLs and credential headers for the media APIs (images, videos) of a configured provider. The
 * auth headers (and the provider's extra headers) come from the provider's chat call, so there is
 * one place that knows how each vendor authenticates.
 */
import { GatewayError } from '../errors.js';
import { providerBase } from './http-providers.js';
import { MOCK_BASE_URL } from './mock/index.js';
import type { Provider } from './types.js';

export interface MediaTarget {
  url: string;
  headers: Headers;
}

function authHeaders(provider: Provider): Headers {
  const headers = provider.chatRequest({ upstreamModel: 'media', stream: false, inboundHeaders: new Headers() }).headers;
  headers.delete('content-type');
  return headers;
}

/** True for providers that speak the OpenAI REST family (openai, openai-compatible, mock). */
export function isOpenAIStyle(provider: Provider): boolean {
  return provider.type === 'openai' || provider.type === 'openai-compatible' || provider.type === 'mock';
}

/** `{base}/v1` + path, e.g. `/images/generations`. */
export function openAIStyleTarget(provider: Provider, path: string): MediaTarget {
  if (!isOpenAIStyle(provider)) throw new GatewayError('internal', `Provider '${provider.id}' does not speak the OpenAI media APIs.`);
  const base = provider.type === 'mock' ? MOCK_BASE_URL : providerBase(provider.config);
  return { url: `${base}${path}`, headers: authHeaders(provider) };
}

/** `{base}` + path, e.g. `/v1beta/models/veo-3.0-generate-001:predictLongRunning`. */
export function geminiTarget(provider: Provider, path: string): MediaTarget {
  if (provider.type !== 'gemini') throw new GatewayError('internal', `Provider '${provider.id}' is not a Gemini provider.`);
  return { url: `${providerBase(provider.config)}${path}`, headers: authHeaders(provider) };
}

/** `models/veo-3.0` or `veo-3.0` -> `veo-3.0`, URL-encoded for a path segment. */
export function geminiModelSegment(upstreamModel: string): string {
  return encodeURIComponent(upstreamModel.replace(/^models\//, ''));
}
