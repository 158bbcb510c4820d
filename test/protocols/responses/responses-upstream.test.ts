/**
 * Models marked `"api": "responses"` (OpenAI models only the Responses API serves): the official
 * openai (chat.completions), Anthropic (messages) and @google/genai (generateContent) SDKs against
 * the gateway on node:http with the shipped upstream client (createUndiciFetch), upstream = the
 * strict mock Responses API. Usage must equal what the mock reported.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import { createUndiciFetch } from '../../../node/upstream-fetch.js';
import { createGateway, type Gateway, type GatewayConfigInput } from '../../../src/index.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from '../../helpers/mock-openai-responses.js';

const KEY = 'mg-responses-upstream-key-01';

let mock: MockOpenAIResponses;
let gateway: Gateway;
let server: RunningServer;
let openai: OpenAI;
let anthropic: Anthropic;
let gemini: GoogleGenAI;

function config(m: MockOpenAIResponses): GatewayConfigInput {
  return {
    providers: [{ id: 'openai', type: 'openai', baseURL: m.baseURL, apiKey: m.apiKey }],
    models: [
      { id: 'codex', provider: 'openai', upstreamModel: 'gpt-5-codex', api: 'responses' },
      { id: 'resp-4.1', provider: 'openai', upstreamModel: 'gpt-4.1', api: 'responses' },
    ],
    keys: [{ id: 'all', key: KEY, models: ['*'] }],
    retry: { attempts: 1 },
  };
}

beforeAll(async () => {
  mock = await startMockOpenAIResponses();
  gateway = createGateway(config(mock), { fetch: createUndiciFetch() });
  server = await serve(gateway, { port: 0 });
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: server.url, apiKey: KEY, maxRetries: 0 });
  gemini = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await mock?.close();
});

type Json = Record<string, unknown>;
const lastBody = (): Json => mock.requests.at(-1)?.body as Json;
const SCRIPTED_USAGE = { input_tokens: 120, cached_tokens: 64, output_tokens: 30, reasoning_tokens: 12 };

const chatTools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { utc: { type: 'boolean' } } } } },
];

describe('OpenAI chat client -> Responses upstream', () => {
  it('answers text; the upstream gets a stateless Responses request on /v1/responses', async () => {
    const res = await openai.chat.completions.create({ model: 'resp-4.1', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello world' }] });
    expect(res.choices[0]?.message.content).toBe('[responses] you said: hello world');
    expect(res.choices[0]?.finish_reason).toBe('stop');
    expect(res.model).toBe('gpt-4.1-2025-08-07');
    expect(res.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } });
    const sent = mock.requests.at(-1);
    expect(sent?.path).toBe('/v1/responses');
    expect(sent?.headers.authorization).toBe(`Bearer ${mock.apiKey}`);
    expect(sent?.body).toEqual({ model: 'gpt-4.1', instructions: 'be brief', input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello world' }] }], store: false });
  });

  it('streams text word by word with the usage chunk', async () => {
    const stream = await openai.chat.completions.create({ model: 'resp-4.1', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream me' }] });
    const deltas: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) deltas.push(chunk.choices[0].delta.content);
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(deltas).toEqual(['[responses]', ' you', ' said:', ' stream', ' me']);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(lastBody()).toMatchObject({ stream: true, store: false });
  });

  it('runs a parallel tool round trip on a reasoning model (flattened tools, call ids kept)', async () => {
    const first = await openai.chat.completions.create({ model: 'codex', tools: chatTools, messages: [{ role: 'user', content: 'weather and time?' }] });
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    const calls = first.choices[0]?.message.tool_calls ?? [];
    expect(calls.map((c) => (c.type === 'function' ? [c.id, c.function.name, JSON.parse(c.function.arguments)] : []))).toEqual([
      ['call_1', 'get_weather', { city: 'Paris' }],
      ['call_2', 'get_time', { utc: true }],
    ]);
    expect(lastBody()).toMatchObject({
      include: ['reasoning.encrypted_content'],
      tools: [
        { type: 'function', name: 'get_weather', parameters: chatTools[0]?.type === 'function' ? chatTools[0].function.parameters : {}, strict: false },
        { type: 'function', name: 'get_time', strict: false },
      ],
    });
    const next = await openai.chat.completions.create({
      model: 'codex',
      tools: chatTools,
      messages: [
        { role: 'user', content: 'weather and time?' },
        first.choices[0]?.message as OpenAI.ChatCompletionMessageParam,
        { role: 'tool', tool_call_id: 'call_1', content: '18C' },
        { role: 'tool', tool_call_id: 'call_2', content: 'noon' },
      ],
    });
    expect(next.choices[0]?.message.content).toBe('[responses] tool results: 18C; noon');
    const input = lastBody().input as Json[];
    expect(input.map((i) => [i.type, i.call_id ?? null])).toEqual([
      ['message', null],
      ['function_call', 'call_1'],
      ['function_call', 'call_2'],
      ['function_call_output', 'call_1'],
      ['function_call_output', 'call_2'],
    ]);
  });

  it('streams tool calls: one start per call, arguments as deltas', async () => {
    const stream = await openai.chat.completions.create({ model: 'resp-4.1', stream: true, tools: chatTools, messages: [{ role: 'user', content: 'go' }] });
    const starts: Array<[number, string | undefined, string | undefined]> = [];
    const args = ['', ''];
    let fragments = 0;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
        if (tc.id) starts.push([tc.index, tc.id, tc.function?.name]);
        if (tc.function?.arguments) {
          fragments++;
          args[tc.index] += tc.function.arguments;
        }
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(starts).toEqual([[0, 'call_1', 'get_weather'], [1, 'call_2', 'get_time']]);
    expect(args.map((a) => JSON.parse(a) as unknown)).toEqual([{ city: 'Paris' }, { utc: true }]);
    expect(fragments).toBe(4);
    expect(finish).toBe('tool_calls');
  });

  it('maps a token cut-off (incomplete, max_output_tokens) to finish_reason length', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    const res = await openai.chat.completions.create({ model: 'resp-4.1', max_tokens: 16, messages: [{ role: 'user', content: long }] });
    expect(res.choices[0]?.finish_reason).toBe('length');
    expect(res.choices[0]?.message.content?.split(' ')).toHaveLength(16);
    expect(lastBody().max_output_tokens).toBe(16);
  });

  it('reports usage exactly as the upstream did, cached and reasoning tokens included (sync and stream)', async () => {
    const expected = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, prompt_tokens_details: { cached_tokens: 64 }, completion_tokens_details: { reasoning_tokens: 12 } };
    mock.scriptNext({ usage: SCRIPTED_USAGE });
    const res = await openai.chat.completions.create({ model: 'codex', messages: [{ role: 'user', content: 'x' }] });
    expect(res.usage).toEqual(expected);
    mock.scriptNext({ usage: SCRIPTED_USAGE });
    const stream = await openai.chat.completions.create({ model: 'codex', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'x' }] });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage).toEqual(expected);
  });

  it('reports upstream failures in the OpenAI shape: an HTTP error, a failed response, a failure mid-stream', async () => {
    mock.failNext(429, { error: { message: 'Rate limit reached for gpt-5-codex', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
    await expect(openai.chat.completions.create({ model: 'codex', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 429, message: expect.stringContaining('Rate limit reached') });
    mock.scriptNext({ status: 'failed', error: { code: 'server_error', message: 'upstream exploded' } });
    await expect(openai.chat.completions.create({ model: 'codex', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 502, message: expect.stringContaining('upstream exploded') });
    mock.scriptNext({ streamError: { code: 'server_error', message: 'broke mid-stream' } });
    const stream = await openai.chat.completions.create({ model: 'resp-4.1', stream: true, messages: [{ role: 'user', content: 'a b c' }] });
    const read = async (): Promise<string> => {
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      return text;
    };
    await expect(read()).rejects.toThrow(/broke mid-stream/);
    mock.breakStreamNext();
    const cut = await openai.chat.completions.create({ model: 'resp-4.1', stream: true, messages: [{ role: 'user', content: 'a b c' }] });
    await expect((async () => { for await (const _ of cut) { /* drain */ } })()).rejects.toThrow();
  });

  it('answers 400 naming the field for what the Responses API cannot do', async () => {
    const before = mock.requests.length;
    await expect(openai.chat.completions.create({ model: 'resp-4.1', stop: ['END'], messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 400, param: 'stop' });
    expect(mock.requests.length).toBe(before);
  });
});

