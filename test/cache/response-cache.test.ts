/**
 * The exact-match response cache (issue 25), end to end through the node adapter with the official
 * SDKs: a repeated request is answered from the cache in the caller's protocol (streamed when asked,
 * whichever way the answer was first made), marked `x-modelgate-cache: hit|miss`, reported to the
 * hooks as a hit that costs nothing (or the configured fraction), scoped to the platform key unless
 * `global`, steered by Cache-Control, and never filled with an error, a cut-off stream or a BYOK
 * answer shared across keys.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import type { Gateway, ResponseEvent } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';

const KEY_A = 'mg-cache-key-a-000001';
const KEY_B = 'mg-cache-key-b-000002';
const KEY_BYOK = 'mg-cache-key-byok-0003';
const KEY_OWN = 'mg-cache-key-own-00004';

let openaiMock: MockOpenAI;
let anthropicMock: MockAnthropic;
let gemini: MockGemini;
let gateway: Gateway;
let server: RunningServer;
const events: ResponseEvent[] = [];

const PRICING = { inputPerMTok: 2, outputPerMTok: 10 };

beforeAll(async () => {
  [openaiMock, anthropicMock, gemini] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini()]);
  gateway = createShippedGateway(
    {
      providers: [
        { id: 'openai', type: 'openai', baseURL: openaiMock.baseURL, apiKey: openaiMock.apiKey },
        { id: 'anthropic', type: 'anthropic', baseURL: anthropicMock.baseURL, apiKey: anthropicMock.apiKey },
        { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
      ],
      models: [
        { id: 'gpt-4o', provider: 'openai', pricing: PRICING, cache: { ttlSeconds: 60 } },
        { id: 'gpt-shared', provider: 'openai', upstreamModel: 'gpt-4o', pricing: PRICING, cache: { ttlSeconds: 60, scope: 'global', hitCostFraction: 0.5 } },
        { id: 'gpt-4o-mini', provider: 'openai' },
        { id: 'claude-sonnet-4-5', provider: 'anthropic', cache: { ttlSeconds: 60 } },
        { id: 'gemini-2.5-flash', provider: 'google', cache: { ttlSeconds: 60 } },
        { id: 'text-embedding-3-small', provider: 'openai', cache: { ttlSeconds: 60 } },
      ],
      keys: [
        { id: 'a', key: KEY_A },
        { id: 'b', key: KEY_B },
        { id: 'byok', key: KEY_BYOK, providerKeys: { openai: openaiMock.apiKey } },
        // Its own setting: cached on a model that is not.
        { id: 'own', key: KEY_OWN, cache: { ttlSeconds: 60 } },
      ],
      retry: { attempts: 1 },
    },
    { hooks: { onResponse: (e) => void events.push(e) } },
  );
  server = await serve(gateway, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await Promise.all([openaiMock?.close(), anthropicMock?.close(), gemini?.close()]);
});
beforeEach(() => {
  events.length = 0;
});

const openai = (key = KEY_A) => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
const unique = () => `question ${Math.random().toString(36).slice(2)}`;

async function eventFor(n: number): Promise<ResponseEvent> {
  await expect.poll(() => events.length).toBeGreaterThanOrEqual(n);
  return events[n - 1] as ResponseEvent;
}

async function chat(key: string, model: string, content: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const { data, response } = await openai(key)
    .chat.completions.create({ model, messages: [{ role: 'user', content }], ...extra }, { headers })
    .withResponse();
  return { text: data.choices[0]?.message.content, usage: data.usage, cache: response.headers.get('x-modelgate-cache') };
}

describe('chat completions (openai SDK)', () => {
  it('a repeat is a hit: no upstream call, the same answer, zero cost and cacheHit in the hook; `user` does not change the key', async () => {
    const q = unique();
    const before = openaiMock.requests.length;
    const first = await chat(KEY_A, 'gpt-4o', q, { user: 'alice' });
    expect(first.cache).toBe('miss');
    expect(first.text).toBe(`[openai] you said: ${q}`);
    const miss = await eventFor(1);
    expect(miss.cacheHit).toBeUndefined();
    expect(miss.costUsd).toBeGreaterThan(0);
    const second = await chat(KEY_A, 'gpt-4o', q, { user: 'bob' });
    expect(second.cache).toBe('hit');
    expect(second.text).toBe(first.text);
    expect(second.usage).toMatchObject({ prompt_tokens: first.usage?.prompt_tokens, completion_tokens: first.usage?.completion_tokens, total_tokens: first.usage?.total_tokens });
    expect(openaiMock.requests.length).toBe(before + 1);
    const hit = await eventFor(2);
    expect(hit).toMatchObject({ cacheHit: true, costUsd: 0, status: 200, model: 'gpt-4o', usage: miss.usage });
  });

  it('a streaming caller gets a stored sync answer replayed as a stream; a sync caller gets a stored stream', async () => {
    const q = unique();
    await chat(KEY_A, 'gpt-4o', q);
    const before = openaiMock.requests.length;
    const { data: stream, response } = await openai().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: q }], stream: true, stream_options: { include_usage: true } }).withResponse();
    expect(response.headers.get('x-modelgate-cache')).toBe('hit');
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(`[openai] you said: ${q}`);
    expect(usage).toMatchObject({ prompt_tokens: 10 });
    expect(openaiMock.requests.length).toBe(before);

    const q2 = unique();
    const streamed = await openai().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: q2 }], stream: true });
    for await (const _ of streamed) void _;
    // Kept once the stream ended (after its last byte reached the client).
    await expect.poll(async () => (await chat(KEY_A, 'gpt-4o', q2)).cache).toBe('hit');
  });

  it('answers never cross keys (scope "key"); a "global" model shares them and a hit costs its fraction', async () => {
    const q = unique();
    await chat(KEY_A, 'gpt-4o', q);
    expect((await chat(KEY_B, 'gpt-4o', q)).cache).toBe('miss');
    const shared = unique();
    await chat(KEY_A, 'gpt-shared', shared);
    const original = (await eventFor(3)).costUsd as number;
    expect((await chat(KEY_B, 'gpt-shared', shared)).cache).toBe('hit');
    const hit = await eventFor(4);
    expect(hit).toMatchObject({ keyId: 'b', cacheHit: true });
    expect(hit.costUsd).toBeCloseTo(original / 2, 12);
  });

  it('a BYOK answer on a "global" model is not cached; a key with its own cache setting caches on any model', async () => {
    const q = unique();
    const before = openaiMock.requests.length;
    expect((await chat(KEY_BYOK, 'gpt-shared', q)).cache).toBeNull();
    expect((await chat(KEY_BYOK, 'gpt-shared', q)).cache).toBeNull();
    expect(openaiMock.requests.length).toBe(before + 2);
    expect((await chat(KEY_A, 'gpt-shared', q)).cache).toBe('miss');
    const own = unique();
    expect((await chat(KEY_A, 'gpt-4o-mini', own)).cache).toBeNull();
    expect((await chat(KEY_OWN, 'gpt-4o-mini', own)).cache).toBe('miss');
    expect((await chat(KEY_OWN, 'gpt-4o-mini', own)).cache).toBe('hit');
  });

  it('Cache-Control: no-store skips the cache, no-cache refreshes it, max-age bounds the age', async () => {
    const q = unique();
    const before = openaiMock.requests.length;
    expect((await chat(KEY_A, 'gpt-4o', q, {}, { 'cache-control': 'no-store' })).cache).toBeNull();
    expect((await chat(KEY_A, 'gpt-4o', q)).cache).toBe('miss');
    expect((await chat(KEY_A, 'gpt-4o', q, {}, { 'cache-control': 'no-cache' })).cache).toBe('miss');
    expect((await chat(KEY_A, 'gpt-4o', q, {}, { 'cache-control': 'max-age=0' })).cache).toBe('miss');
    expect(openaiMock.requests.length).toBe(before + 4);
    expect((await chat(KEY_A, 'gpt-4o', q, {}, { 'cache-control': 'max-age=600' })).cache).toBe('hit');
    expect(openaiMock.requests.length).toBe(before + 4);
  });

  it('errors and cut-off streams are not stored', async () => {
    const q = unique();
    openaiMock.failNext(500, { error: { message: 'boom', type: 'server_error', param: null, code: null } });
    await expect(chat(KEY_A, 'gpt-4o', q)).rejects.toMatchObject({ status: 500 });
    expect((await chat(KEY_A, 'gpt-4o', q)).cache).toBe('miss');
    const cut = unique();
    openaiMock.breakStreamNext();
    const stream = await openai().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: cut }], stream: true });
    await expect(async () => {
      for await (const _ of stream) void _;
    }).rejects.toThrow();
    await eventFor(3);
    expect((await chat(KEY_A, 'gpt-4o', cut)).cache).toBe('miss');
  });
});

describe('other protocols', () => {
  it('Anthropic Messages: a streamed answer is kept, then served sync and streamed', async () => {
    const client = new Anthropic({ apiKey: KEY_A, baseURL: server.url, maxRetries: 0 });
    const q = unique();
    const before = anthropicMock.requests.length;
    const first = await client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: q }] }).finalMessage();
    const text = first.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    await eventFor(1);
    await expect.poll(async () => (await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: q }] }).withResponse()).response.headers.get('x-modelgate-cache')).toBe('hit');
    const sync = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: q }] });
    expect(sync.content).toEqual(first.content);
    const again = await client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: q }] }).finalMessage();
    expect(again.content.map((b) => (b.type === 'text' ? b.text : '')).join('')).toBe(text);
    expect(anthropicMock.requests.length).toBe(before + 1);
  });

  it('Gemini generateContent (@google/genai): a hit, also for the streamed call', async () => {
    const ai = new GoogleGenAI({ apiKey: KEY_A, httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } });
    const q = unique();
    const before = gemini.requests.length;
    const first = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: q });
    expect(first.sdkHttpResponse?.headers?.['x-modelgate-cache']).toBe('miss');
    const second = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: q });
    expect(second.sdkHttpResponse?.headers?.['x-modelgate-cache']).toBe('hit');
    expect(second.text).toBe(first.text);
    let streamed = '';
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: q })) streamed += chunk.text ?? '';
    expect(streamed).toBe(first.text);
    expect(gemini.requests.length).toBe(before + 1);
  });

  it('Responses: cached with store: false only (translated to Anthropic here)', async () => {
    const q = unique();
    const before = anthropicMock.requests.length;
    const one = await openai().responses.create({ model: 'claude-sonnet-4-5', input: q, store: false }).withResponse();
    expect(one.response.headers.get('x-modelgate-cache')).toBe('miss');
    const two = await openai().responses.create({ model: 'claude-sonnet-4-5', input: q, store: false }).withResponse();
    expect(two.response.headers.get('x-modelgate-cache')).toBe('hit');
    expect(two.data.output_text).toBe(one.data.output_text);
    const stored = await openai().responses.create({ model: 'claude-sonnet-4-5', input: q }).withResponse();
    expect(stored.response.headers.get('x-modelgate-cache')).toBeNull();
    expect(anthropicMock.requests.length).toBe(before + 2);
  });

  it('embeddings: a hit returns the same vectors without an upstream call', async () => {
    const input = [unique(), unique()];
    const before = openaiMock.requests.length;
    const one = await openai().embeddings.create({ model: 'text-embedding-3-small', input }).withResponse();
    const two = await openai().embeddings.create({ model: 'text-embedding-3-small', input }).withResponse();
    expect([one.response.headers.get('x-modelgate-cache'), two.response.headers.get('x-modelgate-cache')]).toEqual(['miss', 'hit']);
    expect(two.data.data).toEqual(one.data.data);
    expect(openaiMock.requests.length).toBe(before + 1);
    expect(await eventFor(2)).toMatchObject({ cacheHit: true, usage: one.data.usage && { inputTokens: one.data.usage.prompt_tokens } });
  });
});
