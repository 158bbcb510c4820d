/**
 * Bring your own key: a principal's `providerKeys` replace a provider's `apiKey` for that
 * principal's calls. The provider is rebuilt with the caller's credential (cheap: closures only),
 * so every path that reaches it — chat in every protocol, the Responses API, images, video
 * submit/poll/download — sends the caller's key and scrubs it from what comes back. A model's
 * deployments get theirs in routing/caller-keys.ts; an upstream refusing the caller's key stays a
 * 401/403 (upstream/failure.ts callerCredentialRefused).
 */
import { createProvider, type ProviderFactoryDeps } from './registry.js';
import type { FetchLike, Provider } from './types.js';

/** What rebuilding a provider with a caller's credential needs of the gateway. */
export function providerDeps(gateway: { fetch: FetchLike; now: () => number; config: { timeouts: { upstreamMs: number } } }): ProviderFactoryDeps {
  return { fetch: gateway.fetch, now: gateway.now, defaultTimeoutMs: gateway.config.timeouts.upstreamMs };
}

/** `provider` with `apiKey` as its credential, in every view (Responses, Interactions); a Responses API view stays one. */
export function withCallerKey(provider: Provider, apiKey: string, deps: ProviderFactoryDeps): Provider {
  const base = createProvider({ ...provider.config, apiKey }, deps);
  for (const p of [base, base.responsesApi, base.interactionsApi]) {
    if (!p) continue;
    p.credential = 'caller';
    p.secrets = [apiKey];
  }
  const responsesView = provider.chatProtocol === 'openai-responses' && base.chatProtocol !== 'openai-responses';
  return responsesView && base.responsesApi ? base.responsesApi : base;
}
