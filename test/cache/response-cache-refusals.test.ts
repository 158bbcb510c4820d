/**
 * The response cache never keeps a refusal (issue 25): an upstream 4xx/5xx, a content-filter or
 * safety finish (OpenAI content_filter, Anthropic's `refusal` stop reason, Gemini SAFETY), a refusal
 * message (Chat Completions' `message.refusal`, a Responses `refusal` part) or an empty answer, for
 * chat completions (pass-through and translated), Messages, generateContent, Responses with
 * `store: false` (pass-through, and a chat caller translated to a Responses upstream) and
 * embeddings. Each case sends the same request twice through the official SDKs: the second one must
 * reach the upstream again (`x-modelgate-cache: miss`), and a normal answer after it is then kept.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import type { Gateway } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from '../helpers/mock-openai-responses.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';

const KEY = 'mg-cache-refusals-key-0001';
const CACHE = { ttlSeconds: 600 };

let chatMock: MockOpenAI;
let responsesMock: MockOpenAIResponses;
let anthropicMock: MockAnthropic;
let gemini: MockGemini;
let gateway: Gateway;
let server: RunningServer;

beforeAll(async () => {
  [chatMock, responsesMock, anthropicMock, gemini] = await Promise.all([startMockOpenAI(), startMockOpenAIResponses(), startMockAnthropic(), startMockGemini()]);
  gateway = createShippedGateway({
    providers: [
      { id: 'openai', type: 'openai', baseURL: chatMock.baseURL, apiKey: chatMock.apiKey },
      { id: 'openai-resp', type: 'openai', baseURL: responsesMock.baseURL, apiKey: responsesMock.apiKey },
      { id: 'anthropic', type: 'anthropic', baseURL: anthropicMock.baseURL, apiKey: anthropicMock.apiKey },
      { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
    ],
    models: [
      { id: 'gpt-4o', provider: 'openai', cache: CACHE },
      { id: 'gpt-5', provider: 'openai-resp', cache: CACHE },
      { id: 'gpt-5-via-responses', provider: 'openai-resp', upstreamModel: 'gpt-5', api: 'responses', cache: CACHE },
      { id: 'claude-sonnet-4-5', provider: 'anthropic', cache: CACHE },
      { id: 'gemini-2.5-flash', provider: 'google', cache: CACHE },
      { id: 'text-embedding-3-small', provider: 'openai', cache: CACHE },
      { id: 'gemini-embedding-001', provider: 'google', capabilities: ['embedding'], cache: CACHE },
    ],
    keys: [{ id: 'refusals', key: KEY }],
    retry: { attempts: 1 },
  });
  server = await serve(gateway, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await Promise.all([chatMock?.close(), responsesMock?.close(), anthropicMock?.close(), gemini?.close()]);
});

const openai = () => new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
const unique = () => `question ${Math.random().toString(36).slice(2)}`;
const posts = (mock: { requests: Array<{ method: string }> }) => mock.requests.filter((r) => r.method === 'POST').length;

async function chatSync(model: string, q: string): Promise<{ cache: string | null; message: OpenAI.ChatCompletionMessage; finish: string }> {
  const { data, response } = await openai().chat.completions.create({ model, messages: [{ role: 'user', content: q }] }).withResponse();
  return { cache: response.headers.get('x-modelgate-cache'), message: data.choices[0]?.message as OpenAI.ChatCompletionMessage, finish: data.choices[0]?.finish_reason as string };
}

async function chatStream(model: string, q: string): Promise<{ cache: string | null; text: string; refusal: string; finish: string | null }> {
  const { data: stream, response } = await openai().chat.completions.create({ model, messages: [{ role: 'user', content: q }], stream: true }).withResponse();
  let text = '';
  let refusal = '';
  let finish: string | null = null;
  for await (const chunk of stream) {
    const c = chunk.choices[0];
    text += c?.delta.content ?? '';
    refusal += (c?.delta as { refusal?: string | null } | undefined)?.refusal ?? '';
    finish = c?.finish_reason ?? finish;
  }
  return { cache: response.headers.get('x-modelgate-cache'), text, refusal, finish };
}

/** The same request twice: both reach the upstream, the second is a miss again. Then a normal answer is kept (the case was cacheable but for the refusal). */
async function neverKept(mock: { requests: Array<{ method: string }> }, script: () => void, send: () => Promise<{ cache: string | null }>, normal: () => Promise<{ cache: string | null }>): Promise<void> {
  const before = posts(mock);
  script();
  expect((await send()).cache).toBe('miss');
  script();
  expect((await send()).cache).toBe('miss');
  expect(posts(mock)).toBe(before + 2);
  // The same request answered normally now is kept: the refusal was the only reason it was not.
  expect((await normal()).cache).toBe('miss');
  expect((await normal()).cache).toBe('hit');
  expect(posts(mock)).toBe(before + 3);
}

