/**
 * A model id that carries CR/LF, another control character, or (in the caller-written upstream part
 * of a `providerId/upstreamModel` id) what would change an upstream URL is a 400 naming the model
 * (escaped) in the caller's protocol shape on every entry point, never a 500; and no such character
 * reaches an upstream URL or header. Through the shipped node server and upstream client; the mock
 * upstreams record each request's path and headers.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import type { Gateway } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';

const KEY = 'mg-model-id-test-0001';

let chat: MockOpenAI;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let gateway: Gateway;
let server: RunningServer;

beforeAll(async () => {
  [chat, anthropic, gemini] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini()]);
  gateway = createShippedGateway(
    {
      providers: [
        { id: 'openai', type: 'openai', baseURL: chat.baseURL, apiKey: chat.apiKey },
        { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
        { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
        { id: 'mock', type: 'mock' },
      ],
      models: [{ id: 'gpt', provider: 'openai', upstreamModel: 'gpt-4o' }],
      retry: { attempts: 1 },
      keys: [{ id: 'caller', key: KEY }],
    },
    { env: {}, video: { pollerTickMs: false } },
  );
  server = await serve(gateway, { port: 0 });
});

afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await Promise.all([chat?.close(), anthropic?.close(), gemini?.close()]);
});

const mocks = () => [chat, anthropic, gemini];
const upstreamCalls = () => mocks().reduce((n, m) => n + m.requests.length, 0);

type Shape = 'openai' | 'anthropic' | 'gemini';

interface Entry {
  name: string;
  shape: Shape;
  method?: string;
  path(model: string): string;
  body?(model: string): unknown;
}

const text = [{ role: 'user', content: 'hi' }];
const ENTRIES: Entry[] = [
  { name: 'chat completions', shape: 'openai', path: () => '/v1/chat/completions', body: (model) => ({ model, messages: text }) },
  { name: 'Messages', shape: 'anthropic', path: () => '/v1/messages', body: (model) => ({ model, max_tokens: 8, messages: text }) },
  { name: 'Messages count_tokens', shape: 'anthropic', path: () => '/v1/messages/count_tokens', body: (model) => ({ model, messages: text }) },
  { name: 'Responses', shape: 'openai', path: () => '/v1/responses', body: (model) => ({ model, input: 'hi', store: false }) },
  { name: 'Responses input_tokens', shape: 'openai', path: () => '/v1/responses/input_tokens', body: (model) => ({ model, input: 'hi' }) },
  { name: 'Interactions model', shape: 'gemini', path: () => '/v1beta/interactions', body: (model) => ({ model, input: 'hi', store: false }) },
  { name: 'Interactions agent', shape: 'gemini', path: () => '/v1beta/interactions', body: (agent) => ({ agent, input: 'hi', background: true }) },
  { name: 'images', shape: 'openai', path: () => '/v1/images/generations', body: (model) => ({ model, prompt: 'a kite' }) },
  { name: 'images edits', shape: 'openai', path: () => '/v1/images/edits', body: (model) => ({ model, prompt: 'a kite', images: [{ image_url: 'data:image/png;base64,iVBORw0KGgo=' }] }) },
  { name: 'videos', shape: 'openai', path: () => '/v1/video/generations', body: (model) => ({ model, prompt: 'a cat' }) },
  // The model in the path, percent-encoded as a client sends it (`%0D%0A`, `%2F`).
  { name: 'generateContent', shape: 'gemini', path: (model) => `/v1beta/models/${encodeURIComponent(model)}:generateContent`, body: () => ({ contents: [{ parts: [{ text: 'hi' }] }] }) },
  { name: 'streamGenerateContent', shape: 'gemini', path: (model) => `/v1beta/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`, body: () => ({ contents: [{ parts: [{ text: 'hi' }] }] }) },
  { name: 'countTokens', shape: 'gemini', path: (model) => `/v1beta/models/${encodeURIComponent(model)}:countTokens`, body: () => ({ contents: [{ parts: [{ text: 'hi' }] }] }) },
];

/** [id, how the error message shows it] */
const BAD_IDS: Array<[string, string]> = [
  ['anthropic/x\r\nX-Injected: 1', 'anthropic/x\\r\\nX-Injected: 1'],
  ['google/x\r\nX-Injected: 1', 'google/x\\r\\nX-Injected: 1'],
  ['openai/gpt-4o\u0000', 'openai/gpt-4o\\u0000'],
  ['mock/x\u007f\u2028', 'mock/x\\u007f\\u2028'],
  ['gpt\r\n', 'gpt\\r\\n'],
  ['google/../../v1beta/files', 'google/../../v1beta/files'],
  ['google/x:generateContent?alt=json#frag', 'google/x:generateContent?alt=json#frag'],
  ['openai/x%0d%0aX-Injected:%201', 'openai/x%0d%0aX-Injected:%201'],
  ['anthropic/a b', 'anthropic/a b'],
  ['google/..', 'google/..'],
];

