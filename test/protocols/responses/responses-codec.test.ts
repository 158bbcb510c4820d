/**
 * Unit tests of the Responses client codec and the memory conversation store: the stream encoder's
 * item sequencing (interleaved upstream tool calls become one item after another), reasoning tokens,
 * signatures kept from other vendors, tool flattening, replayed events, LRU and TTL.
 */
import { describe, expect, it } from 'vitest';
import { MemoryConversationStore, type ConversationRecord } from '../../../src/index.js';
import type { IRMessage, IRStreamEvent } from '../../../src/ir/types.js';
import { decodeInputItems, keepOwnSignatures } from '../../../src/protocols/openai-responses/client/convert-input-items.js';
import { decodeTools, ToolNames } from '../../../src/protocols/openai-responses/client/decode-tools.js';
import { decodeReasoningToken, encodeReasoningToken } from '../../../src/protocols/shared/reasoning-token.js';
import { replayEvents } from '../../../src/protocols/openai-responses/client/replay-events.js';
import type { TurnSink } from '../../../src/protocols/openai-responses/client/response-object.js';
import { createResponsesStreamEncoder } from '../../../src/protocols/openai-responses/client/stream-encoder.js';
import { responsesPassthrough } from '../../../src/protocols/openai-responses/passthrough.js';

type Json = Record<string, unknown>;

function encoder(sink: TurnSink = {}, names = new ToolNames()) {
  let n = 0;
  return createResponsesStreamEncoder({
    traceId: 'trace-1',
    upstreamModel: 'claude',
    created: 100,
    newId: (prefix) => `${prefix}${++n}`,
    options: { responses: { responseId: 'resp_1', createdAt: 100, echo: { tools: [] }, names, origin: 'anthropic-messages', sink, now: () => 200_000 } },
  });
}

function events(text: string): Json[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      const data = JSON.parse((dataLine as string).slice(6)) as Json;
      expect(eventLine).toBe(`event: ${String(data.type)}`);
      return data;
    });
}

describe('stream encoder', () => {
  it('turns interleaved parallel tool calls into items that follow each other, numbered 0..n', () => {
    const sink: TurnSink = {};
    const enc = encoder(sink);
    const ir: IRStreamEvent[] = [
      { type: 'message-start', id: 'x', model: 'claude-x', usage: { inputTokens: 7 } },
      { type: 'tool-call-start', id: 'call_a', index: 0, name: 'a' },
      { type: 'tool-call-start', id: 'call_b', index: 1, name: 'b' },
      { type: 'tool-call-delta', id: 'call_a', index: 0, delta: '{"x":' },
      { type: 'tool-call-delta', id: 'call_b', index: 1, delta: '{"y":2}' },
      { type: 'tool-call-delta', id: 'call_a', index: 0, delta: '1}' },
      { type: 'tool-call-end', id: 'call_a', index: 0 },
      { type: 'tool-call-end', id: 'call_b', index: 1 },
      { type: 'finish', finishReason: { unified: 'tool-calls' }, usage: { outputTokens: 3 } },
    ];
    const out = events(ir.map((e) => enc.encode(e)).join('') + enc.end());
    expect(out.map((e) => e.sequence_number)).toEqual(out.map((_, i) => i));
    expect(out.map((e) => `${String(e.type)}${e.output_index !== undefined ? `@${String(e.output_index)}` : ''}`)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added@0',
      'response.function_call_arguments.delta@0',
      'response.function_call_arguments.delta@0',
      'response.function_call_arguments.done@0',
      'response.output_item.done@0',
      'response.output_item.added@1',
      'response.function_call_arguments.delta@1',
      'response.function_call_arguments.done@1',
      'response.output_item.done@1',
      'response.completed',
    ]);
    const final = sink.final as Json;
    expect(final.model).toBe('claude-x');
    expect(final.output).toEqual([
      { id: 'fc_1', type: 'function_call', status: 'completed', arguments: '{"x":1}', call_id: 'call_a', name: 'a' },
      { id: 'fc_2', type: 'function_call', status: 'completed', arguments: '{"y":2}', call_id: 'call_b', name: 'b' },
    ]);
    expect(final.usage).toEqual({ input_tokens: 7, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 10 });
    expect(final.completed_at).toBe(200);
  });

  it('puts the reasoning signature into encrypted_content when the thinking block ends', () => {
    const sink: TurnSink = {};
    const enc = encoder(sink);
    const text = [
      enc.encode({ type: 'reasoning-start', id: 'r' }),
      enc.encode({ type: 'reasoning-delta', id: 'r', delta: 'hmm' }),
      enc.encode({ type: 'reasoning-signature', id: 'r', signature: 'SIG' }),
      enc.encode({ type: 'reasoning-end', id: 'r' }),
      enc.encode({ type: 'finish', finishReason: { unified: 'stop' }, usage: {} }),
    ].join('');
    const done = events(text).find((e) => e.type === 'response.output_item.done') as { item: Json };
    expect(done.item.summary).toEqual([{ type: 'summary_text', text: 'hmm' }]);
    expect(decodeReasoningToken(done.item.encrypted_content as string)).toEqual({ origin: 'anthropic-messages', text: 'hmm', signature: 'SIG' });
    expect((sink.final as Json).usage).toBeNull();
  });

  it('reports an error before anything was sent as an `error` event, after that as response.failed', () => {
    const early = encoder();
    const err = { code: 'rate_limited', message: 'slow down', param: null } as never;
    expect(events(early.error(err))).toEqual([{ type: 'error', sequence_number: 0, code: 'rate_limit_exceeded', message: 'slow down', param: null }]);
    const sink: TurnSink = {};
    const late = encoder(sink);
    const text = late.encode({ type: 'text-delta', id: 't', delta: 'partial' }) + late.error(err);
    const last = events(text).at(-1) as { type: string; response: Json };
    expect(last.type).toBe('response.failed');
    expect(last.response.error).toEqual({ code: 'rate_limit_exceeded', message: 'slow down' });
    expect(sink.final?.status).toBe('failed');
  });
});