describe('chat completions on OpenAI (pass-through)', () => {
  it('a refusal (message.refusal), sync and streamed, is not kept', async () => {
    const q = unique();
    await neverKept(
      chatMock,
      () => chatMock.scriptNext({ refusal: "I'm sorry, I can't help with that." }),
      async () => {
        const r = await chatSync('gpt-4o', q);
        expect([r.message.content, r.message.refusal]).toEqual([null, "I'm sorry, I can't help with that."]);
        return r;
      },
      () => chatSync('gpt-4o', q),
    );
    const s = unique();
    await neverKept(
      chatMock,
      () => chatMock.scriptNext({ refusal: "I'm sorry, I can't help with that." }),
      async () => {
        const r = await chatStream('gpt-4o', s);
        expect(r).toMatchObject({ text: '', refusal: "I'm sorry, I can't help with that.", finish: 'stop' });
        return r;
      },
      () => chatStream('gpt-4o', s),
    );
  });

  it('a content_filter finish is not kept', async () => {
    const q = unique();
    await neverKept(
      chatMock,
      () => chatMock.scriptNext({ text: 'Here is the start of', finish: 'content_filter' }),
      async () => {
        const r = await chatSync('gpt-4o', q);
        expect(r.finish).toBe('content_filter');
        return r;
      },
      () => chatSync('gpt-4o', q),
    );
  });

  it('an empty answer, sync and streamed, is not kept', async () => {
    const q = unique();
    await neverKept(
      chatMock,
      () => chatMock.scriptNext({ text: '' }),
      async () => {
        const r = await chatSync('gpt-4o', q);
        expect(r.message.content).toBe('');
        return r;
      },
      () => chatSync('gpt-4o', q),
    );
    const s = unique();
    await neverKept(
      chatMock,
      () => chatMock.scriptNext({ text: '' }),
      async () => {
        const r = await chatStream('gpt-4o', s);
        expect(r).toMatchObject({ text: '', finish: 'stop' });
        return r;
      },
      () => chatStream('gpt-4o', s),
    );
  });

  it('an upstream 4xx or 5xx is not kept', async () => {
    for (const [status, type] of [
      [400, 'invalid_request_error'],
      [503, 'server_error'],
    ] as const) {
      const q = unique();
      const before = posts(chatMock);
      chatMock.failNext(status, { error: { message: `upstream says ${status}`, type, param: null, code: null } });
      await expect(chatSync('gpt-4o', q)).rejects.toMatchObject({ status });
      expect((await chatSync('gpt-4o', q)).cache).toBe('miss');
      expect(posts(chatMock)).toBe(before + 2);
    }
  });
});

