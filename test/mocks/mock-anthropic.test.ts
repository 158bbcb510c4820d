/** The strict mock Anthropic upstream, checked directly with the official SDK. */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';

let mock: MockAnthropic;
let client: Anthropic;

beforeAll(async () => {
  mock = await startMockAnthropic();
  client = new Anthropic({ apiKey: mock.apiKey, baseURL: mock.baseURL, maxRetries: 0 });
});
afterAll(() => mock.close());

const tool = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' }, days: { type: 'integer' } } } };

describe('mock anthropic', () => {
  it('answers text with usage', async () => {
    const msg = await client.messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hello there' }] });
    expect(msg.content).toEqual([{ type: 'text', text: '[anthropic] you said: hello there' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.usage.input_tokens).toBe(10);
    expect(msg.usage.output_tokens).toBe(5);
  });

  it('streams in the real event order', async () => {
    const stream = client.messages.stream({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi you' }] });
    const types: string[] = [];
    stream.on('streamEvent', (ev) => types.push(ev.type));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: '[anthropic] you said: hi you' }]);
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(final.usage.output_tokens).toBe(5);
    const raw = mock.requests.at(-1);
    expect(raw?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('calls tools and answers tool results', async () => {
    const msg = await client.messages.create({ model: 'm', max_tokens: 100, tools: [tool], messages: [{ role: 'user', content: 'weather?' }] });
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', days: 1 } }]);
    const next = await client.messages.create({
      model: 'm',
      max_tokens: 100,
      tools: [tool],
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: msg.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
    });
    expect(next.content).toEqual([{ type: 'text', text: '[anthropic] tool results: sunny' }]);
    // The same tool_use id twice in one conversation is refused, as by Anthropic.
    const again = client.messages.create({
      model: 'm',
      max_tokens: 100,
      tools: [tool],
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: msg.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
        { role: 'assistant', content: msg.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
    });
    await expect(again).rejects.toMatchObject({ status: 400, error: { error: { message: 'messages.3.content.0: `tool_use` ids must be unique' } } });
  });

  it('streams thinking with a signature that replays', async () => {
    const final = await client.messages
      .stream({ model: 'm', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'x' }] })
      .finalMessage();
    expect(final.content[0]?.type).toBe('thinking');
    const again = await client.messages.create({
      model: 'm',
      max_tokens: 2000,
      messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: final.content }, { role: 'user', content: 'y' }],
    });
    expect(again.content.at(-1)).toEqual({ type: 'text', text: '[anthropic] you said: y' });
    await expect(
      client.messages.create({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 'fake', signature: 'bad' }] }, { role: 'user', content: 'y' }] }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('applies stop sequences and max_tokens', async () => {
    const a = await client.messages.create({ model: 'm', max_tokens: 100, stop_sequences: ['said'], messages: [{ role: 'user', content: 'x' }] });
    expect(a).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'said', content: [{ type: 'text', text: '[anthropic] you ' }] });
    const b = await client.messages.create({ model: 'm', max_tokens: 2, messages: [{ role: 'user', content: 'x y z' }] });
    expect(b).toMatchObject({ stop_reason: 'max_tokens', content: [{ type: 'text', text: '[anthropic] you' }] });
  });

  it('rejects what the real API rejects', async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${mock.baseURL}/v1/messages`, { method: 'POST', headers: { 'x-api-key': mock.apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const noMax = await post({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(noMax.status).toBe(400);
    expect(await noMax.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
    expect((await post({ model: 'm', max_tokens: 5, messages: [{ role: 'system', content: 'x' }] })).status).toBe(400);
    const unanswered = await post({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 't', input: {} }] }, { role: 'user', content: 'y' }] });
    expect(unanswered.status).toBe(400);
    expect(((await unanswered.json()) as { error: { message: string } }).error.message).toContain('toolu_9');
    const badKey = await post({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, { 'x-api-key': 'nope' });
    expect(badKey.status).toBe(401);
    expect(await badKey.json()).toMatchObject({ error: { type: 'authentication_error' } });
    const noVersion = await fetch(`${mock.baseURL}/v1/messages`, { method: 'POST', headers: { 'x-api-key': mock.apiKey }, body: '{}' });
    expect(noVersion.status).toBe(400);
    expect((await post({ model: 'm', max_tokens: 5, user: 'u', messages: [{ role: 'user', content: 'x' }] })).status).toBe(400);
  });

  it('accepts mid-conversation system messages only behind their beta flag', async () => {
    const body = JSON.stringify({ model: 'm', max_tokens: 50, messages: [{ role: 'user', content: 'hi there' }, { role: 'system', content: 'extra rules' }] });
    const send = (beta?: string) =>
      fetch(`${mock.baseURL}/v1/messages`, { method: 'POST', headers: { 'x-api-key': mock.apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...(beta ? { 'anthropic-beta': beta } : {}) }, body });
    expect((await send()).status).toBe(400);
    const ok = await send('claude-code-20250219,mid-conversation-system-2026-04-07');
    expect(await ok.json()).toMatchObject({ content: [{ type: 'text', text: '[anthropic] you said: hi there' }], usage: { input_tokens: 10 } });
  });

  it('accepts what Claude Code sends', async () => {
    const res = await fetch(`${mock.baseURL}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mock.apiKey}`, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 32000,
        system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
        tools: [{ ...tool, cache_control: { type: 'ephemeral' } }, { type: 'web_search_20250305', name: 'web_search', max_uses: 5 }],
        tool_choice: { type: 'none' },
        thinking: { type: 'adaptive' },
        metadata: { user_id: 'user_abc' },
        stream: false,
      }),
    });
    expect(res.status).toBe(200);
  });

  it('counts tokens, lists models, fails on demand', async () => {
    const count = await client.messages.countTokens({ model: 'm', messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }] });
    expect(count.input_tokens).toBe(20);
    const page = await client.models.list();
    expect(page.data[0]?.id).toBe('claude-sonnet-4-5-20250929');
    mock.failNext(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    await expect(client.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 529 });
  });
});
