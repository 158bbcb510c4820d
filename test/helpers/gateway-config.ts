/** Gateway configs shared by the foundation tests: an `openai` and an `openai-compatible` provider on one mock upstream. */
import type { GatewayConfigInput } from '../../src/index.js';
import type { MockVendor } from './mock-openai.js';

/** May use every model. */
export const KEY_ALL = 'mg-test-key-all-000001';
/** May use only `gpt-*` models. */
export const KEY_GPT = 'mg-test-key-gpt-000002';

export function openAIConfig(mock: MockVendor, extra: Partial<GatewayConfigInput> = {}): GatewayConfigInput {
  return {
    providers: [
      { id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: mock.apiKey },
      { id: 'local', type: 'openai-compatible', baseURL: mock.baseURL, apiKey: mock.apiKey },
    ],
    models: [
      { id: 'gpt-4o', provider: 'openai' },
      { id: 'gpt-4o-mini', provider: 'openai' },
      { id: 'fast', provider: 'local', upstreamModel: 'llama-3.1-8b' },
    ],
    // One upstream call per request: these suites assert what a single upstream failure does (retries: test/routing/resilience.test.ts).
    retry: { attempts: 1 },
    keys: [
      { id: 'team-all', key: KEY_ALL, models: ['*'] },
      { id: 'team-gpt', key: KEY_GPT, models: ['gpt-*'] },
    ],
    ...extra,
  };
}

/** The media tests' upstreams: `openai` and `google` (strict media mocks) and the built-in `mock` provider. */
export function mediaProviders(openai: MockVendor, gemini: MockVendor): GatewayConfigInput['providers'] {
  return [
    { id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
    { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
    { id: 'mock', type: 'mock' },
  ];
}

/** Reads an SSE response body and returns the `data:` payloads (without parsing). */
export async function readSSEData(res: Response): Promise<string[]> {
  const text = await res.text();
  return text
    .split(/\n\n/)
    .map((block) => block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n'))
    .filter((d) => d !== '');
}
