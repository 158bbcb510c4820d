/**
 * Pass-through streams report why the model stopped: the client span of the relayed stream (and
 * the server span) carry `gen_ai.response.finish_reasons`, and the onResponse hook event carries
 * `finishReason` ({unified, raw}), read from the events the relay already looks at, for each
 * protocol: OpenAI chat `finish_reason`, Anthropic `stop_reason`, Gemini `finishReason`, Responses
 * status / incomplete reason, Interactions status. Sync pass-through and translated answers too.
 */
import { SpanKind, type Attributes } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type ResponseEvent } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from '../helpers/mock-openai-responses.js';

const KEY = 'mg-finish-reasons-key-0001';
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const events: ResponseEvent[] = [];

let openai: MockOpenAI;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let responses: MockOpenAIResponses;
let gateway: Gateway;

beforeAll(async () => {
  [openai, anthropic, gemini, responses] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini(), startMockOpenAIResponses()]);
  gateway = createGateway(
    {
      providers: [
        { id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
        { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
        { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
        { id: 'responses', type: 'openai', baseURL: responses.baseURL, apiKey: responses.apiKey },
      ],
      models: [
        { id: 'gpt-4o', provider: 'openai' },
        { id: 'claude', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5' },
        { id: 'gemini', provider: 'google', upstreamModel: 'gemini-2.5-flash' },
        { id: 'gpt-4.1', provider: 'responses' },
      ],
      retry: { attempts: 1 },
      keys: [{ id: 'all', key: KEY, models: ['*'] }],
    },
    { telemetry: { tracerProvider }, hooks: { onResponse: (e) => void events.push(e) } },
  );
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close(), responses?.close()]);
});
beforeEach(() => {
  exporter.reset();
  events.length = 0;
});

const LONG = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

async function call(path: string, body: Record<string, unknown>): Promise<string> {
  const res = await gateway.handle(
    new Request(`http://gw.test${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  expect(res.status).toBe(200);
  return res.text();
}

/** The finish reasons on the client span, the server span and the hook event of the one request made. */
async function observed(): Promise<{ client: Attributes; server: Attributes; event: ResponseEvent }> {
  await tracerProvider.forceFlush();
  // The hook fires when the response completes; the spans end then too.
  await expect.poll(() => events.length).toBe(1);
  const spans = exporter.getFinishedSpans();
  const client = spans.filter((s) => s.kind === SpanKind.CLIENT);
  const server = spans.filter((s) => s.kind === SpanKind.SERVER);
  expect(client).toHaveLength(1);
  expect(server).toHaveLength(1);
  return { client: client[0]!.attributes, server: server[0]!.attributes, event: events[0]! };
}

async function expectFinish(raw: string, unified: string, passthrough = true): Promise<void> {
  const { client, server, event } = await observed();
  expect(server['modelgate.passthrough']).toBe(passthrough);
  expect(client['gen_ai.response.finish_reasons']).toEqual([raw]);
  expect(server['gen_ai.response.finish_reasons']).toEqual([raw]);
  expect(event.finishReason).toMatchObject({ unified, raw });
}

describe('pass-through streams: finish reasons reach the client span and the hook', () => {
  it('OpenAI chat: stop, tool_calls, length', async () => {
    await call('/v1/chat/completions', { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    await expectFinish('stop', 'stop');
    exporter.reset();
    events.length = 0;
    await call('/v1/chat/completions', { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'weather?' }], tools: [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER } }] });
    await expectFinish('tool_calls', 'tool-calls');
    exporter.reset();
    events.length = 0;
    await call('/v1/chat/completions', { model: 'gpt-4o', stream: true, max_tokens: 3, messages: [{ role: 'user', content: LONG }] });
    await expectFinish('length', 'length');
  });

  it('Anthropic: end_turn, tool_use, max_tokens', async () => {
    await call('/v1/messages', { model: 'claude', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    await expectFinish('end_turn', 'stop');
    exporter.reset();
    events.length = 0;
    await call('/v1/messages', { model: 'claude', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'weather?' }], tools: [{ name: 'get_weather', input_schema: WEATHER }] });
    await expectFinish('tool_use', 'tool-calls');
    exporter.reset();
    events.length = 0;
    await call('/v1/messages', { model: 'claude', max_tokens: 3, stream: true, messages: [{ role: 'user', content: LONG }] });
    await expectFinish('max_tokens', 'length');
  });

  it('Gemini (SSE and JSON-array streams): STOP, STOP with a function call, MAX_TOKENS', async () => {
    await call('/v1beta/models/gemini:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    await expectFinish('STOP', 'stop');
    exporter.reset();
    events.length = 0;
    await call('/v1beta/models/gemini:streamGenerateContent', { contents: [{ role: 'user', parts: [{ text: 'weather?' }] }], tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: WEATHER }] }] });
    await expectFinish('STOP', 'tool-calls');
    exporter.reset();
    events.length = 0;
    await call('/v1beta/models/gemini:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: LONG }] }], generationConfig: { maxOutputTokens: 3 } });
    await expectFinish('MAX_TOKENS', 'length');
  });

  it('Responses: completed, completed with a function call, incomplete (max_output_tokens)', async () => {
    await call('/v1/responses', { model: 'gpt-4.1', stream: true, input: 'hi' });
    await expectFinish('completed', 'stop');
    exporter.reset();
    events.length = 0;
    await call('/v1/responses', { model: 'gpt-4.1', stream: true, input: 'weather?', tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER }] });
    await expectFinish('completed', 'tool-calls');
    exporter.reset();
    events.length = 0;
    await call('/v1/responses', { model: 'gpt-4.1', stream: true, input: LONG, max_output_tokens: 16 });
    await expectFinish('max_output_tokens', 'length');
  });

  it('Interactions (Gemini): completed, requires_action', async () => {
    await call('/v1beta/interactions', { model: 'gemini', stream: true, input: 'hi' });
    await expectFinish('completed', 'stop');
    exporter.reset();
    events.length = 0;
    await call('/v1beta/interactions', { model: 'gemini', stream: true, input: 'weather?', tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER }] });
    await expectFinish('requires_action', 'tool-calls');
  });

  it('the relayed bytes are the upstream events as sent (Anthropic: every event name and payload kept)', async () => {
    const text = await call('/v1/messages', { model: 'claude', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(text).toContain('event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"');
    await expectFinish('end_turn', 'stop');
  });
});

describe('the hook event has the finish reason on every path', () => {
  it('sync pass-through (each protocol)', async () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, 'stop', 'stop'],
      ['/v1/messages', { model: 'claude', max_tokens: 3, messages: [{ role: 'user', content: LONG }] }, 'max_tokens', 'length'],
      ['/v1beta/models/gemini:generateContent', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, 'STOP', 'stop'],
      ['/v1/responses', { model: 'gpt-4.1', input: LONG, max_output_tokens: 16 }, 'max_output_tokens', 'length'],
      ['/v1beta/interactions', { model: 'gemini', input: 'weather?', tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER }] }, 'requires_action', 'tool-calls'],
    ];
    for (const [path, body, raw, unified] of cases) {
      exporter.reset();
      events.length = 0;
      await call(path, body);
      const { client, event } = await observed();
      expect(event.finishReason, path).toMatchObject({ unified, raw });
      expect(client['gen_ai.response.finish_reasons'], path).toBeDefined();
    }
  });

  it('translated stream (Anthropic client, Gemini upstream)', async () => {
    await call('/v1/messages', { model: 'gemini', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    await expectFinish('STOP', 'stop', false);
  });
});
