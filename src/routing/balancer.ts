/**
 * Weighted choice among a model's deployments: a deployment gets traffic in proportion to its
 * `weight`. Deployments whose circuit is open are left out; an attempt after a failure prefers a
 * deployment this request has not tried yet.
 */
import type { DeploymentHealth } from './deployment-health.js';
import type { ResolvedDeployment } from './model-registry.js';

/** One of `items` with probability proportional to its weight; `random` returns [0, 1). */
export function weightedPick<T extends { weight: number }>(items: readonly T[], random: () => number): T | undefined {
  const total = items.reduce((sum, d) => sum + d.weight, 0);
  if (items.length === 0 || !(total > 0)) return items[0];
  let r = random() * total;
  for (const item of items) {
    r -= item.weight;
    if (r < 0) return item;
  }
  return items[items.length - 1];
}

/**
 * The deployment for the next attempt, or undefined when every one is cooling down. Untried
 * deployments first (by weight), then the ones already tried in this request.
 */
export function pickDeployment(deployments: readonly ResolvedDeployment[], tried: ReadonlySet<string>, health: DeploymentHealth, random: () => number): ResolvedDeployment | undefined {
  const usable = deployments.filter((d) => health.state(health.keyOf(d)) !== 'open');
  const fresh = usable.filter((d) => !tried.has(health.keyOf(d)));
  return weightedPick(fresh.length ? fresh : usable, random);
}
