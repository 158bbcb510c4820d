/** The official openai npm client against the gateway (node:http adapter), upstream = strict mock OpenAI. */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import type { Gateway } from '../../../src/index.js';
import { KEY_ALL, openAIConfig } from '../../helpers/gateway-config.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';
import { startMockAnthropic } from '../../helpers/mock-anthropic.js';
import { startMockGemini } from '../../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';

let mock: MockOpenAI;
let gateway: Gateway;
let server: RunningServer;
let client: OpenAI;

beforeAll(async () => {
  mock = await startMockOpenAI();
  gateway = createShippedGateway(openAIConfig(mock));
  server = await serve(gateway, { port: 0 });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY_ALL, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await mock?.close();
});

const weatherTools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { utc: { type: 'boolean' } } } } },
];

describe('sync', () => {
  it('returns the upstream answer with the concrete upstream model, usage and traceId', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello world' }], temperature: 0.5 })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.model).toBe('gpt-4o-2024-08-06');
    expect(data.choices[0]?.message).toMatchObject({ role: 'assistant', content: '[openai] you said: hello world' });
    expect(data.choices[0]?.finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect((data as unknown as { traceId: string }).traceId).toBe(response.headers.get('x-trace-id'));
    // The upstream got the client's body with only the model rewritten.
    const sent = mock.requests.at(-1)?.body as Record<string, unknown>;
    expect(sent).toEqual({ model: 'gpt-4o', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello world' }], temperature: 0.5 });
  });

  it('rewrites the model to the configured upstream model', async () => {
    const data = await client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] });
    expect((mock.requests.at(-1)?.body as { model: string }).model).toBe('llama-3.1-8b');
    expect(data.model).toBe('llama-3.1-8b-2024-08-06');
  });

  it('routes providerId/upstreamModel ids straight to that provider', async () => {
    const data = await client.chat.completions.create({ model: 'local/qwen2.5-7b', messages: [{ role: 'user', content: 'direct' }] });
    expect((mock.requests.at(-1)?.body as { model: string }).model).toBe('qwen2.5-7b');
    expect(data.choices[0]?.message.content).toBe('[openai] you said: direct');
  });

  it('returns parallel tool calls and accepts tool results in the next turn', async () => {
    const first = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'weather?' }], tools: weatherTools });
    const msg = first.choices[0]?.message;
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(msg?.tool_calls?.map((c) => (c.type === 'function' ? [c.id, c.function.name, JSON.parse(c.function.arguments)] : null))).toEqual([
      ['call_1', 'get_weather', { city: 'Paris', days: 1 }],
      ['call_2', 'get_time', { utc: true }],
    ]);
    const second = await client.chat.completions.create({
      model: 'gpt-4o',
      tools: weatherTools,
      messages: [
        { role: 'user', content: 'weather?' },
        msg as OpenAI.ChatCompletionAssistantMessageParam,
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'call_2', content: 'noon' },
      ],
    });
    expect(second.choices[0]?.message.content).toBe('[openai] tool results: sunny; noon');
  });
});

