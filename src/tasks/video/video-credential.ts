/**
 * Which credential a video task's later upstream calls (polls, downloads, cancel) carry. A task
 * submitted with the caller's own key (bring your own key) remembers only THAT it was, never the
 * key: `ownCredential` is `config-key` (the key's `providerKeys` in the config, found again by the
 * task owner's key id, also by the background poller) or `principal` (an `authenticate()`/host
 * principal, whose keys the gateway only sees while that principal is making a request: the
 * background poller waits, and the task advances when its owner reads it). Such a task is never
 * polled with the gateway's own credential.
 */
import type { Principal } from '../../auth/principal.js';
import { providerDeps, withCallerKey } from '../../providers/caller-credential.js';
import type { GatewayConfig } from '../../config/schema.js';
import type { FetchLike, Provider } from '../../providers/types.js';
import type { VideoTaskData } from './video-task.js';

/** What finding a task's provider and credential needs of the gateway. */
export interface CredentialRuntime {
  config: GatewayConfig;
  providers: ReadonlyMap<string, Provider>;
  fetch: FetchLike;
  now: () => number;
}

export type TaskProvider =
  | { provider: Provider }
  /** Only the owner's next request can supply the credential. */
  | { wait: true }
  | { error: { code: string; message: string } };

/** How a new task's credential is recorded: null for the gateway's own. */
export function ownCredentialOf(rt: CredentialRuntime, principal: Principal, provider: Provider): VideoTaskData['ownCredential'] {
  if (provider.credential !== 'caller') return null;
  const fromConfig = rt.config.keys.find((k) => k.id === principal.id && !k.disabled);
  const key = principal.providerKeys?.[provider.id];
  return fromConfig && key !== undefined && fromConfig.providerKeys?.[provider.id] === key ? 'config-key' : 'principal';
}

export function taskProvider(rt: CredentialRuntime, ownerId: string, data: VideoTaskData, principal?: Principal): TaskProvider {
  const base = rt.providers.get(data.providerId);
  if (!base) return { error: { code: 'provider_unavailable', message: `The provider '${data.providerId}' of this task is no longer configured.` } };
  if (!data.ownCredential) return { provider: base };
  const fromPrincipal = principal?.providerKeys?.[data.providerId];
  const fromConfig = data.ownCredential === 'config-key' ? rt.config.keys.find((k) => k.id === ownerId && !k.disabled)?.providerKeys?.[data.providerId] : undefined;
  const key = fromPrincipal ?? fromConfig;
  if (key) return { provider: withCallerKey(base, key, providerDeps(rt)) };
  if (data.ownCredential === 'principal' && !principal) return { wait: true };
  return {
    error: {
      code: 'credential_unavailable',
      message: `This task was submitted with your own credential for the provider '${data.providerId}' (providerKeys), which is no longer available.`,
    },
  };
}
