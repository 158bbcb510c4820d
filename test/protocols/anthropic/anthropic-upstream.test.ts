/** Anthropic as the upstream of another protocol: the openai SDK against the gateway, upstream = strict mock Anthropic. */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_ALL, PDF, PNG, startAnthropicHarness, type AnthropicHarness } from '../../helpers/anthropic-gateway.js';

let h: AnthropicHarness;
let client: OpenAI;
beforeAll(async () => {
  h = await startAnthropicHarness();
  client = new OpenAI({ baseURL: `${h.server.url}/v1`, apiKey: KEY_ALL, maxRetries: 0 });
});
afterAll(() => h.close());

const tools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { utc: { type: 'boolean' } } } } },
];
const lastAnthropicBody = (): Record<string, unknown> => h.anthropic.requests.at(-1)?.body as Record<string, unknown>;

describe('OpenAI client -> Anthropic upstream', () => {
  it('answers text with usage; system moves to the top-level field and max_tokens is always sent', async () => {
    const res = await client.chat.completions.create({ model: 'claude-pass', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello world' }] });
    expect(res.choices[0]?.message.content).toBe('[anthropic] you said: hello world');
    expect(res.choices[0]?.finish_reason).toBe('stop');
    expect(res.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(lastAnthropicBody()).toEqual({ model: 'claude-sonnet-4-5-20250929', max_tokens: 4096, system: 'be brief', messages: [{ role: 'user', content: [{ type: 'text', text: 'hello world' }] }] });
    expect(h.anthropic.requests.at(-1)?.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('streams text with the usage chunk', async () => {
    const stream = await client.chat.completions.create({ model: 'claude-pass', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream me' }] });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('[anthropic] you said: stream me');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
  });

  it('runs a parallel tool round trip (tool messages grouped into one user turn)', async () => {
    const first = await client.chat.completions.create({ model: 'claude-pass', tools, messages: [{ role: 'user', content: 'weather?' }] });
    const calls = first.choices[0]?.message.tool_calls ?? [];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(calls.map((c) => (c.type === 'function' ? [c.id, c.function.name, JSON.parse(c.function.arguments)] : []))).toEqual([
      ['toolu_1', 'get_weather', { city: 'Paris', days: 1 }],
      ['toolu_2', 'get_time', { utc: true }],
    ]);
    const next = await client.chat.completions.create({
      model: 'claude-pass',
      tools,
      messages: [
        { role: 'user', content: 'weather?' },
        first.choices[0]?.message as OpenAI.ChatCompletionMessageParam,
        { role: 'tool', tool_call_id: 'toolu_1', content: '18C' },
        { role: 'tool', tool_call_id: 'toolu_2', content: 'noon' },
      ],
    });
    expect(next.choices[0]?.message.content).toBe('[anthropic] tool results: 18C; noon');
    const sent = lastAnthropicBody().messages as Array<{ role: string; content: Array<{ type: string }> }>;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[2]?.content.map((b) => b.type)).toEqual(['tool_result', 'tool_result']);
  });

  it('streams tool calls with OpenAI indexes', async () => {
    const stream = await client.chat.completions.create({ model: 'claude-pass', stream: true, tools, messages: [{ role: 'user', content: 'go' }] });
    const args: string[] = ['', ''];
    const ids: string[] = [];
    for await (const chunk of stream) {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
        if (tc.id) ids.push(tc.id);
        args[tc.index] += tc.function?.arguments ?? '';
      }
    }
    expect(ids).toEqual(['toolu_1', 'toolu_2']);
    expect(args.map((a) => JSON.parse(a) as unknown)).toEqual([{ city: 'Paris', days: 1 }, { utc: true }]);
  });

  it('sends images and PDFs as Anthropic sources; maps stop sequences and max tokens', async () => {
    const media = await client.chat.completions.create({
      model: 'claude-pass',
      messages: [{ role: 'user', content: [
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'a.pdf' } },
        { type: 'text', text: 'Describe' },
      ] }],
    });
    expect(media.choices[0]?.message.content).toBe('[anthropic] you said: Describe [image] [pdf]');
    const stopped = await client.chat.completions.create({ model: 'claude-pass', stop: ['said'], messages: [{ role: 'user', content: 'x' }] });
    expect(stopped.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: '[anthropic] you ' } });
    const cut = await client.chat.completions.create({ model: 'claude-pass', max_tokens: 2, messages: [{ role: 'user', content: 'x y' }] });
    expect(cut.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: '[anthropic] you' } });
  });

  it('maps a reasoning effort to a thinking budget and returns the thinking as reasoning_content', async () => {
    const res = await client.chat.completions.create({ model: 'claude-pass', max_tokens: 500, reasoning_effort: 'low', messages: [{ role: 'user', content: 'think' }] });
    expect(lastAnthropicBody()).toMatchObject({ max_tokens: 2548, thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect((res.choices[0]?.message as unknown as { reasoning_content: string }).reasoning_content).toBe('Let me think about this.');
    expect(res.choices[0]?.message.content).toBe('[anthropic] you said: think');
  });

  it('renders Anthropic upstream errors in OpenAI shape and rejects what Anthropic cannot express', async () => {
    h.anthropic.failNext(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    const err = await client.chat.completions.create({ model: 'claude-pass', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    // 529 is Anthropic's own status: an OpenAI client gets the standard 503.
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect((err as InstanceType<typeof OpenAI.APIError>).type).toBe('server_error');
    expect((err as InstanceType<typeof OpenAI.APIError>).message).toContain('Overloaded');
    const hot = await client.chat.completions.create({ model: 'claude-pass', temperature: 1.7, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(hot).toBeInstanceOf(OpenAI.BadRequestError);
    expect((hot as InstanceType<typeof OpenAI.APIError>).param).toBe('temperature');
  });
});
