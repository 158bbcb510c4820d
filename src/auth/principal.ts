/** Who is calling: a platform key record, or an identity the host already authenticated. */
export interface Principal {
  /** Stable id used in hooks, limits and task ownership (never the secret itself). */
  id: string;
  /** Glob patterns of model ids this principal may call; default every model. */
  models?: readonly string[];
  /** Per-principal limits; requests beyond them get 429 with Retry-After. */
  limits?: { requestsPerMinute?: number };
  /** Free-form data the host attaches (plan, team, ...). Never logged by the gateway. */
  metadata?: Record<string, unknown>;
}
