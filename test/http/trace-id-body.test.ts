/**
 * One rule for every JSON body the gateway answers with: a top-level `traceId` equal to the
 * `x-trace-id` header — success or error, forwarded or answered locally, on every endpoint that
 * answers JSON (chat bodies are covered by the conformance matrix).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';

const KEY = 'mg-trace-id-key-0001';
let openai: MockOpenAI;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let gateway: Gateway;

beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini()]);
  gateway = createGateway({
    providers: [
      { id: 'p-openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
      { id: 'p-anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
      { id: 'p-gemini', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
      { id: 'mock', type: 'mock' },
    ],
    models: [
      { id: 'up-openai', provider: 'p-openai', upstreamModel: 'gpt-4o' },
      { id: 'up-anthropic', provider: 'p-anthropic', upstreamModel: 'claude-sonnet-4-5' },
      { id: 'up-gemini', provider: 'p-gemini', upstreamModel: 'gemini-2.5-flash' },
      { id: 'mock-image', provider: 'mock', capabilities: ['image'] },
      { id: 'mock-video', provider: 'mock', capabilities: ['video'] },
    ],
    keys: [{ id: 'trace', key: KEY, models: ['*'] }],
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]);
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await gateway.handle(
    new Request(`http://gw.test${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const json = (await res.json()) as Record<string, unknown>;
  const header = res.headers.get('x-trace-id');
  expect(header).toMatch(/^[0-9a-f]{32}$/);
  // The rule itself: the body's traceId is the header's.
  expect(json.traceId).toBe(header);
  return { status: res.status, body: json };
}

const ANTHROPIC = { 'anthropic-version': '2023-06-01' };
const messages = [{ role: 'user', content: 'count these four words' }];
const contents = [{ role: 'user', parts: [{ text: 'count these four words' }] }];

describe('traceId in every JSON body', () => {
  it('Anthropic count_tokens, forwarded and estimated', async () => {
    const forwarded = await call('POST', '/v1/messages/count_tokens', { model: 'up-anthropic', messages }, ANTHROPIC);
    expect(forwarded).toMatchObject({ status: 200, body: { input_tokens: 10 } });
    const estimated = await call('POST', '/v1/messages/count_tokens', { model: 'up-openai', messages }, ANTHROPIC);
    expect(estimated.status).toBe(200);
    expect(estimated.body.input_tokens).toEqual(expect.any(Number));
  });

  it('Gemini countTokens, forwarded and estimated', async () => {
    const forwarded = await call('POST', '/v1beta/models/up-gemini:countTokens', { contents });
    expect(forwarded.status).toBe(200);
    expect(forwarded.body.totalTokens).toEqual(expect.any(Number));
    const estimated = await call('POST', '/v1beta/models/up-openai:countTokens', { contents });
    expect(estimated.status).toBe(200);
    expect(estimated.body.totalTokens).toEqual(expect.any(Number));
  });

  it('model lists and single models, in the OpenAI, Anthropic and Gemini shapes', async () => {
    expect((await call('GET', '/v1/models')).body.object).toBe('list');
    expect((await call('GET', '/v1/models?all=true')).body.object).toBe('list');
    expect((await call('GET', '/v1/models', undefined, ANTHROPIC)).body.has_more).toBe(false);
    expect((await call('GET', '/v1/models/up-openai')).body.id).toBe('up-openai');
    expect((await call('GET', '/v1/models/up-openai', undefined, ANTHROPIC)).body.type).toBe('model');
    expect((await call('GET', '/v1beta/models')).body.models).toEqual(expect.any(Array));
    expect((await call('GET', '/v1beta/models/up-gemini')).body.name).toBe('models/up-gemini');
  });

  it('image generation', async () => {
    const images = await call('POST', '/v1/images/generations', { model: 'mock-image', prompt: 'a red square' });
    expect(images.status).toBe(200);
    expect(images.body.data).toEqual(expect.any(Array));
  });

  it('video task submit, read and cancel', async () => {
    const submitted = await call('POST', '/v1/video/generations', { model: 'mock-video', prompt: 'a slow pan' });
    expect(submitted.status).toBe(202);
    const id = String(submitted.body.task_id);
    expect((await call('GET', `/v1/video/generations/${id}`)).body.task_id).toBe(id);
    expect((await call('DELETE', `/v1/video/generations/${id}`)).body.status).toBe('cancelled');
  });

  it('errors in each protocol shape', async () => {
    expect((await call('GET', '/v1/models/nope')).status).toBe(404);
    expect((await call('POST', '/v1/messages', { model: 'nope', max_tokens: 5, messages }, ANTHROPIC)).status).toBe(404);
    expect((await call('POST', '/v1beta/models/nope:generateContent', { contents })).status).toBe(404);
  });
});