describe('other protocols', () => {
  it("Anthropic's refusal stop reason (Messages, and a chat caller translated) is not kept", async () => {
    const client = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
    const script = () => anthropicMock.scriptNext({ content: [{ type: 'text', text: 'I cannot' }], stopReason: 'refusal' });
    const q = unique();
    const messages = async () => {
      const { data, response } = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: q }] }).withResponse();
      return { cache: response.headers.get('x-modelgate-cache'), stop: data.stop_reason };
    };
    await neverKept(
      anthropicMock,
      script,
      async () => {
        const r = await messages();
        expect(r.stop).toBe('refusal');
        return r;
      },
      messages,
    );
    const s = unique();
    const streamed = async () => {
      const stream = client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: s }] });
      const final = await stream.finalMessage();
      return { cache: (await stream.withResponse()).response.headers.get('x-modelgate-cache'), stop: final.stop_reason };
    };
    await neverKept(anthropicMock, script, streamed, streamed);
    const c = unique();
    await neverKept(
      anthropicMock,
      script,
      async () => {
        const r = await chatSync('claude-sonnet-4-5', c);
        expect(r.finish).toBe('content_filter');
        return r;
      },
      () => chatSync('claude-sonnet-4-5', c),
    );
  });

  it('a Gemini SAFETY finish (generateContent, sync and streamed) is not kept', async () => {
    const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } });
    const script = () => gemini.scriptNext({ parts: [{ text: 'Partial' }], finishReason: 'SAFETY' });
    const q = unique();
    const sync = async () => {
      const r = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: q });
      return { cache: r.sdkHttpResponse?.headers?.['x-modelgate-cache'] ?? null, finish: r.candidates?.[0]?.finishReason };
    };
    await neverKept(
      gemini,
      script,
      async () => {
        const r = await sync();
        expect(r.finish).toBe('SAFETY');
        return r;
      },
      sync,
    );
    const s = unique();
    const streamed = async () => {
      let cache: string | null = null;
      for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: s })) cache = chunk.sdkHttpResponse?.headers?.['x-modelgate-cache'] ?? cache;
      return { cache };
    };
    await neverKept(gemini, script, streamed, streamed);
  });

  it('a Responses refusal part (store: false, pass-through sync and streamed; a chat caller translated to Responses) is not kept', async () => {
    const script = () => responsesMock.scriptNext({ output: [{ type: 'refusal', refusal: "I'm sorry, but I can't assist with that." }] });
    const q = unique();
    const answers: OpenAI.Responses.Response[] = [];
    const sync = async () => {
      const { data, response } = await openai().responses.create({ model: 'gpt-5', input: q, store: false }).withResponse();
      answers.push(data);
      return { cache: response.headers.get('x-modelgate-cache'), data };
    };
    await neverKept(
      responsesMock,
      script,
      async () => {
        const r = await sync();
        expect((r.data.output[0] as { content: Array<{ type: string }> }).content[0]?.type).toBe('refusal');
        return r;
      },
      sync,
    );
    // The hit (the last answer) is the normal answer again, as a complete Responses object of its own.
    const [miss, hit] = answers.slice(-2) as [OpenAI.Responses.Response, OpenAI.Responses.Response];
    expect(hit.output_text).toBeTruthy();
    expect(hit.output_text).toBe(miss.output_text);
    expect(hit).toMatchObject({ object: 'response', status: 'completed' });
    expect(hit.id).toMatch(/^resp_/);
    expect(hit.id).not.toBe(miss.id);
    const s = unique();
    const streamed = async () => {
      const { data: stream, response } = await openai().responses.create({ model: 'gpt-5', input: s, store: false, stream: true }).withResponse();
      for await (const _ of stream) void _;
      return { cache: response.headers.get('x-modelgate-cache') };
    };
    await neverKept(responsesMock, script, streamed, streamed);
    const c = unique();
    await neverKept(responsesMock, script, () => chatSync('gpt-5-via-responses', c), () => chatSync('gpt-5-via-responses', c));
    const cs = unique();
    await neverKept(responsesMock, script, () => chatStream('gpt-5-via-responses', cs), () => chatStream('gpt-5-via-responses', cs));
  });

  it('embeddings: an upstream 4xx/5xx or an answer with an empty vector is not kept (OpenAI and Gemini shapes)', async () => {
    const input = [unique()];
    const embed = async () => {
      const { response } = await openai().embeddings.create({ model: 'text-embedding-3-small', input }).withResponse();
      return { cache: response.headers.get('x-modelgate-cache') };
    };
    for (const [status, type] of [
      [400, 'invalid_request_error'],
      [500, 'server_error'],
    ] as const) {
      const before = posts(chatMock);
      chatMock.failNext(status, { error: { message: `upstream says ${status}`, type, param: null, code: null } });
      await expect(embed()).rejects.toMatchObject({ status });
      chatMock.failNext(status, { error: { message: `upstream says ${status}`, type, param: null, code: null } });
      await expect(embed()).rejects.toMatchObject({ status });
      expect(posts(chatMock)).toBe(before + 2);
    }
    const empty = { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 2, total_tokens: 2 } };
    await neverKept(chatMock, () => chatMock.failNext(200, empty), embed, embed);

    // Gemini's :embedContent (the REST call; the SDK batches, and an empty vector in a batch is already a 502).
    const text = unique();
    const geminiEmbed = async () => {
      const res = await fetch(`${server.url}/v1beta/models/gemini-embedding-001:embedContent`, {
        method: 'POST',
        headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ content: { parts: [{ text }] } }),
      });
      expect(res.status).toBe(200);
      return { cache: res.headers.get('x-modelgate-cache') };
    };
    await neverKept(gemini, () => gemini.failNext(200, { embedding: { values: [] } }), geminiEmbed, geminiEmbed);
  });
});
