/**
 * Bring your own key: a principal's `providerKeys` replace a provider's `apiKey` for that
 * principal's calls. The provider is rebuilt with the caller's credential (cheap: closures only),
 * so every path that reaches it — chat in every protocol, the Responses API, images, video
 * submit/poll/download — sends the caller's key and scrubs it from what comes back.
 */
import { GatewayError } from '../core/errors.js';
import type { ResolvedDeployment, ResolvedModel } from '../routing/model-registry.js';
import { createProvider, type ProviderFactoryDeps } from './registry.js';
import type { Provider } from './types.js';
import type { GatewayRuntime } from '../gateway/options.js';

/** What rebuilding a provider with a caller's credential needs. */
export function providerDeps(rt: Pick<GatewayRuntime, 'fetch' | 'now' | 'config'>): ProviderFactoryDeps {
  return { fetch: rt.fetch, now: rt.now, defaultTimeoutMs: rt.config.timeouts.upstreamMs };
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

/** The model routed with the caller's own credentials where it has one for a deployment's provider. */
export function withCallerKeys(model: ResolvedModel, providerKeys: Readonly<Record<string, string>>, deps: ProviderFactoryDeps): ResolvedModel {
  let changed = false;
  const deployments = model.deployments.map((d): ResolvedDeployment => {
    const key = Object.hasOwn(providerKeys, d.provider.id) ? providerKeys[d.provider.id] : undefined;
    if (!key) return d;
    changed = true;
    return { ...d, provider: withCallerKey(d.provider, key, deps) };
  });
  const first = deployments[0];
  if (!changed || !first) return model;
  return { ...model, deployments, provider: first.provider, upstreamModel: first.upstreamModel };
}

/**
 * An upstream 401/403 on the caller's own credential stays a 401/403 and says so (the gateway's
 * own credential failing is the gateway's problem, not the caller's). `message` is already scrubbed.
 */
export function callerCredentialRefused(provider: Provider, status: number, message: string): GatewayError | undefined {
  if (provider.credential !== 'caller' || (status !== 401 && status !== 403)) return undefined;
  return new GatewayError(status === 401 ? 'authentication' : 'permission_denied', `The provider '${provider.id}' refused your own credential for it (keys[].providerKeys), with ${status}: ${message}`, {
    status,
    detail: 'provider_key_refused',
  });
}
