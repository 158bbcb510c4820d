/**
 * What every vendor reached over HTTP shares: the base URL (configured or the vendor's default),
 * the configured extra headers, and the credential header; a vendor folder says which protocol,
 * paths, credential header and capabilities it has.
 */
import type { ProviderConfig } from '../config/schema.js';
import type { ProtocolName } from '../ir/types.js';
import type { FetchLike, Provider, ProviderCapabilities, StoredObjectAction, UpstreamCall } from './types.js';

export interface HttpVendor extends ProviderCapabilities {
  /** Base URL when the config has none (as the vendor's own SDK uses it). */
  defaultBaseURL: string | undefined;
  /** Sets the vendor's credential header. */
  authorize(headers: Headers, apiKey: string): void;
}

/** One API of a vendor: its protocol and the URL (and per-call headers) of a chat call, of its token count and of actions on its stored objects if it has them. */
export interface HttpApi {
  chatProtocol: ProtocolName;
  chatUrl(base: string, headers: Headers, call: UpstreamCall): string;
  countTokensUrl?(base: string, headers: Headers, call: UpstreamCall): string;
  /** URL and method of an action on an object the vendor keeps for this API (Provider.storedObjectRequest). */
  storedObject?(base: string, id: string, action: StoredObjectAction): { url: string; method: 'POST' | 'DELETE' };
}

/** A configured provider speaking `api`, with the vendor's credential and capabilities. */
export function httpProvider(cfg: ProviderConfig, fetch: FetchLike, timeoutMs: number, vendor: HttpVendor, api: HttpApi): Provider {
  const base = (cfg.baseURL ?? vendor.defaultBaseURL ?? '').replace(/\/+$/, '');
  let template: Headers | undefined;
  const build = (): Headers => {
    const h = new Headers({ 'content-type': 'application/json' });
    for (const [k, v] of Object.entries(cfg.headers ?? {})) h.set(k, v);
    if (cfg.apiKey) vendor.authorize(h, cfg.apiKey);
    return h;
  };
  // Built on first use (a bring-your-own-key provider lives for one request), then a copy per call
  // (callers add to it): cheaper than building and authorizing anew.
  const headers = (): Headers => new Headers((template ??= build()));
  const { defaultBaseURL: _base, authorize: _authorize, ...capabilities } = vendor;
  const countTokensUrl = api.countTokensUrl;
  const provider: Provider = {
    ...capabilities,
    id: cfg.id,
    type: cfg.type,
    config: cfg,
    chatProtocol: api.chatProtocol,
    fetch,
    timeoutMs,
    secrets: cfg.apiKey ? [cfg.apiKey] : [],
    chatRequest(call) {
      const h = headers();
      return { url: api.chatUrl(base, h, call), headers: h };
    },
    apiTarget(path) {
      // Media requests set their own content type (JSON, multipart) or send none (GET).
      const h = headers();
      h.delete('content-type');
      return { url: `${base}${path}`, headers: h };
    },
  };
  if (countTokensUrl) {
    provider.countTokensRequest = (call) => {
      const h = headers();
      return { url: countTokensUrl(base, h, call), headers: h };
    };
  }
  const storedObject = api.storedObject;
  if (storedObject) provider.storedObjectRequest = (id, action) => ({ ...storedObject(base, id, action), headers: headers() });
  return provider;
}
