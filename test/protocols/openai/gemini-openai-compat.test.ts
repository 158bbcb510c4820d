/**
 * Clients set up for Gemini's OpenAI-compatible endpoint work by changing only the host (issue 21,
 * item 10): the official openai SDK with baseURL `{gateway}/v1beta/openai/` lists models and chats
 * (sync and stream) with every vendor, and the vendor extensions of Gemini's and Anthropic's
 * OpenAI-compatibility layers (`google.thinking_config`, also under a literal `extra_body`;
 * `reasoning_effort`; Anthropic's `thinking`) reach every vendor that can think, in its own terms.
 */
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import type { Gateway } from '../../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

const KEY = 'mg-gemini-openai-compat-0001';

let gemini: MockGemini;
let anthropic: MockAnthropic;
let openaiMock: MockOpenAI;
let gateway: Gateway;
let server: RunningServer;
let client: OpenAI;

beforeAll(async () => {
  [gemini, anthropic, openaiMock] = await Promise.all([startMockGemini(), startMockAnthropic(), startMockOpenAI()]);
  gateway = createShippedGateway({
    providers: [
      { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
      { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
      { id: 'openai', type: 'openai', baseURL: openaiMock.baseURL, apiKey: openaiMock.apiKey },
    ],
    models: [
      { id: 'gemini-2.5-flash', provider: 'google' },
      { id: 'claude-sonnet-4-5', provider: 'anthropic' },
      { id: 'o4-mini', provider: 'openai' },
      { id: 'gpt-4o', provider: 'openai' },
    ],
    keys: [{ id: 'k', key: KEY }],
    retry: { attempts: 1 },
  });
  server = await serve(gateway, { port: 0 });
  // Exactly as Google documents it, with only the host changed.
  client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1beta/openai/`, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await Promise.all([gemini?.close(), anthropic?.close(), openaiMock?.close()]);
});

/** Vendor extensions the SDK's types do not know (the SDK sends them as given, like `extra_body`). */
interface Extensions {
  google?: { thinking_config?: { thinking_budget?: number; include_thoughts?: boolean; thinking_level?: string } };
  extra_body?: { google?: Extensions['google'] };
  thinking?: { type: 'enabled' | 'disabled' | 'adaptive'; budget_tokens?: number };
}
type SyncParams = ChatCompletionCreateParamsNonStreaming & Extensions;
type StreamParams = ChatCompletionCreateParamsStreaming & Extensions;

const ask = (model: string, extra: Omit<Partial<SyncParams>, 'stream'> = {}): SyncParams => ({ model, messages: [{ role: 'user', content: 'Why is the sky blue?' }], ...extra });

function lastBody(m: { requests: Array<{ body?: unknown }> }): Record<string, unknown> {
  return m.requests.at(-1)?.body as Record<string, unknown>;
}

/** Gemini's generationConfig.thinkingConfig of the last call. */
function geminiThinking(): unknown {
  return (lastBody(gemini).generationConfig as Record<string, unknown> | undefined)?.thinkingConfig;
}

describe('the /v1beta/openai/ base URL', () => {
  it('models: list and retrieve in the OpenAI shape', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(['gemini-2.5-flash', 'claude-sonnet-4-5', 'o4-mini', 'gpt-4o']));
    const one = await client.models.retrieve('gemini-2.5-flash');
    expect(one).toMatchObject({ id: 'gemini-2.5-flash', object: 'model' });
  });

  it.each([
    ['gemini-2.5-flash', () => gemini.requests],
    ['claude-sonnet-4-5', () => anthropic.requests],
    ['gpt-4o', () => openaiMock.requests],
  ])('chat completions with %s: sync and stream', async (model, upstreamRequests) => {
    const before = upstreamRequests().length;
    const sync = await client.chat.completions.create(ask(model));
    expect(sync.object).toBe('chat.completion');
    expect(sync.model).toContain(model);
    expect(sync.choices[0]?.message.content).toBeTruthy();
    expect(upstreamRequests().length).toBe(before + 1);
    const stream = await client.chat.completions.create({ ...ask(model), stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: number | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage.total_tokens;
    }
    expect(text).toBe(sync.choices[0]?.message.content);
    expect(usage).toBeGreaterThan(0);
    expect(upstreamRequests().length).toBe(before + 2);
  });

  it('errors are in the OpenAI shape (unknown model: 404)', async () => {
    const err = await client.chat.completions.create(ask('no-such-model')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).param).toBe('model');
  });
});

describe("Gemini's google.thinking_config", () => {
  it('at the top level: thinkingConfig reaches Gemini, and the thoughts come back as reasoning_content', async () => {
    const res = await client.chat.completions.create(ask('gemini-2.5-flash', { google: { thinking_config: { thinking_budget: 800, include_thoughts: true } } }));
    expect(geminiThinking()).toEqual({ thinkingBudget: 800, includeThoughts: true });
    expect((res.choices[0]?.message as { reasoning_content?: string }).reasoning_content).toContain('thinking');
  });

  it('under a literal extra_body key (the Python SDK nested extra_body), streamed', async () => {
    const params: StreamParams = { ...ask('gemini-2.5-flash'), stream: true, extra_body: { google: { thinking_config: { thinking_budget: 1200, include_thoughts: true } } } };
    let reasoning = '';
    for await (const chunk of await client.chat.completions.create(params)) reasoning += (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
    expect(geminiThinking()).toEqual({ thinkingBudget: 1200, includeThoughts: true });
    expect(reasoning).toContain('thinking');
  });

  it('reaches Anthropic as thinking, and an OpenAI reasoning model as reasoning_effort (the google key is not sent on)', async () => {
    await client.chat.completions.create(ask('claude-sonnet-4-5', { google: { thinking_config: { thinking_budget: 2048 } } }));
    expect(lastBody(anthropic).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    await client.chat.completions.create(ask('o4-mini', { google: { thinking_config: { thinking_budget: 20000 } } }));
    const sent = lastBody(openaiMock);
    expect(sent.reasoning_effort).toBe('high');
    expect(sent).not.toHaveProperty('google');
  });

  it('a model that does not think: not sent, and x-modelgate-warnings names google.thinking_config', async () => {
    const { response } = await client.chat.completions.create(ask('gpt-4o', { google: { thinking_config: { thinking_budget: 800 } } })).withResponse();
    const sent = lastBody(openaiMock);
    expect(sent).not.toHaveProperty('google');
    expect(sent).not.toHaveProperty('reasoning_effort');
    expect(response.headers.get('x-modelgate-warnings')).toContain('google.thinking_config: dropped');
  });

  it('thinking_budget together with reasoning_effort is a 400 naming the field (as Gemini refuses it)', async () => {
    const err = await client.chat.completions.create(ask('gemini-2.5-flash', { reasoning_effort: 'low', google: { thinking_config: { thinking_budget: 800 } } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('google.thinking_config.thinking_budget');
  });

  it('a malformed thinking_config is a 400 naming the field', async () => {
    const res = await fetch(`${server.url}/v1beta/openai/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask('gemini-2.5-flash'), google: { thinking_config: { thinking_budget: 'lots' } } }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { param: string; type: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'google.thinking_config.thinking_budget' });
  });
});

