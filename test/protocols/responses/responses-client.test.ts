/**
 * The official `openai` SDK's `responses` resource against the gateway, once per upstream kind:
 * OpenAI (pass-through to the strict Responses mock), Anthropic, Gemini, an OpenAI-compatible chat
 * server and the built-in mock (translated). create, stream().finalResponse(), retrieve, delete,
 * inputItems.list, a round trip with two parallel function calls, background + poll + cancel.
 */
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startResponsesBed, WEATHER_TOOLS, type ResponsesBed } from '../../helpers/responses-gateway.js';

let bed: ResponsesBed;
let client: OpenAI;

beforeAll(async () => {
  bed = await startResponsesBed();
  client = bed.client();
});
afterAll(async () => {
  await bed?.close();
});

interface Upstream {
  name: string;
  model: string;
  concrete: string;
  said: (text: string) => string;
  results: (a: string, b: string) => string;
  /** Usage the upstream reports for the one-message `hello world` turn (undefined: not fixed). */
  usage?: { input_tokens: number; output_tokens: number; total_tokens: number };
  hang?: (b: ResponsesBed) => { hangNext(ms: number): void; nextDisconnect(): Promise<void> };
}

const UPSTREAMS: Upstream[] = [
  {
    name: 'openai (pass-through)',
    model: 'gpt-4.1',
    concrete: 'gpt-4.1-2025-08-07',
    said: (t) => `[responses] you said: ${t}`,
    results: (a, b) => `[responses] tool results: ${a}; ${b}`,
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    hang: (b) => b.mocks.responses,
  },
  {
    name: 'anthropic',
    model: 'claude',
    concrete: 'claude-sonnet-4-5-20250929',
    said: (t) => `[anthropic] you said: ${t}`,
    results: (a, b) => `[anthropic] tool results: ${a}; ${b}`,
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    hang: (b) => b.mocks.anthropic,
  },
  {
    name: 'gemini',
    model: 'gemini',
    concrete: 'gemini-2.5-flash',
    said: (t) => `[gemini] you said: ${t}`,
    results: (a, b) => `[gemini] tool results: ${a}; ${b}`,
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    hang: (b) => b.mocks.gemini,
  },
  {
    name: 'openai-compatible chat',
    model: 'compat',
    concrete: 'gpt-4o-2024-08-06',
    said: (t) => `[openai] you said: ${t}`,
    results: (a, b) => `[openai] tool results: ${a}; ${b}`,
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    hang: (b) => b.mocks.chat,
  },
  {
    name: 'built-in mock',
    model: 'mock',
    concrete: 'mock-chat',
    said: (t) => `This is a mock response to: ${t}`,
    results: (a, b) => `Tool results received: ${a}; ${b}.`,
  },
];

/** A response without what differs between two calls (ids, times, trace) or what only the SDK's stream helper adds (parsed). */
function comparable(r: OpenAI.Responses.Response): unknown {
  const json = JSON.parse(JSON.stringify(r)) as Record<string, unknown> & { output: Array<Record<string, unknown>> };
  for (const k of ['id', 'created_at', 'completed_at', 'traceId', 'output_parsed']) delete json[k];
  for (const item of json.output) {
    delete item.id;
    for (const part of (item.content as Array<Record<string, unknown>> | undefined) ?? []) delete part.parsed;
  }
  return json;
}

