/**
 * The Gemini codec as an upstream: the official openai and @anthropic-ai/sdk clients against the
 * gateway, with the strict mock Gemini behind it (Gemini 3 checks thought signatures).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEMINI_KEY_ALL, startGeminiTestbed, type GeminiTestbed } from '../../helpers/gemini-gateway.js';

let tb: GeminiTestbed;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  tb = await startGeminiTestbed();
  openai = new OpenAI({ baseURL: `${tb.server.url}/v1`, apiKey: GEMINI_KEY_ALL, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: tb.server.url, apiKey: GEMINI_KEY_ALL, maxRetries: 0 });
});
afterAll(async () => {
  await tb?.close();
});

type GeminiBody = { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }>; generationConfig?: Record<string, unknown>; systemInstruction?: unknown; tools?: unknown };
const lastGeminiBody = (): GeminiBody => tb.gemini.requests.at(-1)!.body as GeminiBody;

const tools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } },
];

describe('OpenAI client -> Gemini upstream', () => {
  it('answers with usage and sends Gemini what it expects', async () => {
    const r = await openai.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello gemini' }],
      max_tokens: 50,
      stop: ['zzz'],
    });
    expect(r.choices[0]?.message.content).toBe('[gemini] you said: hello gemini');
    expect(r.choices[0]?.finish_reason).toBe('stop');
    expect(r.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(lastGeminiBody()).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'hello gemini' }] }],
      systemInstruction: { parts: [{ text: 'be brief' }] },
      generationConfig: { maxOutputTokens: 50, stopSequences: ['zzz'] },
    });
    expect(tb.gemini.requests.at(-1)!.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
  });

  it('streams text and usage', async () => {
    const stream = await openai.chat.completions.create({ model: 'flash-alias', messages: [{ role: 'user', content: 'one two' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    let finish: string | null | undefined;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
      if (c.usage) usage = c.usage;
    }
    expect(text).toBe('[gemini] you said: one two');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
    expect(tb.gemini.requests.at(-1)!.path).toBe('/v1beta/models/gemini-2.0-flash:streamGenerateContent');
  });

  it('tool calls on Gemini 3 with thinking: the signature survives the round trip through tool call ids', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'weather in Paris?' }];
    const stream = await openai.chat.completions.create({ model: 'gemini-3-pro-preview', messages, tools, reasoning_effort: 'low', stream: true });
    const calls: Array<{ id: string; name: string; args: string }> = [];
    let finish: string | null | undefined;
    for await (const c of stream) {
      for (const tc of c.choices[0]?.delta.tool_calls ?? []) {
        if (tc.id) calls[tc.index] = { id: tc.id, name: tc.function?.name ?? '', args: '' };
        calls[tc.index]!.args += tc.function?.arguments ?? '';
      }
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(calls.map((c) => [c.name, JSON.parse(c.args)])).toEqual([['get_weather', { city: 'Paris' }]]);
    expect(lastGeminiBody().generationConfig).toEqual({ thinkingConfig: { thinkingLevel: 'LOW' } });
    messages.push({ role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) });
    messages.push({ role: 'tool', tool_call_id: calls[0]!.id, content: 'sunny, 18C' });
    const r = await openai.chat.completions.create({ model: 'gemini-3-pro-preview', messages, tools, reasoning_effort: 'low' });
    expect(r.choices[0]?.message.content).toBe('[gemini] tool results: sunny, 18C');
    const sent = lastGeminiBody().contents;
    expect(sent[1]).toEqual({
      role: 'model',
      parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: Buffer.from('mock-thought-signature:get_weather').toString('base64') }],
    });
    expect(sent[2]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny, 18C' } } }] });
  });

  it('images and PDFs become inlineData; MAX_TOKENS becomes length', async () => {
    const r = await openai.chat.completions.create({
      model: 'gemini-2.5-flash',
      max_tokens: 3,
      messages: [{ role: 'user', content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQK', filename: 'a.pdf' } },
      ] }],
    });
    expect(r.choices[0]?.message.content).toBe('[gemini] you said:');
    expect(r.choices[0]?.finish_reason).toBe('length');
    expect(lastGeminiBody().contents[0]!.parts).toEqual([
      { text: 'look' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0xLjQK' } },
    ]);
  });

  it('a refused gateway key (400 API_KEY_INVALID) is a 502 naming the provider, without the upstream key', async () => {
    tb.gemini.failNext(400, { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] } });
    const err = await openai.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((err as Error).message).toContain("refused the gateway's credential (400): API key not valid.");
    expect((err as Error).message).not.toContain(tb.gemini.apiKey);
  });
});

describe('Anthropic client -> Gemini upstream', () => {
  it('text, tool use and tool results', async () => {
    const weather: Anthropic.Tool = { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
    const first = await anthropic.messages.create({ model: 'gemini-2.5-flash', max_tokens: 200, messages: [{ role: 'user', content: 'weather?' }], tools: [weather] });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
    const second = await anthropic.messages.create({
      model: 'gemini-2.5-flash',
      max_tokens: 200,
      tools: [weather],
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'rainy' }] },
      ],
    });
    expect(second.content[0]).toMatchObject({ type: 'text', text: '[gemini] tool results: rainy' });
    expect(second.usage).toMatchObject({ input_tokens: 30, output_tokens: 4 });
    expect(lastGeminiBody().contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
  });
});