const anthropicTools: Anthropic.Tool[] = [
  { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
  { name: 'get_time', input_schema: { type: 'object', properties: { utc: { type: 'boolean' } } } },
];

describe('Anthropic Messages client -> Responses upstream', () => {
  it('answers text (sync and stream)', async () => {
    const msg = await anthropic.messages.create({ model: 'resp-4.1', max_tokens: 200, system: 'be brief', messages: [{ role: 'user', content: 'hello there' }] });
    expect(msg.content).toEqual([{ type: 'text', text: '[responses] you said: hello there' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0 });
    expect(lastBody()).toMatchObject({ instructions: 'be brief', max_output_tokens: 200, store: false });
    const final = await anthropic.messages.stream({ model: 'resp-4.1', max_tokens: 200, messages: [{ role: 'user', content: 'stream this' }] }).finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: '[responses] you said: stream this' }]);
    expect(final.usage.output_tokens).toBe(5);
  });

  for (const mode of ['sync', 'stream'] as const) {
    it(`replays OpenAI reasoning through thinking signatures across a tool round trip (${mode})`, async () => {
      const params = { model: 'codex', max_tokens: 4096, thinking: { type: 'enabled' as const, budget_tokens: 2048 }, tools: anthropicTools, messages: [{ role: 'user' as const, content: 'weather and time?' }] };
      const first = mode === 'sync' ? await anthropic.messages.create(params) : await anthropic.messages.stream(params).finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      expect(first.content.map((b) => b.type)).toEqual(['thinking', 'tool_use', 'tool_use']);
      const thinking = first.content[0] as Anthropic.ThinkingBlock;
      expect(thinking.thinking).toBe('Planning the answer.');
      expect(thinking.signature).toMatch(/^openai-responses:rs_mock\d+_0:gAAAAA/);
      expect(lastBody()).toMatchObject({ reasoning: { effort: 'low', summary: 'auto' }, include: ['reasoning.encrypted_content'], store: false });
      const ids = first.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      expect(ids).toEqual(['call_1', 'call_2']);
      const next = await anthropic.messages.create({
        ...params,
        messages: [
          ...params.messages,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '18C' }, { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'noon' }] }] },
        ],
      });
      expect(next.content.at(-1)).toEqual({ type: 'text', text: '[responses] tool results: 18C; noon' });
      const input = lastBody().input as Json[];
      const reasoning = input.find((i) => i.type === 'reasoning');
      // The encrypted content goes back exactly as the upstream issued it (the strict mock verifies it).
      expect(mock.issuedEncrypted.has(String(reasoning?.encrypted_content))).toBe(true);
      expect(reasoning).toMatchObject({ id: expect.stringMatching(/^rs_/), summary: [{ type: 'summary_text', text: 'Planning the answer.' }] });
      expect(input.map((i) => i.type)).toEqual(['message', 'reasoning', 'function_call', 'function_call', 'function_call_output', 'function_call_output']);
    });
  }

  it('reports usage as the upstream did (cache reads split out, Anthropic style)', async () => {
    mock.scriptNext({ usage: SCRIPTED_USAGE });
    const msg = await anthropic.messages.create({ model: 'codex', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] });
    expect(msg.usage).toMatchObject({ input_tokens: 56, cache_read_input_tokens: 64, output_tokens: 30 });
    mock.scriptNext({ usage: SCRIPTED_USAGE });
    const final = await anthropic.messages.stream({ model: 'codex', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
    expect(final.usage).toMatchObject({ cache_read_input_tokens: 64, output_tokens: 30 });
  });
});

