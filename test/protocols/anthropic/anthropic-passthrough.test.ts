/** The official @anthropic-ai/sdk against the gateway, upstream = strict mock Anthropic (pass-through). */
import Anthropic from '@anthropic-ai/sdk';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_AND_PDF_MESSAGE, KEY_ALL, KEY_CLAUDE, postRaw, startAnthropicHarness, WEATHER_TOOLS, weatherToolResults, type AnthropicHarness } from '../../helpers/anthropic-gateway.js';

let h: AnthropicHarness;
beforeAll(async () => {
  h = await startAnthropicHarness();
});
afterAll(() => h.close());

describe('sync', () => {
  it('answers with the upstream message, usage, trace id; the upstream gets its own key and the rewritten model', async () => {
    const { data, response } = await h.client.messages
      .create({ model: 'claude-pass', max_tokens: 100, system: 'be brief', messages: [{ role: 'user', content: 'hello world' }] }, { headers: { 'anthropic-beta': 'context-1m-2025-08-07' } })
      .withResponse();
    expect(data).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: '[anthropic] you said: hello world' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    });
    expect(data.id).toMatch(/^msg_/);
    expect(response.headers.get('x-trace-id')).toBeTruthy();
    const sent = h.anthropic.requests.at(-1);
    expect(sent?.headers['x-api-key']).toBe(h.anthropic.apiKey);
    expect(sent?.headers['anthropic-beta']).toBe('context-1m-2025-08-07');
    expect(sent?.body).toEqual({ model: 'claude-sonnet-4-5-20250929', max_tokens: 100, system: 'be brief', messages: [{ role: 'user', content: 'hello world' }] });
  });

  it('forwards a body byte-for-byte apart from the model, including fields the IR does not model', async () => {
    const raw =
      '{"max_tokens": 50,  "model" : "claude-pass",\n "messages":[{"role":"user","content":[{"type":"text","text":"fidelity \\u00e9","cache_control":{"type":"ephemeral","ttl":"1h"}}]}],' +
      ' "service_tier":"standard_only", "context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}, "metadata":{"user_id":"u1"}, "top_k": 3}';
    const res = await postRaw(h, '/v1/messages?beta=true', raw);
    expect(res.status).toBe(200);
    expect(h.anthropic.requests.at(-1)?.rawBody).toBe(raw.replace('"claude-pass"', '"claude-sonnet-4-5-20250929"'));
    expect(((await res.json()) as { content: Array<{ text: string }> }).content[0]?.text).toBe('[anthropic] you said: fidelity é');
  });

  it('runs a tool round trip', async () => {
    const first = await h.client.messages.create({ model: 'claude-pass', max_tokens: 100, tools: WEATHER_TOOLS, messages: [{ role: 'user', content: 'weather?' }] });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', days: 1 } },
      { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: { utc: true } },
    ]);
    const next = await h.client.messages.create({
      model: 'claude-pass',
      max_tokens: 100,
      tools: WEATHER_TOOLS,
      messages: weatherToolResults(first.content, ['toolu_1', 'toolu_2']),
    });
    expect(next.content).toEqual([{ type: 'text', text: '[anthropic] tool results: 18C; noon' }]);
  });

  it('takes image and PDF input, stop sequences and max_tokens', async () => {
    const media = await h.client.messages.create({
      model: 'claude-pass',
      max_tokens: 100,
      messages: [IMAGE_AND_PDF_MESSAGE],
    });
    expect(media.content).toEqual([{ type: 'text', text: '[anthropic] you said: Describe [image] [pdf]' }]);
    const stopped = await h.client.messages.create({ model: 'claude-pass', max_tokens: 100, stop_sequences: ['said'], messages: [{ role: 'user', content: 'x' }] });
    expect(stopped).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'said', content: [{ text: '[anthropic] you ' }] });
    const cut = await h.client.messages.create({ model: 'claude-pass', max_tokens: 3, messages: [{ role: 'user', content: 'one two three' }] });
    expect(cut).toMatchObject({ stop_reason: 'max_tokens', content: [{ text: '[anthropic] you said:' }], usage: { output_tokens: 3 } });
  });
});

