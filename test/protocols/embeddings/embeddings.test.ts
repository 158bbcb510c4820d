/**
 * Embeddings in every entry point, out to every vendor (issue 25), end to end through the node
 * adapter and the shipped upstream client, with the official SDKs unmodified: the openai SDK
 * (floats, and its default base64 which it decodes itself), @google/genai `models.embedContent`
 * with several contents, and Gemini's OpenAI-compatible `/v1beta/openai/embeddings`. Upstreams are
 * the strict OpenAI and Gemini mocks; Anthropic has no embeddings API.
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import type { Gateway, ResponseEvent } from '../../../src/index.js';
import { mockEmbedding } from '../../helpers/mock-embedding-vectors.js';
import { startMockAnthropic, type MockAnthropic } from '../../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

const KEY = 'mg-embed-key-all-0001';
const KEY_GEMINI = 'mg-embed-key-gem-0002';
const KEY_TIGHT = 'mg-embed-key-tpm-0003';

let openaiMock: MockOpenAI;
let gemini: MockGemini;
let anthropic: MockAnthropic;
let gateway: Gateway;
let server: RunningServer;
let openai: OpenAI;
let google: GoogleGenAI;
const events: ResponseEvent[] = [];

beforeAll(async () => {
  [openaiMock, gemini, anthropic] = await Promise.all([startMockOpenAI(), startMockGemini(), startMockAnthropic()]);
  gateway = createShippedGateway(
    {
      providers: [
        { id: 'openai', type: 'openai', baseURL: openaiMock.baseURL, apiKey: openaiMock.apiKey },
        { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
        { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
      ],
      models: [
        { id: 'text-embedding-3-small', provider: 'openai', pricing: { inputPerMTok: 0.02, outputPerMTok: 0 } },
        { id: 'gemini-embedding-001', provider: 'google', pricing: { inputPerMTok: 0.15, outputPerMTok: 0 } },
        { id: 'docs-embedder', provider: 'google', upstreamModel: 'gemini-embedding-001', capabilities: ['embedding'] },
        { id: 'claude-vectors', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5', capabilities: ['embedding'] },
        { id: 'gpt-4o', provider: 'openai' },
      ],
      keys: [
        { id: 'all', key: KEY },
        { id: 'gemini-only', key: KEY_GEMINI, models: ['gemini-*'] },
        { id: 'tight', key: KEY_TIGHT, limits: { tokensPerMinute: 40 } },
      ],
      retry: { attempts: 1 },
    },
    { hooks: { onResponse: (e) => void events.push(e) } },
  );
  server = await serve(gateway, { port: 0 });
  openai = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await Promise.all([openaiMock?.close(), gemini?.close(), anthropic?.close()]);
});
beforeEach(() => {
  events.length = 0;
});

function lastBody(m: { requests: Array<{ body?: unknown }> }): Record<string, unknown> {
  return m.requests.at(-1)?.body as Record<string, unknown>;
}

/** The hook event of the last finished request (onResponse fires as the body ends). */
async function lastEvent(): Promise<ResponseEvent> {
  await expect.poll(() => events.length).toBeGreaterThan(0);
  return events.at(-1) as ResponseEvent;
}