function shaped(shape: Shape, body: Record<string, unknown>): { message?: string; param?: unknown } {
  if (shape === 'anthropic') return body.type === 'error' ? { message: (body.error as { message?: string }).message } : {};
  const error = body.error as { message?: string; param?: unknown; status?: string } | undefined;
  if (shape === 'gemini') return error?.status === 'INVALID_ARGUMENT' ? { message: error.message } : {};
  return { message: error?.message, param: error?.param };
}

describe('model ids with control or URL characters, on every entry point', () => {
  for (const entry of ENTRIES) {
    it(`${entry.name}: a 400 naming the model, escaped, in the ${entry.shape} shape; nothing goes upstream`, async () => {
      const failures: string[] = [];
      for (const [id, shown] of BAD_IDS) {
        const before = upstreamCalls();
        const res = await fetch(`${server.url}${entry.path(id)}`, {
          method: entry.method ?? 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
          body: JSON.stringify(entry.body?.(id)),
        });
        const raw = await res.text();
        const { message, param } = shaped(entry.shape, JSON.parse(raw) as Record<string, unknown>);
        const where = `${JSON.stringify(id)}: ${res.status} ${raw.slice(0, 240)}`;
        if (res.status !== 400) failures.push(`${where} (expected 400)`);
        else if (!message?.includes(`'${shown}'`)) failures.push(`${where} (message does not name the model as '${shown}')`);
        else if (/[\r\n\u0000\u007f\u2028]/.test(message)) failures.push(`${where} (raw control character in the message)`);
        else if (entry.shape === 'openai' && param !== (entry.name === 'Interactions agent' ? 'agent' : 'model')) failures.push(`${where} (param)`);
        if (upstreamCalls() !== before) failures.push(`${JSON.stringify(id)}: sent upstream`);
        if (res.headers.get('x-modelgate-model') !== null) failures.push(`${JSON.stringify(id)}: routed (x-modelgate-model ${res.headers.get('x-modelgate-model')})`);
      }
      expect(failures.join('\n')).toBe('');
    });
  }

  it('no upstream request of this suite carried a control character or an injected header', () => {
    for (const m of mocks()) {
      for (const r of m.requests) {
        expect(r.path).not.toMatch(/[\r\n\u0000]|%0d|%0a|\.\./i);
        expect(Object.keys(r.headers).map((h) => h.toLowerCase())).not.toContain('x-injected');
        for (const v of Object.values(r.headers)) expect(v).not.toMatch(/[\r\n\u0000]/);
      }
    }
  });

  it('the OpenAI SDK gets a BadRequestError naming the model param', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });
    const err = await client.chat.completions.create({ model: 'openai/x\r\nX-Injected: 1', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param: 'model', code: 'invalid_model_id' });
  });

  it('GET /v1beta/models/{model} and /v1/models/{id} answer such an id with a 404, escaped', async () => {
    for (const path of ['/v1beta/models/google%2Fx%0D%0AX-Injected%3A%201', '/v1/models/gpt%0D%0AX-Injected%3A%201']) {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${KEY}` } });
      const raw = await res.text();
      expect(res.status, raw).toBe(404);
      expect(raw).toContain('\\\\r\\\\nX-Injected: 1');
      expect(raw).not.toMatch(/[\r\n]/);
    }
  });
});

describe('valid ids still route, and reach the upstream encoded', () => {
  it('a direct Gemini id is one encoded path segment upstream', async () => {
    const res = await fetch(`${server.url}/v1beta/models/google%2Fgemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    expect(res.status, await res.text()).toBe(200);
    expect(gemini.requests.at(-1)?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(res.headers.get('x-modelgate-model')).toBe('google/gemini-2.5-flash');
  });

  it('a direct id outside ASCII is routed; the x-modelgate-model header carries it percent-encoded', async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-ü', messages: text }),
    });
    expect(res.status, await res.text()).toBe(200);
    expect((chat.requests.at(-1)?.body as { model: string }).model).toBe('gpt-4o-ü');
    expect(res.headers.get('x-modelgate-model')).toBe('openai/gpt-4o-%C3%BC');
  });
});
