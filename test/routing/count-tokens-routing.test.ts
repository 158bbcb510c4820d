/**
 * The three token counts (Anthropic count_tokens, Gemini countTokens, Responses input_tokens) go
 * through the attempt loop like a chat call: a 5xx or a 429 of the counting endpoint is retried,
 * and when the model's deployments are used up its fallback (another upstream of the same
 * protocol) counts, with its own upstream model in the body. Through the shipped node server and
 * the official SDKs; the strict mocks record the counting calls.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import type { Gateway } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from '../helpers/mock-openai-responses.js';
import type { MockVendorServer } from '../helpers/mock-vendor-base.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';

const KEY = 'mg-count-tokens-test-0001';

let anthropicA: MockAnthropic;
let anthropicB: MockAnthropic;
let geminiA: MockGemini;
let geminiB: MockGemini;
let responsesA: MockOpenAIResponses;
let responsesB: MockOpenAIResponses;
let gateway: Gateway;
let server: RunningServer;

beforeAll(async () => {
  [anthropicA, anthropicB, geminiA, geminiB, responsesA, responsesB] = await Promise.all([
    startMockAnthropic(),
    startMockAnthropic(),
    startMockGemini(),
    startMockGemini(),
    startMockOpenAIResponses(),
    startMockOpenAIResponses(),
  ]);
  gateway = createShippedGateway(
    {
      providers: [
        { id: 'anthropic-a', type: 'anthropic', baseURL: anthropicA.baseURL, apiKey: anthropicA.apiKey },
        { id: 'anthropic-b', type: 'anthropic', baseURL: anthropicB.baseURL, apiKey: anthropicB.apiKey },
        { id: 'google-a', type: 'gemini', baseURL: geminiA.baseURL, apiKey: geminiA.apiKey },
        { id: 'google-b', type: 'gemini', baseURL: geminiB.baseURL, apiKey: geminiB.apiKey },
        { id: 'openai-a', type: 'openai', baseURL: responsesA.baseURL, apiKey: responsesA.apiKey },
        { id: 'openai-b', type: 'openai', baseURL: responsesB.baseURL, apiKey: responsesB.apiKey },
      ],
      models: [
        { id: 'claude', provider: 'anthropic-a', upstreamModel: 'claude-sonnet-4-5', fallbacks: ['claude-backup'] },
        { id: 'claude-backup', provider: 'anthropic-b', upstreamModel: 'claude-haiku-4-5' },
        { id: 'gemini', provider: 'google-a', upstreamModel: 'gemini-2.5-flash', fallbacks: ['gemini-backup'] },
        { id: 'gemini-backup', provider: 'google-b', upstreamModel: 'gemini-2.5-pro' },
        { id: 'gpt', provider: 'openai-a', upstreamModel: 'gpt-5', api: 'responses', fallbacks: ['gpt-backup'] },
        { id: 'gpt-backup', provider: 'openai-b', upstreamModel: 'gpt-4.1', api: 'responses' },
      ],
      retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 5 },
      // No deployment cools down within these few failures: each test starts from healthy upstreams.
      cooldown: { failures: 100, cooldownMs: 1000 },
      keys: [{ id: 'caller', key: KEY }],
    },
    { env: {} },
  );
  server = await serve(gateway, { port: 0 });
});

afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await Promise.all([anthropicA, anthropicB, geminiA, geminiB, responsesA, responsesB].map((m) => m?.close()));
});

/** The counting calls a mock received since `from`. */
function countCalls(mock: MockVendorServer, from: number, path: RegExp) {
  return mock.requests.slice(from).filter((r) => path.test(r.path));
}

const ANTHROPIC_COUNT = /\/v1\/messages\/count_tokens$/;
const GEMINI_COUNT = /:countTokens$/;
const RESPONSES_COUNT = /\/responses\/input_tokens$/;

interface Protocol {
  name: string;
  primary: () => MockVendorServer;
  backup: () => MockVendorServer;
  path: RegExp;
  /** Counts through the official SDK; resolves to the count. */
  count(): Promise<number>;
  /** The upstream model a recorded counting call names. */
  modelOf(rawBody: string, path: string): string;
  /** The vendor's error body for a scripted failure. */
  error(status: number): unknown;
}

const anthropicClient = () => new Anthropic({ baseURL: server.url, apiKey: KEY, maxRetries: 0 });
const geminiClient = () => new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: server.url } });
const openaiClient = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });

