/** Anthropic: baseURL without `/v1`, as in @anthropic-ai/sdk. Chat (Messages API) only. */
import type { ProviderConfig } from '../../config/schema.js';
import { httpProvider, type HttpVendor } from '../http-provider.js';
import type { FetchLike, Provider } from '../types.js';

const ANTHROPIC_DEFAULT_VERSION = '2023-06-01';

const anthropic: HttpVendor = {
  defaultBaseURL: 'https://api.anthropic.com',
  authorize: (headers, apiKey) => headers.set('x-api-key', apiKey),
  chatInputModalities: ['text', 'image', 'pdf'],
  defaultTokenLimits: { input: 128_000, output: 16_384 },
  chatDialect: {},
};

export function createAnthropicProvider(cfg: ProviderConfig, fetch: FetchLike, timeoutMs: number): Provider {
  return httpProvider(cfg, fetch, timeoutMs, anthropic, {
    chatProtocol: 'anthropic-messages',
    chatUrl(base, headers, call) {
      headers.set('anthropic-version', call.inboundHeaders.get('anthropic-version') ?? ANTHROPIC_DEFAULT_VERSION);
      const beta = call.inboundHeaders.get('anthropic-beta');
      if (beta) headers.set('anthropic-beta', beta);
      return `${base}/v1/messages`;
    },
  });
}
