/** Bring your own key for a routed model: each deployment whose provider the caller has a key for is rebuilt with it. */
import { withCallerKey } from '../providers/caller-credential.js';
import type { ProviderFactoryDeps } from '../providers/registry.js';
import type { ResolvedDeployment, ResolvedModel } from './model-registry.js';

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