const PROTOCOLS: Protocol[] = [
  {
    name: 'Anthropic count_tokens',
    primary: () => anthropicA,
    backup: () => anthropicB,
    path: ANTHROPIC_COUNT,
    count: async () => (await anthropicClient().messages.countTokens({ model: 'claude', messages: [{ role: 'user', content: 'count these words please' }] })).input_tokens,
    modelOf: (raw) => (JSON.parse(raw) as { model: string }).model,
    error: (status) => ({ type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message: `scripted ${status}` } }),
  },
  {
    name: 'Gemini countTokens',
    primary: () => geminiA,
    backup: () => geminiB,
    path: GEMINI_COUNT,
    count: async () => (await geminiClient().models.countTokens({ model: 'gemini', contents: 'count these words please' })).totalTokens ?? -1,
    modelOf: (_raw, path) => /models\/([^:]+):countTokens$/.exec(path)?.[1] ?? '',
    error: (status) => ({ error: { code: status, message: `scripted ${status}`, status: status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL' } }),
  },
  {
    name: 'Responses input_tokens',
    primary: () => responsesA,
    backup: () => responsesB,
    path: RESPONSES_COUNT,
    count: async () => (await openaiClient().responses.inputTokens.count({ model: 'gpt', input: 'count these words please' })).input_tokens,
    modelOf: (raw) => (JSON.parse(raw) as { model: string }).model,
    error: (status) => ({ error: { message: `scripted ${status}`, type: status === 429 ? 'rate_limit_error' : 'server_error', param: null, code: null } }),
  },
];

const UPSTREAM_MODEL: Record<string, [string, string]> = {
  'Anthropic count_tokens': ['claude-sonnet-4-5', 'claude-haiku-4-5'],
  'Gemini countTokens': ['gemini-2.5-flash', 'gemini-2.5-pro'],
  'Responses input_tokens': ['gpt-5', 'gpt-4.1'],
};

describe.each(PROTOCOLS)('$name', (p) => {
  const [primaryModel, backupModel] = UPSTREAM_MODEL[p.name] as [string, string];

  it('a 5xx of the counting endpoint is retried on the same upstream', async () => {
    const from = [p.primary().requests.length, p.backup().requests.length];
    p.primary().failNext(500, p.error(500));
    const n = await p.count();
    expect(n).toBeGreaterThan(0);
    const calls = countCalls(p.primary(), from[0] as number, p.path);
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => p.modelOf(c.rawBody, c.path))).toEqual([primaryModel, primaryModel]);
    expect(countCalls(p.backup(), from[1] as number, p.path)).toHaveLength(0);
  });

  it('a 429 of the counting endpoint is retried after its retry-after', async () => {
    const from = p.primary().requests.length;
    p.primary().failNext(429, p.error(429), { 'retry-after': '0' });
    expect(await p.count()).toBeGreaterThan(0);
    expect(countCalls(p.primary(), from, p.path)).toHaveLength(2);
  });

  it("when the model's attempts are used up, its fallback counts with its own upstream model", async () => {
    const from = [p.primary().requests.length, p.backup().requests.length];
    p.primary().failNext(503, p.error(503));
    p.primary().failNext(503, p.error(503));
    const n = await p.count();
    expect(n).toBeGreaterThan(0);
    expect(countCalls(p.primary(), from[0] as number, p.path)).toHaveLength(2);
    const backup = countCalls(p.backup(), from[1] as number, p.path);
    expect(backup).toHaveLength(1);
    expect(p.modelOf(backup[0]?.rawBody ?? '', backup[0]?.path ?? '')).toBe(backupModel);
  });

  it('a 400 of the counting endpoint is not retried and reaches the caller as a 400', async () => {
    const from = p.primary().requests.length;
    p.primary().failNext(400, p.error(400));
    const err = await p.count().catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(400);
    expect(countCalls(p.primary(), from, p.path)).toHaveLength(1);
  });
});

describe('routing headers of a count', () => {
  it('x-modelgate-attempts counts the calls, x-modelgate-model the model that answered', async () => {
    anthropicA.failNext(500, { type: 'error', error: { type: 'api_error', message: 'scripted' } });
    anthropicA.failNext(500, { type: 'error', error: { type: 'api_error', message: 'scripted' } });
    const res = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    expect(res.headers.get('x-modelgate-attempts')).toBe('3');
    expect(res.headers.get('x-modelgate-provider')).toBe('anthropic-b');
  });
});
