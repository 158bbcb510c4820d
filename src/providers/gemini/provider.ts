/**
 * Gemini: baseURL without the API version, as in @google/genai. generateContent by default;
 * `interactionsApi` is the same server through the Interactions API (`/v1beta/interactions`).
 * Images through generateContent with image output, videos through Veo.
 */
import type { ProviderConfig } from '../../config/schema.js';
import { httpProvider, type HttpVendor } from '../http-provider.js';
import type { FetchLike, Provider } from '../types.js';
import { geminiModelSegment, veoAdapter } from './veo.js';

const gemini: HttpVendor = {
  defaultBaseURL: 'https://generativelanguage.googleapis.com',
  authorize: (headers, apiKey) => headers.set('x-goog-api-key', apiKey),
  imageApi: 'gemini-generate-content',
  embeddingsApi: 'gemini-embed-content',
  videoApi: veoAdapter,
  chatInputModalities: ['text', 'image', 'pdf'],
  defaultTokenLimits: { input: 1_048_576, output: 65_536 },
  chatDialect: {},
};

export function createGeminiProvider(cfg: ProviderConfig, fetch: FetchLike, timeoutMs: number): Provider {
  const provider = httpProvider(cfg, fetch, timeoutMs, gemini, {
    chatProtocol: 'gemini',
    chatUrl(base, _headers, call) {
      const model = geminiModelSegment(call.upstreamModel);
      return call.stream ? `${base}/v1beta/models/${model}:streamGenerateContent?alt=sse` : `${base}/v1beta/models/${model}:generateContent`;
    },
    countTokensUrl: (base, _headers, call) => `${base}/v1beta/models/${geminiModelSegment(call.upstreamModel)}:countTokens`,
  });
  provider.interactionsApi = httpProvider(cfg, fetch, timeoutMs, gemini, {
    chatProtocol: 'gemini-interactions',
    chatUrl: (base) => `${base}/v1beta/interactions`,
    storedObject: (base, id, action) =>
      action === 'cancel' ? { url: `${base}/v1beta/interactions/${encodeURIComponent(id)}/cancel`, method: 'POST' } : { url: `${base}/v1beta/interactions/${encodeURIComponent(id)}`, method: 'DELETE' },
  });
  return provider;
}