describe('POST /v1/embeddings with the openai SDK', () => {
  it('OpenAI upstream, SDK default (base64 asked, decoded by the SDK): pass-through, vectors exact, usage priced', async () => {
    const res = await openai.embeddings.create({ model: 'text-embedding-3-small', input: ['the quick brown fox', 'jumps'] });
    expect(lastBody(openaiMock)).toEqual({ model: 'text-embedding-3-small', input: ['the quick brown fox', 'jumps'], encoding_format: 'base64' });
    expect(res.data.map((d) => d.index)).toEqual([0, 1]);
    expect(res.data[0]?.embedding).toEqual(mockEmbedding('the quick brown fox', 1536, 'openai'));
    expect(res.data[1]?.embedding).toEqual(mockEmbedding('jumps', 1536, 'openai'));
    expect(res.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
    const e = await lastEvent();
    expect(e).toMatchObject({ model: 'text-embedding-3-small', provider: 'openai', status: 200, usage: { inputTokens: 5, totalTokens: 5 } });
    expect(e.costUsd).toBeCloseTo((5 * 0.02) / 1e6, 12);
  });

  it('OpenAI upstream with floats, token arrays and dimensions', async () => {
    const res = await openai.embeddings.create({ model: 'text-embedding-3-small', input: [[1, 2, 3], [4]], encoding_format: 'float', dimensions: 64 });
    expect(lastBody(openaiMock)).toMatchObject({ input: [[1, 2, 3], [4]], dimensions: 64, encoding_format: 'float' });
    expect(res.data[0]?.embedding).toEqual(mockEmbedding('tokens:1,2,3', 64, 'openai'));
    expect(res.data[1]?.embedding).toHaveLength(64);
  });

  it('Gemini upstream with floats: translated to batchEmbedContents, dimensions -> outputDimensionality', async () => {
    const res = await openai.embeddings.create({ model: 'gemini-embedding-001', input: 'hello world', encoding_format: 'float', dimensions: 768 });
    expect(gemini.requests.at(-1)?.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(lastBody(gemini)).toEqual({ requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'hello world' }] }, outputDimensionality: 768 }] });
    expect(res).toMatchObject({ object: 'list', model: 'gemini-embedding-001' });
    expect(res.data[0]?.embedding).toEqual(mockEmbedding('hello world', 768, 'gemini|'));
    // Gemini reports no usage: the gateway's estimate (11 characters, about 3 tokens) is counted and priced.
    expect(res.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const e = await lastEvent();
    expect(e.usage).toEqual({ inputTokens: 3, totalTokens: 3 });
    expect(e.costUsd).toBeCloseTo((3 * 0.15) / 1e6, 12);
  });

  it('Gemini upstream with the SDK default: the floats are encoded to base64, so the SDK decodes the right vector', async () => {
    const res = await openai.embeddings.create({ model: 'gemini-embedding-001', input: 'base64 please' });
    expect(res.data[0]?.embedding).toEqual(mockEmbedding('base64 please', 3072, 'gemini|'));
    // And the raw wire answer is a base64 string, not floats.
    const raw = await fetch(`${server.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gemini-embedding-001', input: 'x', encoding_format: 'base64' }) });
    const json = (await raw.json()) as { data: Array<{ embedding: unknown }> };
    expect(typeof json.data[0]?.embedding).toBe('string');
  });

  it('a batch larger than Gemini allows is split (100 per call) and joined back in order', async () => {
    const inputs = Array.from({ length: 230 }, (_, i) => `chunk number ${i}`);
    const before = gemini.requests.length;
    const res = await openai.embeddings.create({ model: 'gemini-embedding-001', input: inputs, encoding_format: 'float', dimensions: 8 });
    const calls = gemini.requests.slice(before);
    expect(calls.map((c) => ((c.body as { requests: unknown[] }).requests).length)).toEqual([100, 100, 30]);
    expect(res.data).toHaveLength(230);
    res.data.forEach((d, i) => {
      expect(d.index).toBe(i);
      expect(d.embedding).toEqual(mockEmbedding(`chunk number ${i}`, 8, 'gemini|'));
    });
  });

  it('token arrays cannot go to Gemini: a 400 naming the model', async () => {
    await expect(openai.embeddings.create({ model: 'gemini-embedding-001', input: [1, 2, 3] })).rejects.toMatchObject({ status: 400, message: expect.stringContaining("'gemini-embedding-001' embeds text only") });
  });

  it('a vendor without embeddings (Anthropic): a 400 naming the model; a chat model: a 400 too', async () => {
    const before = anthropic.requests.length;
    await expect(openai.embeddings.create({ model: 'claude-vectors', input: 'x' })).rejects.toMatchObject({ status: 400, message: expect.stringContaining("The model 'claude-vectors' is served by provider 'anthropic'") });
    expect(anthropic.requests.length).toBe(before);
    await expect(openai.embeddings.create({ model: 'gpt-4o', input: 'x' })).rejects.toMatchObject({ status: 400, message: expect.stringContaining("The model 'gpt-4o' does not support embeddings") });
  });

  it('bad input is a 400 naming the field; the key model patterns (403) and token limits (429) apply', async () => {
    await expect(openai.embeddings.create({ model: 'text-embedding-3-small', input: '' })).rejects.toMatchObject({ status: 400, param: 'input' });
    await expect(openai.embeddings.create({ model: 'text-embedding-3-small', input: 'x', encoding_format: 'int8' as 'float' })).rejects.toMatchObject({ status: 400, param: 'encoding_format' });
    await expect(openai.embeddings.create({ model: 'text-embedding-3-small', input: Array.from({ length: 2049 }, () => 'x') })).rejects.toMatchObject({ status: 400, param: 'input', message: expect.stringContaining('at most 2048 inputs per request, got 2049') });
    const restricted = new OpenAI({ apiKey: KEY_GEMINI, baseURL: `${server.url}/v1`, maxRetries: 0 });
    await expect(restricted.embeddings.create({ model: 'text-embedding-3-small', input: 'x' })).rejects.toMatchObject({ status: 403 });
    expect((await restricted.embeddings.create({ model: 'gemini-embedding-001', input: 'ok', encoding_format: 'float', dimensions: 4 })).data[0]?.embedding).toHaveLength(4);
    const tight = new OpenAI({ apiKey: KEY_TIGHT, baseURL: `${server.url}/v1`, maxRetries: 0 });
    await expect(tight.embeddings.create({ model: 'text-embedding-3-small', input: 'a'.repeat(400) })).rejects.toMatchObject({ status: 429 });
    await tight.embeddings.create({ model: 'text-embedding-3-small', input: 'one two three four five six seven eight nine ten' });
    await tight.embeddings.create({ model: 'text-embedding-3-small', input: 'one two three four five six seven eight nine ten' });
    // 10 + 10 real tokens of 40 per minute are used: a 25-token estimate no longer fits.
    await expect(tight.embeddings.create({ model: 'text-embedding-3-small', input: 'x'.repeat(100) })).rejects.toMatchObject({ status: 429 });
  });
});

describe("Gemini's OpenAI-compatible base path", () => {
  it('POST /v1beta/openai/embeddings serves the openai SDK with only the host changed', async () => {
    const compat = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1beta/openai/`, maxRetries: 0 });
    const res = await compat.embeddings.create({ model: 'gemini-embedding-001', input: ['a', 'b'] });
    expect(res.data.map((d) => d.embedding)).toEqual([mockEmbedding('a', 3072, 'gemini|'), mockEmbedding('b', 3072, 'gemini|')]);
  });
});

