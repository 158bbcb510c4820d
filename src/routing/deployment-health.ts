/**
 * A circuit breaker per deployment (provider + upstream model): `failures` retryable failures in
 * a row open it, and the deployment is skipped for `cooldownMs`; after that one request probes it
 * (others keep skipping it while the probe runs); the probe's success closes the circuit, its
 * failure opens it for another `cooldownMs`. The state lives in this instance's memory: with
 * several instances each keeps its own.
 */
import type { ResolvedDeployment } from './model-registry.js';

export interface CooldownSettings {
  failures: number;
  cooldownMs: number;
}

interface Circuit {
  /** Retryable failures in a row. */
  failures: number;
  /** Skipped until this time (ms since the epoch); 0 when closed. */
  openUntil: number;
  /** A probe is running (half-open). */
  probing: boolean;
}

export type DeploymentState = 'closed' | 'open' | 'probe';

/** The key of a deployment's circuit: its provider id and upstream model. */
export type DeploymentKeyOf = (d: Pick<ResolvedDeployment, 'provider' | 'upstreamModel'>) => string;

/**
 * A deployment's key, remembered per deployment object (a fresh string per call would be built,
 * flattened and hashed again at each lookup), yet always the key of what the object holds now.
 * Each DeploymentHealth has its own: two gateways share nothing.
 */
export function deploymentKeys(): DeploymentKeyOf {
  const keys = new WeakMap<object, { id: string; upstreamModel: string; key: string }>();
  return (d) => {
    const id = d.provider.id;
    const cached = keys.get(d);
    if (cached && cached.id === id && cached.upstreamModel === d.upstreamModel) return cached.key;
    const key = `${id}\u0000${d.upstreamModel}`;
    keys.set(d, { id, upstreamModel: d.upstreamModel, key });
    return key;
  };
}

export class DeploymentHealth {
  private readonly circuits = new Map<string, Circuit>();
  /** The circuit key of a deployment (see deploymentKeys). */
  readonly keyOf: DeploymentKeyOf = deploymentKeys();

  constructor(
    private readonly settings: CooldownSettings,
    private readonly now: () => number,
  ) {}

  /** `closed`: use it; `probe`: cooled down, the next request may probe it; `open`: skip it. */
  state(key: string): DeploymentState {
    const c = this.circuits.get(key);
    if (!c || c.openUntil === 0) return 'closed';
    if (c.probing || this.now() < c.openUntil) return 'open';
    return 'probe';
  }

  /** What the console shows of a deployment: its state, failures in a row and the end of its cooldown (ms, 0 when none). */
  describe(key: string): { state: DeploymentState; failures: number; cooldownUntil: number } {
    const c = this.circuits.get(key);
    return { state: this.state(key), failures: c?.failures ?? 0, cooldownUntil: c?.openUntil ?? 0 };
  }

  /** Marks the start of a probe of a cooled-down deployment (other requests skip it meanwhile). */
  startProbe(key: string): void {
    const c = this.circuits.get(key);
    if (c) c.probing = true;
  }

  success(key: string): void {
    this.circuits.delete(key);
  }

  /** A retryable failure; opens the circuit at the threshold, and again after a failed probe. */
  failure(key: string): void {
    const c = this.circuits.get(key) ?? { failures: 0, openUntil: 0, probing: false };
    c.failures += 1;
    if (c.probing || c.failures >= this.settings.failures) c.openUntil = this.now() + this.settings.cooldownMs;
    c.probing = false;
    this.circuits.set(key, c);
  }

  /** A probe that ended without a verdict (the client left): the next request probes again. */
  release(key: string): void {
    const c = this.circuits.get(key);
    if (c) c.probing = false;
  }
}
