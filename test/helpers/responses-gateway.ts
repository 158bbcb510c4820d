/**
 * A gateway (node:http, the shipped undici upstream client) in front of every strict mock upstream,
 * with one model per upstream, for the Responses API suites driven by the official `openai` SDK:
 *
 *   gpt-5, gpt-4.1  OpenAI (mock Responses API)  -> pass-through to /v1/responses
 *   claude          Anthropic mock               -> translated
 *   gemini          Gemini mock                  -> translated
 *   compat          OpenAI-compatible chat mock  -> translated to Chat Completions
 *   mock            the built-in mock provider   -> translated
 */
import OpenAI from 'openai';
import { serve, type RunningServer } from '../../node/index.js';
import { createGateway, type Gateway, type GatewayConfigInput, type GatewayOptions } from '../../src/index.js';
import { createUndiciFetch } from '../../node/upstream-fetch.js';
import { startMockAnthropic, type MockAnthropic } from './mock-anthropic.js';
import { startMockGemini, type MockGemini } from './mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from './mock-openai.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from './mock-openai-responses.js';
import { eventually as poll } from './poll.js';

export const RESP_KEY_A = 'mg-responses-key-a-0001';
export const RESP_KEY_B = 'mg-responses-key-b-0002';
/** May use only `claude*` models. */
export const RESP_KEY_CLAUDE = 'mg-responses-key-c-0003';


export interface ResponsesMocks {
  responses: MockOpenAIResponses;
  anthropic: MockAnthropic;
  gemini: MockGemini;
  chat: MockOpenAI;
}

export interface ResponsesBed {
  mocks: ResponsesMocks;
  gateway: Gateway;
  server: RunningServer;
  /** An official client (default key A), no retries. */
  client(apiKey?: string): OpenAI;
  close(): Promise<void>;
}

export function responsesConfig(m: ResponsesMocks): GatewayConfigInput {
  return {
    providers: [
      { id: 'openai', type: 'openai', baseURL: m.responses.baseURL, apiKey: m.responses.apiKey },
      { id: 'anthropic', type: 'anthropic', baseURL: m.anthropic.baseURL, apiKey: m.anthropic.apiKey },
      { id: 'google', type: 'gemini', baseURL: m.gemini.baseURL, apiKey: m.gemini.apiKey },
      { id: 'compat', type: 'openai-compatible', baseURL: m.chat.baseURL, apiKey: m.chat.apiKey },
      { id: 'mock', type: 'mock' },
    ],
    models: [
      { id: 'gpt-5', provider: 'openai' },
      { id: 'gpt-4.1', provider: 'openai' },
      { id: 'claude', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5-20250929' },
      { id: 'gemini', provider: 'google', upstreamModel: 'gemini-2.5-flash' },
      { id: 'compat', provider: 'compat', upstreamModel: 'gpt-4o' },
      { id: 'mock', provider: 'mock', upstreamModel: 'mock-chat' },
    ],
    // One upstream call per request: these suites assert what a single upstream failure does (retries: test/routing/resilience.test.ts).
    retry: { attempts: 1 },
    keys: [
      { id: 'team-a', key: RESP_KEY_A, models: ['*'] },
      { id: 'team-b', key: RESP_KEY_B, models: ['*'] },
      { id: 'claude-only', key: RESP_KEY_CLAUDE, models: ['claude*'] },
    ],
  };
}

export async function startMocks(): Promise<ResponsesMocks> {
  const [responses, anthropic, gemini, chat] = await Promise.all([startMockOpenAIResponses(), startMockAnthropic(), startMockGemini(), startMockOpenAI()]);
  return { responses, anthropic, gemini, chat };
}

export async function closeMocks(m: ResponsesMocks): Promise<void> {
  await Promise.all([m.responses.close(), m.anthropic.close(), m.gemini.close(), m.chat.close()]);
}

export async function startGateway(mocks: ResponsesMocks, options: GatewayOptions = {}): Promise<{ gateway: Gateway; server: RunningServer; client(apiKey?: string): OpenAI }> {
  const gateway = createGateway(responsesConfig(mocks), { fetch: createUndiciFetch(), ...options });
  const server = await serve(gateway, { port: 0 });
  return { gateway, server, client: (apiKey = RESP_KEY_A) => new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0 }) };
}

export async function startResponsesBed(options: GatewayOptions = {}): Promise<ResponsesBed> {
  const mocks = await startMocks();
  const { gateway, server, client } = await startGateway(mocks, options);
  return {
    mocks,
    gateway,
    server,
    client,
    async close() {
      await server.close();
      await gateway.close();
      await closeMocks(mocks);
    },
  };
}

/** Two function tools: `get_weather(city: string)` and `get_time(utc: boolean)`. */
export const WEATHER_TOOLS: OpenAI.Responses.FunctionTool[] = [
  { type: 'function', name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }, strict: true },
  { type: 'function', name: 'get_time', parameters: { type: 'object', properties: { utc: { type: 'boolean' } }, required: ['utc'], additionalProperties: false }, strict: true },
];

export { PDF, PNG } from './samples.js';

/** Resolves when `done` holds for a probe's value (polling every 25 ms; no timing assertions, only progress). */
export const eventually = <T>(probe: () => Promise<T>, done: (v: T) => boolean, tries = 200): Promise<T> => poll(probe, done, tries, 25);