describe('Gemini :embedContent / :batchEmbedContents with @google/genai', () => {
  it('several contents with task type, title and dimensionality: pass-through to Gemini (batchEmbedContents)', async () => {
    const res = await google.models.embedContent({
      model: 'docs-embedder',
      contents: ['first document', 'second document'],
      config: { taskType: 'RETRIEVAL_DOCUMENT', title: 'Handbook', outputDimensionality: 16 },
    });
    expect(gemini.requests.at(-1)?.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    const sent = lastBody(gemini) as { requests: Array<Record<string, unknown>> };
    expect(sent.requests.map((r) => r.model)).toEqual(['models/gemini-embedding-001', 'models/gemini-embedding-001']);
    expect(sent.requests[0]).toMatchObject({ taskType: 'RETRIEVAL_DOCUMENT', title: 'Handbook', outputDimensionality: 16 });
    expect(res.embeddings?.map((e) => e.values)).toEqual([mockEmbedding('first document', 16, 'gemini|RETRIEVAL_DOCUMENT'), mockEmbedding('second document', 16, 'gemini|RETRIEVAL_DOCUMENT')]);
    const e = await lastEvent();
    expect(e).toMatchObject({ model: 'docs-embedder', upstreamModel: 'gemini-embedding-001', usage: { inputTokens: 8 } });
  });

  it('a batch of 150 contents is split into calls of 100 and 50 and joined in order', async () => {
    const contents = Array.from({ length: 150 }, (_, i) => `doc ${i}`);
    const before = gemini.requests.length;
    const res = await google.models.embedContent({ model: 'gemini-embedding-001', contents, config: { outputDimensionality: 4 } });
    expect(gemini.requests.slice(before).map((c) => (c.body as { requests: unknown[] }).requests.length)).toEqual([100, 50]);
    expect(res.embeddings?.[149]?.values).toEqual(mockEmbedding('doc 149', 4, 'gemini|'));
  });

  it('an OpenAI upstream: translated (task type dropped, said in x-modelgate-warnings)', async () => {
    const res = await google.models.embedContent({ model: 'text-embedding-3-small', contents: ['alpha', 'beta'], config: { taskType: 'SEMANTIC_SIMILARITY', outputDimensionality: 32 } });
    expect(lastBody(openaiMock)).toEqual({ model: 'text-embedding-3-small', input: ['alpha', 'beta'], encoding_format: 'float', dimensions: 32 });
    expect(res.embeddings?.map((e) => e.values)).toEqual([mockEmbedding('alpha', 32, 'openai'), mockEmbedding('beta', 32, 'openai')]);
    expect(res.sdkHttpResponse?.headers?.['x-modelgate-warnings']).toContain('taskType: dropped');
  });

  it(':embedContent over raw HTTP passes through; a chat model is a 400 in Google\'s shape', async () => {
    const r = await fetch(`${server.url}/v1beta/models/gemini-embedding-001:embedContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { parts: [{ text: 'single' }] }, outputDimensionality: 5 }),
    });
    expect(r.status).toBe(200);
    expect(gemini.requests.at(-1)?.path).toBe('/v1beta/models/gemini-embedding-001:embedContent');
    expect(((await r.json()) as { embedding: { values: number[] } }).embedding.values).toEqual(mockEmbedding('single', 5, 'gemini|'));
    const bad = await fetch(`${server.url}/v1beta/models/gpt-4o:embedContent`, { method: 'POST', headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ content: { parts: [{ text: 'x' }] } }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining("'gpt-4o' does not support embeddings") } });
    // A batch's requests name its model (as Gemini checks), or none.
    const other = await fetch(`${server.url}/v1beta/models/gemini-embedding-001:batchEmbedContents`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a' }] } }, { model: 'models/other', content: { parts: [{ text: 'b' }] } }] }),
    });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ error: { code: 400, message: expect.stringContaining("'requests[1].model'") } });
  });
});