describe('Gemini client -> Responses upstream', () => {
  it('answers text with usage metadata (sync)', async () => {
    const res = await gemini.models.generateContent({ model: 'codex', contents: 'hello gemini', config: { systemInstruction: 'be brief', maxOutputTokens: 300 } });
    expect(res.text).toBe('[responses] you said: hello gemini');
    expect(res.candidates?.[0]?.finishReason).toBe('STOP');
    // The reasoning model spent 8 reasoning tokens: they are thoughts, not candidates.
    expect(res.usageMetadata).toMatchObject({ promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 8, totalTokenCount: 23 });
    expect(lastBody()).toMatchObject({ model: 'gpt-5-codex', instructions: 'be brief', max_output_tokens: 300, store: false });
  });

  it('streams text and reports the upstream usage exactly', async () => {
    mock.scriptNext({ usage: SCRIPTED_USAGE });
    const stream = await gemini.models.generateContentStream({ model: 'resp-4.1', contents: 'stream gemini' });
    let text = '';
    let usage: Record<string, unknown> | undefined;
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      if (chunk.usageMetadata) usage = chunk.usageMetadata as Record<string, unknown>;
    }
    expect(text).toBe('[responses] you said: stream gemini');
    expect(usage).toMatchObject({ promptTokenCount: 120, candidatesTokenCount: 18, thoughtsTokenCount: 12, cachedContentTokenCount: 64, totalTokenCount: 150 });
    expect(lastBody()).toMatchObject({ model: 'gpt-4.1', stream: true });
  });

  it('calls functions and finishes a token cut-off with MAX_TOKENS', async () => {
    const res = await gemini.models.generateContent({
      model: 'resp-4.1',
      contents: 'weather?',
      config: { tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }] },
    });
    expect(res.functionCalls?.map((c) => [c.name, c.args])).toEqual([['get_weather', { city: 'Paris' }]]);
    const long = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    const cut = await gemini.models.generateContent({ model: 'resp-4.1', contents: long, config: { maxOutputTokens: 16 } });
    expect(cut.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
  });
});

describe('"api": "responses" in the config', () => {
  it('is refused for providers without a Responses API', () => {
    expect(() =>
      createGateway({
        providers: [{ id: 'claude', type: 'anthropic', apiKey: 'k' }],
        models: [{ id: 'c', provider: 'claude', api: 'responses' }],
      }),
    ).toThrow(/models\[0\]\.api|models\.0\.api/);
  });

  it('leaves other models of the same provider on Chat Completions', async () => {
    const g = createGateway({ ...config(mock), models: [...config(mock).models!, { id: 'gpt-4o', provider: 'openai' }] }, { fetch: createUndiciFetch() });
    const res = await g.handle(new Request('http://gw/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }) }));
    // The Responses mock serves no /chat/completions: reaching it there proves the chat path was used.
    expect(res.status).toBe(404);
    expect(mock.requests.at(-1)?.path).toBe('/v1/chat/completions');
    await g.close();
  });
});