describe('reasoning tokens and signatures', () => {
  it('round-trips text, signature and redacted data, and ignores what is not a gateway token', () => {
    const token = encodeReasoningToken({ type: 'reasoning', text: 'Ünïcödé 🤔', signature: 's1', redactedData: 'rd' }, 'gemini') as string;
    expect(token).toMatch(/^mg1\.[A-Za-z0-9_-]+$/);
    expect(decodeReasoningToken(token)).toEqual({ origin: 'gemini', text: 'Ünïcödé 🤔', signature: 's1', redactedData: 'rd' });
    expect(encodeReasoningToken({ type: 'reasoning', text: 'unsigned' }, 'gemini')).toBeUndefined();
    expect(decodeReasoningToken('gAAAAABopenai')).toBeUndefined();
    expect(decodeReasoningToken('mg1.not-json')).toBeUndefined();
  });

  it("keeps an OpenAI reasoning item's own encrypted content, and strips other vendors' signatures for a target", () => {
    const names = new ToolNames();
    const token = encodeReasoningToken({ type: 'reasoning', text: 'signed', signature: 'ANTH' }, 'anthropic-messages') as string;
    const { messages } = decodeInputItems(
      [
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'openai thought' }], encrypted_content: 'gAAAA' },
        { type: 'reasoning', summary: [], encrypted_content: token },
      ],
      { model: 'm', names, callNames: new Map() },
    );
    expect(messages[0]?.content).toEqual([
      { type: 'reasoning', text: 'openai thought', providerOptions: { 'openai-responses': { origin: 'openai-responses', encryptedContent: 'gAAAA', itemId: 'rs_1' } } },
      { type: 'reasoning', text: 'signed', signature: 'ANTH', providerOptions: { 'openai-responses': { origin: 'anthropic-messages' } } },
    ]);
    const forGemini = keepOwnSignatures(messages as IRMessage[], 'gemini');
    expect(forGemini[0]?.content[1]).toEqual({ type: 'reasoning', text: 'signed', providerOptions: { 'openai-responses': { origin: 'anthropic-messages' } } });
    expect(keepOwnSignatures(messages as IRMessage[], 'anthropic-messages')[0]?.content[1]).toMatchObject({ signature: 'ANTH' });
  });
});

describe('tools', () => {
  it('flattens namespaces, prefixes colliding names, filters allowed_tools and refuses hosted tool choices', () => {
    const req = {
      tools: [
        { type: 'namespace', name: 'ns', tools: [{ type: 'function', name: 'x' }, { type: 'function', name: 'y' }] },
        { type: 'function', name: 'x' },
      ],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'x' }] },
    };
    const d = decodeTools(req, 'm');
    expect(d.tools.map((t) => (t.type === 'function' ? t.name : t.type))).toEqual(['x']);
    expect(d.toolChoice).toEqual({ type: 'required' });
    expect(d.names.clientRef('ns__x')).toEqual({ name: 'x', namespace: 'ns', kind: 'function' });
    expect(d.names.clientRef('y')).toEqual({ name: 'y', namespace: 'ns', kind: 'function' });
    expect(d.names.upstreamName('x', 'ns')).toBe('ns__x');
    expect(() => decodeTools({ tools: [], tool_choice: { type: 'file_search' } }, 'claude')).toThrow(/hosted tools/);
    expect(() => decodeTools({ tools: [{ type: 'code_interpreter' }] }, 'claude')).toThrow(/'code_interpreter' \(tools\[0\]\)/);
    expect(decodeTools({ tools: [{ type: 'code_interpreter' }] }, 'claude', { skipHosted: true }).tools).toEqual([]);
  });
});

describe('replayed events', () => {
  it('rebuild the added/delta/done chain of every item and end with the terminal event', () => {
    const evs = replayEvents({
      id: 'resp_1',
      status: 'completed',
      output: [
        { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'think' }], encrypted_content: 'mg1.x' },
        { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'c1', name: 'f', arguments: '{}' },
      ],
    });
    expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i));
    expect(evs.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(JSON.parse(evs[2]?.data as string).item.encrypted_content).toBeUndefined();
    expect(JSON.parse(evs[7]?.data as string).item.encrypted_content).toBe('mg1.x');
  });
});

