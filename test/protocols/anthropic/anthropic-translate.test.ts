/** The official @anthropic-ai/sdk against the gateway, upstream = strict mock OpenAI (translated through the IR). */
import Anthropic from '@anthropic-ai/sdk';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_AND_PDF_MESSAGE, postRaw, startAnthropicHarness, WEATHER_TOOLS, weatherToolResults, type AnthropicHarness } from '../../helpers/anthropic-gateway.js';

let h: AnthropicHarness;
beforeAll(async () => {
  h = await startAnthropicHarness();
});
afterAll(() => h.close());

const lastOpenAIBody = (): Record<string, unknown> => h.openai.requests.at(-1)?.body as Record<string, unknown>;

describe('sync', () => {
  it('translates a text request and answers in Anthropic shape with usage', async () => {
    // temperature is deprecated in the SDK's types but still part of the wire format.
    const params = {
      model: 'claude-gpt',
      max_tokens: 100,
      system: [{ type: 'text' as const, text: 'be brief', cache_control: { type: 'ephemeral' as const } }],
      temperature: 0.3,
      metadata: { user_id: 'user-7' },
      messages: [{ role: 'user' as const, content: 'hello world' }],
    };
    const msg = await h.client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming);
    expect(msg).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o-2024-08-06',
      content: [{ type: 'text', text: '[openai] you said: hello world' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    });
    expect(msg.id).toMatch(/^msg_/);
    expect(lastOpenAIBody()).toEqual({
      model: 'gpt-4o',
      messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello world' }],
      max_completion_tokens: 100,
      temperature: 0.3,
      user: 'user-7',
    });
    expect(h.openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${h.openai.apiKey}`);
  });

  it('runs a tool round trip (tool_use ids, parsed input, grouped tool results)', async () => {
    const first = await h.client.messages.create({ model: 'claude-gpt', max_tokens: 100, tools: WEATHER_TOOLS, tool_choice: { type: 'auto' }, messages: [{ role: 'user', content: 'weather?' }] });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: 1 } },
      { type: 'tool_use', id: 'call_2', name: 'get_time', input: { utc: true } },
    ]);
    expect(first.usage.output_tokens).toBe(10);
    const next = await h.client.messages.create({
      model: 'claude-gpt',
      max_tokens: 100,
      tools: WEATHER_TOOLS,
      messages: weatherToolResults(first.content, ['call_1', 'call_2']),
    });
    expect(next.content).toEqual([{ type: 'text', text: '[openai] tool results: 18C; noon' }]);
    const sent = lastOpenAIBody().messages as Array<Record<string, unknown>>;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(sent[1]).toMatchObject({ tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Paris","days":1}' } }, { id: 'call_2' }] });
  });

  it('takes image and PDF input, max_tokens and stop sequences', async () => {
    const media = await h.client.messages.create({
      model: 'claude-gpt',
      max_tokens: 100,
      messages: [IMAGE_AND_PDF_MESSAGE],
    });
    expect(media.content).toEqual([{ type: 'text', text: '[openai] you said: Describe [image] [pdf]' }]);
    const cut = await h.client.messages.create({ model: 'claude-gpt', max_tokens: 3, messages: [{ role: 'user', content: 'one two three' }] });
    expect(cut).toMatchObject({ stop_reason: 'max_tokens', content: [{ text: '[openai] you said:' }], usage: { output_tokens: 3 } });
    const stopped = await h.client.messages.create({ model: 'claude-gpt', max_tokens: 100, stop_sequences: ['said'], messages: [{ role: 'user', content: 'x' }] });
    // OpenAI does not say which stop sequence matched, so the answer is cut but ends as end_turn.
    expect(stopped).toMatchObject({ stop_reason: 'end_turn', content: [{ text: '[openai] you ' }] });
    expect(lastOpenAIBody().stop).toEqual(['said']);
  });
});

describe('streams', () => {
  it('streams text that messages.stream().finalMessage() assembles', async () => {
    const stream = h.client.messages.stream({ model: 'claude-gpt', max_tokens: 100, messages: [{ role: 'user', content: 'stream me' }] });
    const types: string[] = [];
    stream.on('streamEvent', (ev) => types.push(ev.type));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: '[openai] you said: stream me', citations: null }].map(({ citations: _c, ...b }) => expect.objectContaining(b)));
    expect(final).toMatchObject({ model: 'gpt-4o-2024-08-06', stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 5 } });
    expect(types[0]).toBe('message_start');
    expect(types.filter((t) => t === 'content_block_delta')).toHaveLength(5);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(lastOpenAIBody()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('streams parallel tool calls as separate tool_use blocks', async () => {
    const final = await h.client.messages.stream({ model: 'claude-gpt', max_tokens: 100, tools: WEATHER_TOOLS, messages: [{ role: 'user', content: 'go' }] }).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: 1 } },
      { type: 'tool_use', id: 'call_2', name: 'get_time', input: { utc: true } },
    ]);
  });

  it('ends with an `event: error` frame when the upstream stream breaks', async () => {
    h.openai.breakStreamNext();
    const res = await postRaw(h, '/v1/messages', JSON.stringify({ model: 'claude-gpt', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'a b c d e f' }] }));
    const text = await res.text();
    expect(res.status).toBe(200);
    // (The mock resets the socket, so events written just before may or may not arrive.)
    const last = text.trimEnd().split('\n\n').at(-1) ?? '';
    expect(last.startsWith('event: error\ndata: {"type":"error","error":{"type":"api_error"')).toBe(true);
    expect(text).not.toContain('message_stop');

    h.openai.breakStreamNext();
    await expect(h.client.messages.stream({ model: 'claude-gpt', max_tokens: 100, messages: [{ role: 'user', content: 'x y' }] }).finalMessage()).rejects.toThrow(/broke off/);
  });

  it('serves a Claude Code request (thinking, cache_control, 24 tools) from an OpenAI model', async () => {
    const capture = JSON.parse(readFileSync(new URL('../../fixtures/agents/claude-request.json', import.meta.url), 'utf8')) as { body: Record<string, unknown> };
    const final = await h.client.messages.stream({ ...(capture.body as unknown as Anthropic.MessageCreateParamsStreaming), model: 'claude-gpt' }).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content.map((b) => b.type)).toEqual(['tool_use', 'tool_use']);
    const sent = lastOpenAIBody();
    expect((sent.tools as unknown[]).length).toBe(24);
    expect(sent).not.toHaveProperty('reasoning_effort');
    expect(sent).not.toHaveProperty('context_management');
    expect((sent.messages as Array<{ role: string }>)[0]?.role).toBe('system');
  });
});

describe('count_tokens and errors', () => {
  it('estimates input tokens locally for non-Anthropic upstreams', async () => {
    const long = 'word '.repeat(400);
    const count = await h.client.messages.countTokens({ model: 'claude-gpt', system: 'sys', messages: [{ role: 'user', content: long }] });
    expect(count.input_tokens).toBe(Math.ceil((long.length + 3) / 4));
    expect(h.openai.requests.every((r) => !r.path.includes('count'))).toBe(true);
  });

  it('rejects Anthropic-only tools for an OpenAI model with a 400 naming the tool', async () => {
    const err = await h.client.messages
      .create({ model: 'claude-gpt', max_tokens: 100, tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('web_search_20250305') } });
  });

  it('renders upstream errors in Anthropic shape with the upstream status', async () => {
    h.openai.failNext(404, { error: { message: 'The model `gpt-4o` does not exist', type: 'invalid_request_error', param: null, code: 'model_not_found' } });
    const err = await h.client.messages.create({ model: 'claude-gpt', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: expect.stringContaining('does not exist') } });
  });
});
