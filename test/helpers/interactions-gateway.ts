/**
 * A gateway (node:http, the shipped upstream client: createShippedGateway) in front of every strict mock upstream,
 * for the Interactions API suites driven by the official @google/genai SDK's `interactions` client:
 *
 *   gemini     Gemini mock (/v1beta/interactions)        -> pass-through
 *   gpt        OpenAI Chat Completions mock               -> translated
 *   claude     Anthropic mock                             -> translated
 *   gpt-pro    OpenAI Responses mock ("api": "responses")  -> translated
 *   mock       the built-in mock provider                 -> translated
 *   deep-research-pro-preview-12-2025  a Gemini agent     -> pass-through
 *   openai-agent  an "agent" configured on OpenAI          -> 400
 */
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import type { Gateway, GatewayConfigInput, GatewayOptions } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from './mock-anthropic.js';
import { startMockGemini, type MockGemini } from './mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from './mock-openai.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from './mock-openai-responses.js';
import { createShippedGateway } from './shipped-gateway.js';
import { eventually as poll } from './poll.js';

export const IX_KEY_A = 'mg-interactions-key-a-0001';
export const IX_KEY_B = 'mg-interactions-key-b-0002';
/** May use only `gemini*` and `claude` (not gpt, not agents). */
export const IX_KEY_LIMITED = 'mg-interactions-key-l-0003';

export const AGENT = 'deep-research-pro-preview-12-2025';

export interface InteractionsMocks {
  gemini: MockGemini;
  openai: MockOpenAI;
  anthropic: MockAnthropic;
  responses: MockOpenAIResponses;
}

function interactionsConfig(m: InteractionsMocks): GatewayConfigInput {
  return {
    providers: [
      { id: 'google', type: 'gemini', baseURL: m.gemini.baseURL, apiKey: m.gemini.apiKey },
      { id: 'openai', type: 'openai', baseURL: m.openai.baseURL, apiKey: m.openai.apiKey },
      { id: 'anthropic', type: 'anthropic', baseURL: m.anthropic.baseURL, apiKey: m.anthropic.apiKey },
      { id: 'openai-responses', type: 'openai', baseURL: m.responses.baseURL, apiKey: m.responses.apiKey },
      { id: 'mock', type: 'mock' },
    ],
    models: [
      { id: 'gemini', provider: 'google', upstreamModel: 'gemini-2.5-flash' },
      { id: 'gpt', provider: 'openai', upstreamModel: 'gpt-4o' },
      { id: 'claude', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5' },
      { id: 'gpt-pro', provider: 'openai-responses', upstreamModel: 'gpt-5-pro', api: 'responses' },
      { id: 'mock', provider: 'mock', upstreamModel: 'mock-chat' },
      { id: AGENT, provider: 'google' },
      { id: 'openai-agent', provider: 'openai', upstreamModel: 'gpt-4o' },
    ],
    // One upstream call per request: these suites assert what a single upstream failure does (retries: test/routing/resilience.test.ts).
    retry: { attempts: 1 },
    keys: [
      { id: 'team-a', key: IX_KEY_A, models: ['*'] },
      { id: 'team-b', key: IX_KEY_B, models: ['*'] },
      { id: 'limited', key: IX_KEY_LIMITED, models: ['gemini*', 'claude'] },
    ],
  };
}

export async function startInteractionMocks(): Promise<InteractionsMocks> {
  const [gemini, openai, anthropic, responses] = await Promise.all([startMockGemini(), startMockOpenAI(), startMockAnthropic(), startMockOpenAIResponses()]);
  return { gemini, openai, anthropic, responses };
}

export async function closeInteractionMocks(m: InteractionsMocks): Promise<void> {
  await Promise.all([m.gemini.close(), m.openai.close(), m.anthropic.close(), m.responses.close()]);
}

export interface InteractionsGateway {
  gateway: Gateway;
  server: RunningServer;
  /** An official client with the given key (default key A). */
  client(apiKey?: string): GoogleGenAI;
  close(): Promise<void>;
}

export async function startInteractionsGateway(mocks: InteractionsMocks, options: GatewayOptions = {}): Promise<InteractionsGateway> {
  const gateway = createShippedGateway(interactionsConfig(mocks), options);
  const server = await serve(gateway, { port: 0 });
  return {
    gateway,
    server,
    client: (apiKey = IX_KEY_A) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: server.url } }),
    async close() {
      await server.close();
      await gateway.close();
    },
  };
}

export { collect } from './poll.js';

/** Raw HTTP to the gateway (for what the SDK cannot send or does not show). */
export async function rawCall(base: string, method: string, path: string, body?: unknown, key: string | null = IX_KEY_A): Promise<Response> {
  const headers: Record<string, string> = {};
  if (key !== null) headers['x-goog-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
}

export { PDF, PNG } from './samples.js';

export const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Resolves when `done` holds for a probe's value (polling every 20 ms; no timing assertions, only progress). */
export const eventually = <T>(probe: () => Promise<T>, done: (v: T) => boolean, tries = 300): Promise<T> => poll(probe, done, tries, 20);

/** A suite's gateway over the Interactions mocks, with its genai client. */
export interface InteractionsSuite {
  mocks: InteractionsMocks;
  gw: InteractionsGateway;
  ai: GoogleGenAI;
}

/** Starts the mocks and a gateway before the suite's tests and closes both after them. */
export function useInteractionsGateway(options: GatewayOptions = {}): InteractionsSuite {
  const suite = {} as InteractionsSuite;
  beforeAll(async () => {
    suite.mocks = await startInteractionMocks();
    suite.gw = await startInteractionsGateway(suite.mocks, options);
    suite.ai = suite.gw.client();
  });
  afterAll(async () => {
    await suite.gw?.close();
    if (suite.mocks) await closeInteractionMocks(suite.mocks);
  });
  return suite;
}
