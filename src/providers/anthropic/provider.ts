/** Anthropic: baseURL without `/v1`, as in @anthropic-ai/sdk. Chat (Messages API) and its token count only. */
import type { ProviderConfig } from '../../config/schema.js';
import { httpProvider, type HttpVendor } from '../http-provider.js';
import type { FetchLike, Provider, UpstreamCall } from '../types.js';

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
      versionHeaders(headers, call);
      return `${base}/v1/messages`;
    },
    countTokensUrl(base, headers, call) {
      versionHeaders(headers, call);
      return `${base}/v1/messages/count_tokens`;
    },
  });
}

/** The caller's `anthropic-version` (or the default) and `anthropic-beta`, as Anthropic wants them on every call. */
function versionHeaders(headers: Headers, call: UpstreamCall): void {
  headers.set('anthropic-version', call.inboundHeaders.get('anthropic-version') ?? ANTHROPIC_DEFAULT_VERSION);
  const beta = call.inboundHeaders.get('anthropic-beta');
  if (beta) headers.set('anthropic-beta', beta);
}