describe('other google settings', () => {
  it('cached_content reaches Gemini as cachedContent; another vendor reports it dropped, named as sent', async () => {
    const params = { ...ask('gemini-2.5-flash'), google: { cached_content: 'cachedContents/abc123' } } as SyncParams;
    await client.chat.completions.create(params);
    expect(lastBody(gemini).cachedContent).toBe('cachedContents/abc123');
    const { response } = await client.chat.completions.create({ ...params, model: 'gpt-4o' }).withResponse();
    expect(lastBody(openaiMock)).not.toHaveProperty('google');
    expect(response.headers.get('x-modelgate-warnings')).toBe('google.cached_content: dropped (not supported by openai)');
  });
});

describe('reasoning_effort', () => {
  it('becomes Gemini thinking (a budget on Gemini 2.5)', async () => {
    await client.chat.completions.create(ask('gemini-2.5-flash', { reasoning_effort: 'low' }));
    expect(geminiThinking()).toEqual({ thinkingBudget: 1024 });
  });
});

describe("Anthropic's thinking object", () => {
  it('reaches Anthropic as sent', async () => {
    const res = await client.chat.completions.create(ask('claude-sonnet-4-5', { thinking: { type: 'enabled', budget_tokens: 2000 } }));
    expect(lastBody(anthropic).thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
    expect(res.choices[0]?.message.content).toBeTruthy();
  });

  it('reaches Gemini as a thinking budget, streamed', async () => {
    const stream = await client.chat.completions.create({ ...ask('gemini-2.5-flash'), stream: true, thinking: { type: 'enabled', budget_tokens: 3000 } } as StreamParams);
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBeTruthy();
    expect(geminiThinking()).toEqual({ thinkingBudget: 3000 });
  });

  it('reaches an OpenAI reasoning model as reasoning_effort, without the thinking key', async () => {
    const { response } = await client.chat.completions.create(ask('o4-mini', { thinking: { type: 'enabled', budget_tokens: 2000 } })).withResponse();
    const sent = lastBody(openaiMock);
    expect(sent.reasoning_effort).toBe('low');
    expect(sent).not.toHaveProperty('thinking');
    expect(response.headers.get('x-modelgate-warnings')).toContain('thinking: budget 2000 sent as reasoning_effort low');
  });

  it('disabled turns Gemini thinking off', async () => {
    await client.chat.completions.create(ask('gemini-2.5-flash', { thinking: { type: 'disabled' } }));
    expect(geminiThinking()).toEqual({ thinkingBudget: 0 });
  });
});