describe('stream', () => {
  it('relays chunks and the usage chunk only when asked', async () => {
    const withUsage = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream me please' }],
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of withUsage) chunks.push(c);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('[openai] you said: stream me please');
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 6 });
    expect(new Set(chunks.map((c) => c.model))).toEqual(new Set(['gpt-4o-2024-08-06']));

    const noUsage = await client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'again' }] });
    const rest: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of noUsage) rest.push(c);
    expect(rest.every((c) => c.choices.length === 1 && !c.usage)).toBe(true);
    expect(rest.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    // The gateway asked the upstream for usage anyway (to account for it), then dropped that chunk.
    expect((mock.requests.at(-1)?.body as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
  });

  it('works with the .stream() helper, including tool calls', async () => {
    const runner = client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'helper text' }] });
    const deltas: string[] = [];
    runner.on('content', (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('[openai] you said: helper text');
    expect(deltas.join('')).toBe('[openai] you said: helper text');
    expect(deltas.length).toBe(5);

    const tools = client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'tools' }], tools: weatherTools });
    const done: string[] = [];
    tools.on('tool_calls.function.arguments.done', (ev) => done.push(`${ev.name}:${ev.arguments}`));
    const toolFinal = await tools.finalChatCompletion();
    expect(toolFinal.choices[0]?.finish_reason).toBe('tool_calls');
    expect(toolFinal.choices[0]?.message.tool_calls?.map((c) => (c.type === 'function' ? c.function.arguments : ''))).toEqual([
      '{"city":"Paris","days":1}',
      '{"utc":true}',
    ]);
    expect(done).toEqual(['get_weather:{"city":"Paris","days":1}', 'get_time:{"utc":true}']);
  });

  it('ends the raw stream with data: [DONE] and carries x-trace-id', async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json', 'request-id': 'caller-req-7' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'raw' }] }),
    });
    expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers.get('request-id')).toBe('caller-req-7');
    const text = await res.text();
    const events = text.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(events.every((e) => e.startsWith('data: '))).toBe(true);
  });

  it('stops on max_tokens with finish_reason length and honours stop sequences', async () => {
    const limited = await client.chat.completions.create({ model: 'gpt-4o', max_tokens: 4, messages: [{ role: 'user', content: 'a b c d e' }] });
    expect(limited.choices[0]?.message.content).toBe('[openai] you said: a');
    expect(limited.choices[0]?.finish_reason).toBe('length');
    const stopped = await client.chat.completions.create({ model: 'gpt-4o', stop: ['STOP'], messages: [{ role: 'user', content: 'one STOP two' }] });
    expect(stopped.choices[0]?.message.content).toBe('[openai] you said: one ');
    expect(stopped.choices[0]?.finish_reason).toBe('stop');
  });
});

describe('translated upstreams (OpenAI client -> Anthropic / Gemini)', () => {
  it('max_tokens defaults to 4096 only where the upstream needs one (Anthropic), and an explicit value is kept', async () => {
    const anthropic = await startMockAnthropic();
    const gemini = await startMockGemini();
    const gw = createShippedGateway({
      providers: [
        { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
        { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
      ],
      models: [
        { id: 'claude', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5' },
        { id: 'gem', provider: 'google', upstreamModel: 'gemini-2.5-flash' },
      ],
      keys: [{ id: 'k', key: KEY_ALL }],
    });
    const srv = await serve(gw, { port: 0 });
    try {
      const c = new OpenAI({ baseURL: `${srv.url}/v1`, apiKey: KEY_ALL, maxRetries: 0 });
      const a = await c.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'default budget' }] });
      expect(a.choices[0]?.message.content).toBe('[anthropic] you said: default budget');
      expect((anthropic.requests.at(-1)?.body as { max_tokens: number }).max_tokens).toBe(4096);
      await c.chat.completions.create({ model: 'claude', max_tokens: 77, messages: [{ role: 'user', content: 'x' }] });
      expect((anthropic.requests.at(-1)?.body as { max_tokens: number }).max_tokens).toBe(77);

      const g = await c.chat.completions.create({ model: 'gem', messages: [{ role: 'user', content: 'default budget' }] });
      expect(g.choices[0]?.message.content).toBe('[gemini] you said: default budget');
      const gen = (gemini.requests.at(-1)?.body as { generationConfig?: { maxOutputTokens?: number; max_output_tokens?: number } }).generationConfig;
      // Gemini has its own default: none is invented for it (on Gemini 2.5 thinking counts against the cap).
      expect(gen?.maxOutputTokens ?? gen?.max_output_tokens).toBeUndefined();
      await c.chat.completions.create({ model: 'gem', max_completion_tokens: 55, messages: [{ role: 'user', content: 'x' }] });
      const capped = (gemini.requests.at(-1)?.body as { generationConfig?: { maxOutputTokens?: number } }).generationConfig;
      expect(capped?.maxOutputTokens).toBe(55);
    } finally {
      await srv.close();
      await gw.close();
      await anthropic.close();
      await gemini.close();
    }
  });
});
