/** Anthropic stream decoder/encoder/relay, replaying recorded streams from test/fixtures/anthropic. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/core/errors.js';
import { readSSE, type SSEEvent } from '../../../src/wire/sse.js';
import type { IRStreamEvent } from '../../../src/ir/types.js';
import { anthropicPassthrough } from '../../../src/protocols/anthropic-messages/passthrough.js';
import { createAnthropicStreamDecoder } from '../../../src/protocols/anthropic-messages/upstream/stream-decoder.js';
import { createAnthropicStreamEncoder } from '../../../src/protocols/anthropic-messages/client/stream-encoder.js';
import type { ResponseMeta } from '../../../src/protocols/types.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/anthropic/${name}`, import.meta.url), 'utf8');

/** Parses wire text into events, fed in small chunks so events span chunk borders. */
async function parse(text: string, chunkSize = 7): Promise<SSEEvent[]> {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += chunkSize) c.enqueue(bytes.slice(i, i + chunkSize));
      c.close();
    },
  });
  const out: SSEEvent[] = [];
  for await (const ev of readSSE(body)) out.push(ev);
  return out;
}

async function decode(text: string): Promise<IRStreamEvent[]> {
  const decoder = createAnthropicStreamDecoder();
  const out: IRStreamEvent[] = [];
  for (const ev of await parse(text)) out.push(...decoder.event(ev));
  out.push(...decoder.end());
  return out;
}

const meta: ResponseMeta = { traceId: 'trace1', upstreamModel: 'claude-alias', created: 1767225600, newId: (p) => `${p}gen1` };

function encode(events: IRStreamEvent[]): string {
  const enc = createAnthropicStreamEncoder(meta);
  return events.map((e) => enc.encode(e)).join('') + enc.end();
}

/** `event:` name, index and delta type of each frame (also checks `event:` equals the JSON type). */
async function shape(text: string): Promise<string[]> {
  return (await parse(text)).map((ev) => {
    const data = JSON.parse(ev.data) as { type: string; index?: number; delta?: { type?: string } };
    expect(ev.event).toBe(data.type);
    return [ev.event, data.index, data.delta?.type].filter((x) => x !== undefined).join(':');
  });
}

