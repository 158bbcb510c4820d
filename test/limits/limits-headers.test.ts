/**
 * The x-ratelimit-* headers on streamed answers of every client protocol (chat completions,
 * Anthropic messages, Gemini SSE and JSON-array streams, Responses, Interactions; pass-through and
 * translated), decided before the first
 * byte; and the cost of a request: in the onResponse event always (streams included) and in
 * `x-modelgate-cost-usd` on sync answers, with cached input at its own price.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway, ResponseEvent } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGatedOpenAI, type MockGatedOpenAI } from '../helpers/mock-gated-openai.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from '../helpers/mock-openai-responses.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';
import { jsonRequest } from '../helpers/requests.js';

const KEY = 'mg-headers-key-000001';
const PRICING = { inputPerMTok: 2, outputPerMTok: 8 };

let openai: MockOpenAI;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let responses: MockOpenAIResponses;
let cached: MockGatedOpenAI;
let gateway: Gateway;
const events: ResponseEvent[] = [];

beforeAll(async () => {
  [openai, anthropic, gemini, responses] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini(), startMockOpenAIResponses()]);
  cached = await startMockGatedOpenAI({ apiKeys: ['upstream-cached-0123456789'], usage: { prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 800 } });
  gateway = createShippedGateway(
    {
      providers: [
        { id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
        { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
        { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
        { id: 'responses', type: 'openai', baseURL: responses.baseURL, apiKey: responses.apiKey },
        { id: 'cached', type: 'openai', baseURL: cached.baseURL, apiKey: 'upstream-cached-0123456789' },
      ],
      models: [
        { id: 'gpt', provider: 'openai', upstreamModel: 'gpt-4o', pricing: PRICING },
        { id: 'claude', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5-20250929', pricing: PRICING },
        { id: 'gemini', provider: 'google', upstreamModel: 'gemini-2.5-flash', pricing: PRICING },
        { id: 'gpt-5', provider: 'responses', pricing: PRICING },
        { id: 'cached', provider: 'cached', upstreamModel: 'gpt-4o-mini', pricing: { inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: 0.5 } },
      ],
      keys: [{ id: 'k', key: KEY, limits: { requestsPerMinute: 1000, tokensPerMinute: 10_000_000 } }],
    },
    { hooks: { onResponse: (e) => void events.push(e) } },
  );
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close(), responses?.close(), cached?.close()]);
});

const post = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Request => jsonRequest(path, body, { key: KEY, headers });

const ANTHROPIC = { 'anthropic-version': '2023-06-01' };
const streams: Array<[string, () => Request, string]> = [
  ['chat completions (pass-through)', () => post('/v1/chat/completions', { model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi there' }] }), '[DONE]'],
  ['chat completions (translated to Anthropic)', () => post('/v1/chat/completions', { model: 'claude', stream: true, messages: [{ role: 'user', content: 'hi there' }] }), '[DONE]'],
  ['Anthropic messages (pass-through)', () => post('/v1/messages', { model: 'claude', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi there' }] }, ANTHROPIC), 'message_stop'],
  ['Anthropic messages (translated to OpenAI)', () => post('/v1/messages', { model: 'gpt', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi there' }] }, ANTHROPIC), 'message_stop'],
  ['Gemini (pass-through)', () => post('/v1beta/models/gemini:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: 'hi there' }] }] }), 'finishReason'],
  ['Gemini (translated to OpenAI)', () => post('/v1beta/models/gpt:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: 'hi there' }] }] }), 'finishReason'],
  ['Responses (pass-through)', () => post('/v1/responses', { model: 'gpt-5', stream: true, input: 'hi there' }), 'response.completed'],
  ['Responses (translated to Gemini)', () => post('/v1/responses', { model: 'gemini', stream: true, input: 'hi there' }), 'response.completed'],
  ['Gemini JSON-array stream (translated to Anthropic)', () => post('/v1beta/models/claude:streamGenerateContent', { contents: [{ role: 'user', parts: [{ text: 'hi there' }] }] }), 'finishReason'],
  ['Interactions (pass-through)', () => post('/v1beta/interactions', { model: 'gemini', stream: true, input: 'hi there' }), 'interaction.completed'],
  ['Interactions (translated to Anthropic)', () => post('/v1beta/interactions', { model: 'claude', stream: true, input: 'hi there' }), 'interaction.completed'],
];

describe('x-ratelimit-* headers on streamed answers', () => {
  it.each(streams)('%s', async (_name, request, last) => {
    const res = await gateway.handle(request());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream|application\/json/);
    expect(res.headers.get('x-ratelimit-limit-requests')).toBe('1000');
    expect(Number(res.headers.get('x-ratelimit-remaining-requests'))).toBeLessThan(1000);
    expect(res.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+(\.\d+)?s$/);
    expect(res.headers.get('x-ratelimit-limit-tokens')).toBe('10000000');
    expect(Number(res.headers.get('x-ratelimit-remaining-tokens'))).toBeLessThan(10_000_000);
    expect(res.headers.get('x-ratelimit-reset-tokens')).toMatch(/^(\d+m)?\d+(\.\d+)?s$/);
    // The cost of a stream is only known at its end: in the hook, not in a header.
    expect(res.headers.get('x-modelgate-cost-usd')).toBeNull();
    const trace = res.headers.get('x-trace-id');
    expect(await res.text()).toContain(last);
    await expect.poll(() => events.find((e) => e.traceId === trace)).toBeDefined();
    const ev = events.find((e) => e.traceId === trace) as ResponseEvent;
    expect(ev.streamCompleted).toBe(true);
    const u = ev.usage ?? {};
    expect(u.inputTokens).toBeGreaterThan(0);
    expect(ev.costUsd).toBeCloseTo(((u.inputTokens ?? 0) * PRICING.inputPerMTok + (u.outputTokens ?? 0) * PRICING.outputPerMTok) / 1e6, 12);
  });
});

describe('cost', () => {
  it('prices cached input separately; sync answers carry it in x-modelgate-cost-usd and the hook', async () => {
    const res = await gateway.handle(post('/v1/chat/completions', { model: 'cached', messages: [{ role: 'user', content: 'hi' }] }));
    expect(res.status).toBe(200);
    // 200 uncached x 1 + 800 cached x 0.5 + 100 output x 2, per million.
    expect(res.headers.get('x-modelgate-cost-usd')).toBe('0.0008');
    const trace = res.headers.get('x-trace-id');
    expect(events.find((e) => e.traceId === trace)?.costUsd).toBe(0.0008);
  });

  it('a streamed answer reports its cost in the hook only', async () => {
    const res = await gateway.handle(post('/v1/chat/completions', { model: 'cached', stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    expect(res.headers.get('x-modelgate-cost-usd')).toBeNull();
    const trace = res.headers.get('x-trace-id');
    await res.text();
    await expect.poll(() => events.find((e) => e.traceId === trace)?.costUsd).toBe(0.0008);
  });

  it('sync answers of other protocols carry the header too', async () => {
    const res = await gateway.handle(post('/v1/messages', { model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: 'hi there' }] }, ANTHROPIC));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { usage: { input_tokens: number; output_tokens: number } };
    const expected = (body.usage.input_tokens * 2 + body.usage.output_tokens * 8) / 1e6;
    expect(Number(res.headers.get('x-modelgate-cost-usd'))).toBeCloseTo(expected, 12);
  });
});
