import type { CacheConfig, LimitsConfig } from '../config/schema.js';

/** Who is calling: a platform key record, or an identity the host already authenticated. */
export interface Principal {
  /** Stable id used in hooks, limits and task ownership (never the secret itself). */
  id: string;
  /** Glob patterns of model ids this principal may call; default every model. */
  models?: readonly string[];
  /** Per-principal limits (requests/tokens per minute, concurrency, budget); beyond them 429 with Retry-After. */
  limits?: LimitsConfig;
  /**
   * Provider id -> this principal's own upstream credential, used instead of the provider's
   * `apiKey` (bring your own key). Never shown in responses, logs, hooks or errors.
   */
  providerKeys?: Readonly<Record<string, string>>;
  /** This principal's response cache settings (they win over the model's). */
  cache?: CacheConfig;
  /** Free-form data the host attaches (plan, team, ...). Never logged by the gateway. */
  metadata?: Record<string, unknown>;
}

/**
 * The host's own key check (GatewayOptions.authenticate): a Principal accepts the presented key,
 * null/undefined falls back to the keys in the config.
 */
export type AuthenticateKey = (token: string, request: Request) => Principal | null | undefined | Promise<Principal | null | undefined>;