describe('stream decoder (Anthropic SSE -> IR)', () => {
  it('decodes text then a tool call, counting tool indexes among tool calls only', async () => {
    const events = await decode(fixture('text-then-tool.sse.txt'));
    expect(events).toEqual([
      { type: 'message-start', id: 'msg_01Q1', model: 'claude-sonnet-4-5-20250929', usage: { inputTokens: 377, outputTokens: 1, cachedInputTokens: 0, cacheWriteTokens: 0, totalTokens: 378 } },
      { type: 'text-start', id: 't0' },
      { type: 'text-delta', id: 't0', delta: "I'll check" },
      { type: 'text-delta', id: 't0', delta: ' the weather.' },
      { type: 'text-end', id: 't0' },
      { type: 'tool-call-start', id: 'toolu_01NR', index: 0, name: 'get_weather' },
      { type: 'tool-call-delta', id: 'toolu_01NR', index: 0, delta: '{"city": "Par' },
      { type: 'tool-call-delta', id: 'toolu_01NR', index: 0, delta: 'is"}' },
      { type: 'tool-call-end', id: 'toolu_01NR', index: 0 },
      { type: 'usage', usage: { inputTokens: 377, outputTokens: 65, cachedInputTokens: 0, cacheWriteTokens: 0, totalTokens: 442 } },
      {
        type: 'finish',
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        usage: { inputTokens: 377, outputTokens: 65, cachedInputTokens: 0, cacheWriteTokens: 0, totalTokens: 442 },
      },
    ]);
  });

  it('decodes thinking with its signature', async () => {
    const events = await decode(fixture('thinking.sse.txt'));
    expect(events.filter((e) => e.type.startsWith('reasoning'))).toEqual([
      { type: 'reasoning-start', id: 'r0' },
      { type: 'reasoning-delta', id: 'r0', delta: 'The user wants a definition.' },
      { type: 'reasoning-signature', id: 'r0', signature: 'EqQBCkYIBRgCKkB...' },
      { type: 'reasoning-end', id: 'r0' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage: { inputTokens: 28, outputTokens: 106 } });
  });

  it('takes cumulative usage from message_delta over message_start (cache counts included)', async () => {
    const events = await decode(fixture('cached-usage.sse.txt'));
    const tools = events.filter((e) => e.type === 'tool-call-start');
    expect(tools).toEqual([
      { type: 'tool-call-start', id: 'toolu_A', index: 0, name: 'read' },
      { type: 'tool-call-start', id: 'toolu_B', index: 1, name: 'read' },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      usage: { inputTokens: 2105, outputTokens: 40, cachedInputTokens: 2000, cacheWriteTokens: 100, totalTokens: 2145 },
    });
  });

  it('turns an in-band error into an IR error and a cut stream into bad_gateway', async () => {
    const events = await decode(fixture('overloaded-midstream.sse.txt'));
    const last = events.at(-1);
    expect(last?.type).toBe('error');
    const err = (last as { error: GatewayError }).error;
    expect(err).toBeInstanceOf(GatewayError);
    expect(err.code).toBe('unavailable');
    expect(err.message).toBe('Overloaded');

    const cut = fixture('text-then-tool.sse.txt').split('event: message_delta')[0] as string;
    const tail = (await decode(cut)).at(-1) as { type: string; error?: GatewayError };
    expect(tail.type).toBe('error');
    expect(tail.error?.code).toBe('bad_gateway');
  });
});

describe('stream encoder (IR -> Anthropic SSE)', () => {
  it('re-encodes the recorded streams in the same event order (pings aside)', async () => {
    for (const name of ['text-then-tool.sse.txt', 'thinking.sse.txt', 'cached-usage.sse.txt']) {
      const expected = (await shape(fixture(name))).filter((s) => s !== 'ping');
      const got = await shape(encode(await decode(fixture(name))));
      // The encoder leaves out the empty input_json_delta fragment the upstream sent first.
      const emptyDeltas = (await parse(fixture(name))).filter((e) => e.data.includes('"partial_json":""')).length;
      expect(got.length).toBe(expected.length - emptyDeltas);
      expect(got.filter((s) => !s.endsWith('input_json_delta'))).toEqual(expected.filter((s) => !s.endsWith('input_json_delta')));
    }
  });

  it('writes message_start first with input usage and message_delta with the final usage', async () => {
    const wire = encode(await decode(fixture('cached-usage.sse.txt')));
    const events = (await parse(wire)).map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(events[0]).toEqual({
      type: 'message_start',
      message: { id: 'msg_01C', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } },
    });
    expect(events.at(-2)).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 40, input_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 2000 },
    });
    expect(events.at(-1)).toEqual({ type: 'message_stop' });
  });

  it('serializes interleaved tool calls into sequential blocks with contiguous indexes', async () => {
    const wire = encode([
      { type: 'message-start', id: 'chatcmpl-1', model: 'gpt-4o' },
      { type: 'text-start', id: 't0' },
      { type: 'text-delta', id: 't0', delta: 'Calling.' },
      { type: 'text-end', id: 't0' },
      { type: 'tool-call-start', id: 'call_a', index: 0, name: 'a' },
      { type: 'tool-call-delta', id: 'call_a', index: 0, delta: '{"x":' },
      { type: 'tool-call-start', id: 'call_b', index: 1, name: 'b' },
      { type: 'tool-call-delta', id: 'call_b', index: 1, delta: '{"y":2}' },
      { type: 'tool-call-delta', id: 'call_a', index: 0, delta: '1}' },
      { type: 'tool-call-end', id: 'call_a', index: 0 },
      { type: 'tool-call-end', id: 'call_b', index: 1 },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: 10, outputTokens: 10 } },
    ]);
    const events = (await parse(wire)).map((e) => JSON.parse(e.data) as { type: string; index?: number; content_block?: unknown; delta?: unknown });
    expect(events.map((e) => `${e.type}${e.index === undefined ? '' : `:${e.index}`}`)).toEqual([
      'message_start', 'content_block_start:0', 'content_block_delta:0', 'content_block_stop:0',
      'content_block_start:1', 'content_block_delta:1', 'content_block_delta:1', 'content_block_stop:1',
      'content_block_start:2', 'content_block_delta:2', 'content_block_stop:2', 'message_delta', 'message_stop',
    ]);
    expect(events[0]).toMatchObject({ message: { id: 'msg_gen1', model: 'gpt-4o' } });
    expect(events[4]?.content_block).toEqual({ type: 'tool_use', id: 'call_a', name: 'a', input: {} });
    expect([events[5]?.delta, events[6]?.delta]).toEqual([
      { type: 'input_json_delta', partial_json: '{"x":' },
      { type: 'input_json_delta', partial_json: '1}' },
    ]);
    expect(events[9]?.delta).toEqual({ type: 'input_json_delta', partial_json: '{"y":2}' });
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 10, input_tokens: 10 } });
  });

  it('opens a separate thinking block for reasoning and maps stop reasons', async () => {
    const wire = encode([
      { type: 'reasoning-delta', id: 'r0', delta: 'hmm' },
      { type: 'reasoning-end', id: 'r0' },
      { type: 'text-delta', id: 't0', delta: 'Hi' },
      { type: 'finish', finishReason: { unified: 'stop', stopSequence: 'END' }, usage: {} },
    ]);
    const events = (await parse(wire)).map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(events[1]).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
    expect(events[3]).toEqual({ type: 'content_block_stop', index: 0 });
    expect(events[4]).toEqual({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } });
    expect(events.at(-2)).toEqual({ type: 'message_delta', delta: { stop_reason: 'stop_sequence', stop_sequence: 'END' }, usage: { output_tokens: 0 } });
  });

  it('writes failures as an `event: error` frame', () => {
    const enc = createAnthropicStreamEncoder(meta);
    expect(enc.error(new GatewayError('unavailable', 'Upstream busy'))).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Upstream busy"},"request_id":"trace1","traceId":"trace1"}\n\n',
    );
  });
});

describe('pass-through relay', () => {
  it('relays events byte-for-byte with their names and observes usage', async () => {
    const relay = anthropicPassthrough.createRelay({ clientWantsUsage: true });
    const text = fixture('cached-usage.sse.txt');
    const out = (await parse(text)).map((ev) => relay.relay(ev)).join('') + relay.end();
    expect(out).toBe(text);
    expect(relay.usage()).toEqual({ inputTokens: 2105, outputTokens: 40, cachedInputTokens: 2000, cacheWriteTokens: 100, totalTokens: 2145 });
  });

  it('fails the relay on an upstream error event', async () => {
    const relay = anthropicPassthrough.createRelay({ clientWantsUsage: true });
    const events = await parse(fixture('overloaded-midstream.sse.txt'));
    expect(() => events.forEach((ev) => relay.relay(ev))).toThrow('Overloaded');
    expect(relay.usage()).toMatchObject({ inputTokens: 12 });
  });
});
