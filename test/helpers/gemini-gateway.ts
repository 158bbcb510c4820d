/**
 * A gateway on node:http in front of the strict mock Gemini, OpenAI and Anthropic upstreams, plus an
 * official @google/genai client factory pointed at it. Used by the Gemini end-to-end suites.
 */
import { GoogleGenAI } from '@google/genai';
import { serve, type RunningServer } from '../../node/index.js';
import type { Gateway, GatewayConfigInput } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from './mock-anthropic.js';
import { startMockGemini, type MockGemini } from './mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from './mock-openai.js';
import { createShippedGateway } from './shipped-gateway.js';

/** May use every model. */
export const GEMINI_KEY_ALL = 'mg-gemini-key-all-000001';
/** May use only `gemini-*` models. */
export const GEMINI_KEY_LIMITED = 'mg-gemini-key-lim-000002';

export interface GeminiTestbed {
  gemini: MockGemini;
  openai: MockOpenAI;
  anthropic: MockAnthropic;
  gateway: Gateway;
  server: RunningServer;
  /** An official client with the given key (default: the all-models key), no retries. */
  client(apiKey?: string): GoogleGenAI;
  close(): Promise<void>;
}

function geminiTestConfig(gemini: MockGemini, openai: MockOpenAI, anthropic: MockAnthropic): GatewayConfigInput {
  return {
    providers: [
      { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
      { id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
      { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
    ],
    models: [
      { id: 'gemini-2.5-flash', provider: 'google' },
      { id: 'gemini-3-pro-preview', provider: 'google' },
      { id: 'flash-alias', provider: 'google', upstreamModel: 'gemini-2.0-flash', options: { displayName: 'Flash alias' } },
      { id: 'gpt-4o', provider: 'openai' },
      { id: 'claude-sonnet', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5' },
    ],
    // One upstream call per request: these suites assert what a single upstream failure does (retries: test/routing/resilience.test.ts).
    retry: { attempts: 1 },
    keys: [
      { id: 'all', key: GEMINI_KEY_ALL, models: ['*'] },
      { id: 'limited', key: GEMINI_KEY_LIMITED, models: ['gemini-*'] },
    ],
  };
}

export async function startGeminiTestbed(): Promise<GeminiTestbed> {
  const gemini = await startMockGemini();
  const openai = await startMockOpenAI();
  const anthropic = await startMockAnthropic();
  const gateway = createShippedGateway(geminiTestConfig(gemini, openai, anthropic));
  const server = await serve(gateway, { port: 0 });
  return {
    gemini,
    openai,
    anthropic,
    gateway,
    server,
    client: (apiKey = GEMINI_KEY_ALL) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } }),
    async close() {
      await server.close();
      await gateway.close();
      await gemini.close();
      await openai.close();
      await anthropic.close();
    },
  };
}
