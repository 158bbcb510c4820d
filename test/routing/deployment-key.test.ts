/** deploymentKey: cached per deployment object, yet always the key of what the object holds now. */
import { describe, expect, it } from 'vitest';
import { deploymentKeys } from '../../src/routing/deployment-health.js';
import type { ResolvedDeployment } from '../../src/routing/model-registry.js';

const provider = (id: string) => ({ id }) as ResolvedDeployment['provider'];

const deploymentKey = deploymentKeys();

describe('deploymentKey', () => {
  it('is the provider id and the upstream model, the same string on every call, following changes to the object', () => {
    const d = { provider: provider('a'), upstreamModel: 'gpt-x', weight: 1 };
    expect(deploymentKey(d)).toBe('a\u0000gpt-x');
    expect(deploymentKey(d)).toBe(deploymentKey({ ...d }));
    d.upstreamModel = 'gpt-y';
    expect(deploymentKey(d)).toBe('a\u0000gpt-y');
    d.provider = provider('b');
    expect(deploymentKey(d)).toBe('b\u0000gpt-y');
    // Distinct objects naming the same provider and model share a key; others do not.
    expect(new Set([deploymentKey({ provider: provider('a'), upstreamModel: 'm' }), deploymentKey({ provider: provider('a'), upstreamModel: 'm' }), deploymentKey({ provider: provider('a'), upstreamModel: 'n' })]).size).toBe(2);
  });
});