describe('pass-through relay', () => {
  it("answers with the gateway's id, keeps the upstream's, and leaves other vendors' reasoning out of the body", () => {
    const sink: TurnSink = {};
    const codec = responsesPassthrough({ responseId: 'resp_gw', previousResponseId: 'resp_prev', historyItems: [{ role: 'user', content: 'before' }], background: false, sink });
    const token = encodeReasoningToken({ type: 'reasoning', text: 't', signature: 's' }, 'anthropic-messages');
    const raw = JSON.stringify({ model: 'public', previous_response_id: 'resp_prev', input: [{ type: 'reasoning', summary: [], encrypted_content: token }, { role: 'user', content: 'now' }] });
    const body = JSON.parse(codec.prepareBody(raw, JSON.parse(raw) as Json, 'gpt-x', true)) as Json;
    expect(body).toEqual({ model: 'gpt-x', stream: true, input: [{ role: 'user', content: 'before' }, { role: 'user', content: 'now' }] });
    const relay = codec.createRelay({ clientWantsUsage: true, traceId: 't1' });
    const created = relay.relay({ event: 'response.created', data: JSON.stringify({ type: 'response.created', sequence_number: 0, response: { id: 'resp_up', status: 'in_progress' } }) });
    expect(created).toContain('"id":"resp_gw"');
    expect(created).toContain('"previous_response_id":"resp_prev"');
    const delta = '{"type":"response.output_text.delta","sequence_number":1,"delta":"hi"}';
    expect(relay.relay({ event: 'response.output_text.delta', data: delta })).toBe(`event: response.output_text.delta\ndata: ${delta}\n\n`);
    expect(() => relay.end()).toThrow(/ended before/);
    relay.relay({ event: 'response.completed', data: JSON.stringify({ type: 'response.completed', sequence_number: 2, response: { id: 'resp_up', status: 'completed', usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } } }) });
    expect(relay.end()).toBe('');
    expect(relay.usage()).toEqual({ inputTokens: 3, outputTokens: 4, totalTokens: 7 });
    expect(sink.upstreamResponseId).toBe('resp_up');
    expect(sink.final).toMatchObject({ id: 'resp_gw', traceId: 't1' });
  });
});

describe('memory conversation store', () => {
  const rec = (id: string, expiresAt: number): ConversationRecord => ({
    id, api: 'test', ownerId: 'o', version: 0, createdAt: 0, expiresAt, status: 'completed', background: false, object: { id }, inputItems: [], turn: null,
  });

  it('forgets the least recently used record beyond its size and expired records', async () => {
    let now = 1000;
    const store = new MemoryConversationStore(() => now, 2);
    await store.create(rec('a', 5000));
    await store.create(rec('b', 5000));
    expect(await store.get('a')).toBeDefined(); // a is now the most recently used
    await store.create(rec('c', 5000));
    expect(await store.get('b')).toBeUndefined();
    expect((await store.get('a'))?.id).toBe('a');
    now = 5000;
    expect(await store.get('c')).toBeUndefined();
  });

  it('compare-and-sets and hands out copies', async () => {
    const store = new MemoryConversationStore(() => 0);
    const first = await store.create(rec('a', 10));
    first.object.id = 'changed';
    expect((await store.get('a'))?.object.id).toBe('a');
    expect(await store.update({ ...first, status: 'failed' }, 2)).toBeUndefined();
    expect((await store.update({ ...first, status: 'failed' }, 1))?.version).toBe(2);
    await store.appendEvents('a', [{ seq: 0, type: 'x', data: '{}' }]);
    expect(await store.events('a', 0)).toEqual([{ seq: 0, type: 'x', data: '{}' }]);
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('a')).toBe(false);
  });

  it('finds a record by the id of an item it holds, for its owner only; the index leaves with the record', async () => {
    let now = 0;
    const store = new MemoryConversationStore(() => now, 2);
    await store.create({ ...rec('a', 100), itemIds: ['fc_1', 'msg_1'] });
    await store.create({ ...rec('b', 200), ownerId: 'other', itemIds: ['fc_2'] });
    expect((await store.findItem('o', 'fc_1'))?.id).toBe('a');
    expect(await store.findItem('other', 'fc_1')).toBeUndefined();
    expect(await store.findItem('o', 'fc_2')).toBeUndefined();
    expect((await store.findItem('other', 'fc_2'))?.id).toBe('b');
    // The latest record holding an id answers; deleting an older holder leaves it.
    await store.update({ ...rec('b', 200), ownerId: 'other', itemIds: ['fc_2', 'fc_3'] }, 1);
    expect((await store.findItem('other', 'fc_3'))?.id).toBe('b');
    await store.delete('a');
    expect(await store.findItem('o', 'msg_1')).toBeUndefined();
    // Evicted (beyond its size) and expired records take their index entries along.
    await store.create({ ...rec('c', 300), itemIds: ['x'] });
    await store.create({ ...rec('d', 300), itemIds: ['y'] });
    expect(await store.findItem('other', 'fc_2')).toBeUndefined();
    now = 300;
    expect(await store.findItem('o', 'y')).toBeUndefined();
  });
});