describe.each(UPSTREAMS)('$name', (u) => {
  it('responses.create: the answer, the concrete upstream model, usage as the upstream reported it, traceId', async () => {
    const { data, response } = await client.responses.create({ model: u.model, instructions: 'Be brief.', input: 'hello world' }).withResponse();
    expect(data.id).toMatch(/^resp_/);
    expect(data.object).toBe('response');
    expect(data.status).toBe('completed');
    expect(data.model).toBe(u.concrete);
    expect(data.instructions).toBe('Be brief.');
    expect(data.output_text).toBe(u.said('hello world'));
    expect(data.output).toHaveLength(1);
    expect(data.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: u.said('hello world'), annotations: [] }] });
    expect((data as unknown as { traceId: string }).traceId).toBe(response.headers.get('x-trace-id'));
    if (u.usage) expect(data.usage).toEqual({ ...u.usage, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
    else expect(data.usage?.total_tokens).toBe((data.usage?.input_tokens ?? NaN) + (data.usage?.output_tokens ?? NaN));
  });

  it('responses.stream(...).finalResponse() is the same response, over a strictly numbered event sequence', async () => {
    const params = { model: u.model, instructions: 'Be brief.', input: 'stream me please' };
    const sync = await client.responses.create(params);
    const stream = client.responses.stream(params);
    const types: string[] = [];
    const seqs: number[] = [];
    for await (const ev of stream) {
      types.push(ev.type);
      seqs.push(ev.sequence_number);
    }
    const final = await stream.finalResponse();
    expect(comparable(final)).toEqual(comparable(sync));
    expect(final.output_text).toBe(u.said('stream me please'));
    expect(seqs).toEqual(seqs.map((_, i) => i));
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(types.filter((t) => t === 'response.output_text.delta').length).toBeGreaterThan(1);
    // It was stored too.
    expect((await client.responses.retrieve(final.id)).output_text).toBe(final.output_text);
  });

  it('retrieve, inputItems.list and delete', async () => {
    const created = await client.responses.create({
      model: u.model,
      input: [
        { role: 'developer', content: 'Answer in English.' },
        { role: 'user', content: [{ type: 'input_text', text: 'first' }] },
        { role: 'user', content: 'second' },
      ],
    });
    const got = await client.responses.retrieve(created.id);
    // Every JSON answer carries its own request's traceId; the rest is the stored object.
    const traced = (r: object) => (r as { traceId?: string }).traceId;
    expect({ ...got, traceId: traced(created) }).toEqual(created);
    expect(traced(got)).toMatch(/^[0-9a-f]{32}$/);
    const items = [];
    for await (const item of client.responses.inputItems.list(created.id, { order: 'asc', limit: 2 })) items.push(item);
    expect(items.map((i) => (i.type === 'message' ? [i.role, i.content] : i.type))).toEqual([
      ['developer', [{ type: 'input_text', text: 'Answer in English.' }]],
      ['user', [{ type: 'input_text', text: 'first' }]],
      ['user', [{ type: 'input_text', text: 'second' }]],
    ]);
    expect(new Set(items.map((i) => i.id)).size).toBe(3);
    const desc = await client.responses.inputItems.list(created.id, { limit: 1 });
    expect(desc.data.map((i) => i.id)).toEqual([items[2]?.id]);
    expect(desc.has_more).toBe(true);
    await client.responses.delete(created.id);
    await expect(client.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.delete(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('a function-call round trip with two parallel calls (streamed), continued with previous_response_id', async () => {
    const stream = client.responses.stream({ model: u.model, input: 'weather in Paris', tools: WEATHER_TOOLS });
    const argDeltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (ev) => argDeltas.push(ev.delta));
    const first = await stream.finalResponse();
    const calls = (first.output as OpenAI.Responses.ResponseOutputItem[]).filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call');
    expect(calls.map((c) => c.name)).toEqual(['get_weather', 'get_time']);
    expect(calls.map((c) => JSON.parse(c.arguments))).toEqual([{ city: 'Paris' }, { utc: true }]);
    expect(new Set(calls.map((c) => c.call_id)).size).toBe(2);
    expect(argDeltas.join('')).toBe(calls.map((c) => c.arguments).join(''));
    const second = await client.responses.create({
      model: u.model,
      previous_response_id: first.id,
      tools: WEATHER_TOOLS,
      input: [
        { type: 'function_call_output', call_id: calls[0]?.call_id as string, output: '18C' },
        { type: 'function_call_output', call_id: calls[1]?.call_id as string, output: 'noon' },
      ],
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text).toBe(u.results('18C', 'noon'));
  });

  it('background: queued at once, then the final object on GET; the same through a ?stream=true replay', async () => {
    const queued = await client.responses.create({ model: u.model, input: 'in the background', background: true });
    expect(queued.status).toBe('queued');
    expect(queued.background).toBe(true);
    const done = await eventually(() => client.responses.retrieve(queued.id), (r) => r.status === 'completed');
    expect(done.output_text).toBe(u.said('in the background'));
    expect(done.background).toBe(true);
    const replay = client.responses.stream({ response_id: queued.id, starting_after: 1 });
    const seen: number[] = [];
    for await (const ev of replay) seen.push(ev.sequence_number);
    expect(seen[0]).toBe(2);
    expect((await replay.finalResponse()).output_text).toBe(done.output_text);
  });

  const hang = u.hang;
  if (hang) {
    it('background cancel stops the upstream call and returns cancelled', async () => {
      const upstream = hang(bed);
      upstream.hangNext(60_000);
      const disconnected = upstream.nextDisconnect();
      const queued = await client.responses.create({ model: u.model, input: 'never mind', background: true });
      await eventually(() => client.responses.retrieve(queued.id), (r) => r.status === 'in_progress');
      const cancelled = await client.responses.cancel(queued.id);
      expect(cancelled.status).toBe('cancelled');
      await disconnected;
      expect((await client.responses.retrieve(queued.id)).status).toBe('cancelled');
    });
  } else {
    it('cancel of a background response that already finished returns it unchanged', async () => {
      const queued = await client.responses.create({ model: u.model, input: 'quick one', background: true });
      const done = await eventually(() => client.responses.retrieve(queued.id), (r) => r.status === 'completed');
      const { output_text: _sdkOnly, ...stored } = done;
      expect({ ...(await client.responses.cancel(queued.id)), traceId: (stored as { traceId?: string }).traceId }).toEqual(stored);
    });
  }
});
