import type { ProviderConfig } from '../config/schema.js';
import { createAnthropicProvider } from './anthropic/provider.js';
import { createGeminiProvider } from './gemini/provider.js';
import { createOpenAIProvider } from './openai/provider.js';
import { createMockProvider, type MockRoute } from './mock/index.js';
import type { FetchLike, Provider } from './types.js';

export interface ProviderFactoryDeps {
  fetch: FetchLike;
  now: () => number;
  defaultTimeoutMs: number;
  mockRoutes?: MockRoute[];
}

/** Provider types this build supports (the standalone server skips vendors not listed). */
export const SUPPORTED_PROVIDER_TYPES = ['openai', 'openai-compatible', 'anthropic', 'gemini', 'mock'] as const;

export function createProvider(cfg: ProviderConfig, deps: ProviderFactoryDeps): Provider {
  const timeout = cfg.timeoutMs ?? deps.defaultTimeoutMs;
  switch (cfg.type) {
    case 'openai':
    case 'openai-compatible':
      return createOpenAIProvider(cfg, deps.fetch, timeout);
    case 'anthropic':
      return createAnthropicProvider(cfg, deps.fetch, timeout);
    case 'gemini':
      return createGeminiProvider(cfg, deps.fetch, timeout);
    case 'mock':
      return createMockProvider(cfg, deps.now, deps.mockRoutes);
  }
}