describe('streams', () => {
  it('relays the event stream so messages.stream().finalMessage() works', async () => {
    const stream = h.client.messages.stream({ model: 'claude-pass', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'stream me' }] });
    const types: string[] = [];
    stream.on('streamEvent', (ev) => types.push(ev.type));
    let text = '';
    stream.on('text', (t) => (text += t));
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'thinking', thinking: 'Let me think about this.' });
    expect(final.content[1]).toMatchObject({ type: 'text', text: '[anthropic] you said: stream me' });
    expect(text).toBe('[anthropic] you said: stream me');
    expect(final.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    // The relay observed usage for the hooks.
    await expect.poll(() => h.responses.at(-1)?.streamCompleted).toBe(true);
    expect(h.responses.at(-1)).toMatchObject({ status: 200, model: 'claude-pass', usage: { inputTokens: 10, outputTokens: 5 } });
  });

  it('streams tool calls with parsed inputs', async () => {
    const final = await h.client.messages.stream({ model: 'claude-pass', max_tokens: 100, tools: WEATHER_TOOLS, messages: [{ role: 'user', content: 'go' }] }).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content.map((b) => (b.type === 'tool_use' ? b.input : b.type))).toEqual([{ city: 'Paris', days: 1 }, { utc: true }]);
  });

  it('ends a stream that fails upstream with an `event: error` frame', async () => {
    h.anthropic.failNextStreamMidway('overloaded_error', 'Overloaded');
    const res = await postRaw(h, '/v1/messages', JSON.stringify({ model: 'claude-pass', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'a b c d' }] }));
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain('event: message_start');
    const traceId = res.headers.get('x-trace-id');
    expect(text.trimEnd().split('\n\n').at(-1)).toBe(`event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"${traceId}","traceId":"${traceId}"}`);
    expect(text).not.toContain('message_stop');
    await expect.poll(() => h.responses.at(-1)?.streamCompleted).toBe(false);
    expect(h.responses.at(-1)?.error).toMatchObject({ code: 'unavailable', message: 'Overloaded' });

    h.anthropic.failNextStreamMidway();
    await expect(h.client.messages.stream({ model: 'claude-pass', max_tokens: 100, messages: [{ role: 'user', content: 'x y' }] }).finalMessage()).rejects.toThrow(/Overloaded/);
  });

  it('passes a Claude Code request through (system blocks, 24 tools, thinking, cache_control, ?beta=true)', async () => {
    const capture = JSON.parse(readFileSync(new URL('../../fixtures/agents/claude-request.json', import.meta.url), 'utf8')) as { headers: Record<string, string>; body: Record<string, unknown> };
    const raw = JSON.stringify({ ...capture.body, model: 'claude-pass' });
    const res = await postRaw(h, '/v1/messages?beta=true', raw, { 'anthropic-beta': capture.headers['anthropic-beta'] as string });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"stop_reason":"tool_use"');
    const sent = h.anthropic.requests.at(-1);
    expect(sent?.rawBody).toBe(raw.replace('"claude-pass"', '"claude-sonnet-4-5-20250929"'));
    expect(sent?.headers['anthropic-beta']).toBe(capture.headers['anthropic-beta']);
  });
});

describe('count_tokens', () => {
  it('forwards to the Anthropic upstream', async () => {
    const count = await h.client.messages.countTokens({ model: 'claude-pass', messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }] });
    expect(count).toEqual({ input_tokens: 30, traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const sent = h.anthropic.requests.at(-1);
    expect(sent?.path).toBe('/v1/messages/count_tokens');
    expect((sent?.body as { model: string }).model).toBe('claude-sonnet-4-5-20250929');
  });
});

describe('errors in Anthropic shape', () => {
  it('401 for a bad key, also with Bearer auth', async () => {
    const bad = new Anthropic({ baseURL: h.server.url, apiKey: 'wrong-key-123456', maxRetries: 0 });
    const err = await bad.messages.create({ model: 'claude-pass', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const bearer = new Anthropic({ baseURL: h.server.url, apiKey: null, authToken: KEY_ALL, maxRetries: 0 });
    expect((await bearer.messages.create({ model: 'claude-pass', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).type).toBe('message');
  });

  it('403 for a model the key may not use, 404 for an unknown model', async () => {
    const limited = new Anthropic({ baseURL: h.server.url, apiKey: KEY_CLAUDE, maxRetries: 0 });
    const denied = await limited.messages.create({ model: 'gpt-4o', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect((denied as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: 'permission_error' } });
    const missing = await h.client.messages.create({ model: 'nope', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect((missing as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: 'not_found_error' } });
  });

  it('400 for a bad body, a missing anthropic-version, and upstream rejections (keys scrubbed)', async () => {
    const noMax = await postRaw(h, '/v1/messages', JSON.stringify({ model: 'claude-pass', messages: [{ role: 'user', content: 'x' }] }));
    expect(noMax.status).toBe(400);
    expect(await noMax.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') } });
    const noVersion = await fetch(`${h.server.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': KEY_ALL, 'content-type': 'application/json' }, body: '{}' });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });

    const unanswered = await h.client.messages
      .create({ model: 'claude-pass', max_tokens: 5, messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 't', input: {} }] }, { role: 'user', content: 'y' }] })
      .catch((e: unknown) => e);
    expect(unanswered).toBeInstanceOf(Anthropic.BadRequestError);
    expect((unanswered as InstanceType<typeof Anthropic.APIError>).message).toContain('toolu_9');

    h.anthropic.failNext(429, { type: 'error', error: { type: 'rate_limit_error', message: `slow down ${h.anthropic.apiKey}` } }, { 'retry-after': '7' });
    const limited = await postRaw(h, '/v1/messages', JSON.stringify({ model: 'claude-pass', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    const body = await limited.text();
    expect(body).not.toContain(h.anthropic.apiKey);
    expect(JSON.parse(body)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });

    // Anthropic's own 529 reaches an Anthropic client as it is (other clients get a 503).
    h.anthropic.failNext(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    const overloaded = await postRaw(h, '/v1/messages', JSON.stringify({ model: 'claude-pass', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }));
    expect(overloaded.status).toBe(529);
    expect(await overloaded.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: expect.stringContaining('Overloaded') } });
  });
});
